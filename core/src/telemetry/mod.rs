//! What an operator sees of the calls Herald serves (docs/operations.md):
//!
//! - [`trace`]: W3C `traceparent` (continued from the caller or new) and the
//!   request id every Keeper request carries;
//! - [`scope`]: the scope a call runs in (a task-local), so the Keeper client
//!   finds the ids to send and counts its requests;
//! - [`metrics`]: Prometheus counters and histograms of calls and Keeper
//!   requests (prometheus-client);
//! - [`audit`]: the audit line of each call (and its span) with the caller's
//!   key fingerprint;
//! - [`spans`]: the spans queued for export ([`crate::otlp`] sends them).
//!
//! Without a log line all of it costs a call under a microsecond (ids on the
//! stack, one label lookup per counter, nothing formatted); the JSON audit
//! line adds about 5 µs (docs/benchmarks.md, "Operations: what the
//! telemetry costs").

pub mod audit;
pub mod metrics;
pub mod scope;
pub mod spans;
pub mod trace;

pub use audit::{AUDIT_TARGET, CallReport, Caller, fingerprint};
pub use metrics::{CallMetrics, KeeperMetrics};
pub use scope::{CallOrigin, CallScope, KeeperAttempt, ObservedCall, keeper_attempt};
pub use spans::{SpanMessage, SpanRecord, SpanSink};
pub use trace::{RequestId, TraceContext};
