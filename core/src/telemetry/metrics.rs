//! Prometheus metrics of calls and Keeper requests (prometheus-client),
//! recorded where they happen (the toolbox, the Keeper client) and exposed by
//! the server's `GET /metrics` through one [`Registry`] ([`register`]).
//!
//! Label values come from fixed sets (tool names, outcome codes, Keeper
//! endpoint templates, statuses), never from raw ids or caller text, so the
//! number of series stays bounded whatever callers send.

use std::borrow::Cow;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// The upper bounds of the call latency buckets, in seconds.
pub const CALL_SECONDS_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The label of a tool that is not served (so a caller cannot grow the
/// series with names of its own).
pub const UNKNOWN_TOOL_LABEL: &str = "(unknown)";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: Cow<'static, str>,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: Cow<'static, str>,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KeeperLabels {
    endpoint: &'static str,
    status: KeeperStatus,
}

/// Keeper's answer as a label: its status code, or `none` when no answer
/// came (refused, reset, timed out, too large).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
struct KeeperStatus(Option<u16>);

impl EncodeLabelValue for KeeperStatus {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        match self.0 {
            Some(status) => EncodeLabelValue::encode(&status, encoder),
            None => EncodeLabelValue::encode(&"none", encoder),
        }
    }
}

fn call_histogram() -> Histogram {
    Histogram::new(CALL_SECONDS_BUCKETS)
}

/// Tool calls: by tool and outcome, their latency by tool, and how many are
/// running. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub struct CallMetrics {
    calls: Family<CallLabels, Counter>,
    seconds: Family<ToolLabel, Histogram, fn() -> Histogram>,
    in_flight: Gauge,
}

impl Default for CallMetrics {
    fn default() -> Self {
        Self {
            calls: Family::default(),
            seconds: Family::new_with_constructor(call_histogram),
            in_flight: Gauge::default(),
        }
    }
}

impl CallMetrics {
    /// A call started.
    pub fn started(&self) {
        self.in_flight.inc();
    }

    /// A call ended with `outcome` (`ok`, or its error code) after `elapsed`.
    pub fn ended(&self, tool: Cow<'static, str>, outcome: &'static str, elapsed: Duration) {
        self.in_flight.dec();
        self.count(tool.clone(), outcome);
        self.seconds
            .get_or_create(&ToolLabel { tool })
            .observe(elapsed.as_secs_f64());
    }

    /// A call refused before it ran (no credential, a tool not served): counted
    /// by its outcome, not timed.
    pub fn refused(&self, tool: Cow<'static, str>, outcome: &'static str) {
        self.count(tool, outcome);
    }

    fn count(&self, tool: Cow<'static, str>, outcome: &'static str) {
        self.calls
            .get_or_create(&CallLabels { tool, outcome })
            .inc();
    }

    /// Calls running now.
    pub fn in_flight(&self) -> i64 {
        self.in_flight.get()
    }
}

/// Keeper requests: every attempt by endpoint template and status, and the
/// resends among them. Cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub struct KeeperMetrics {
    requests: Family<KeeperLabels, Counter>,
    resends: Family<KeeperLabels, Counter>,
}

impl KeeperMetrics {
    /// One attempt at `endpoint` (`GET /schema`) got `status` (`None`: no answer).
    pub fn attempt(&self, endpoint: &'static str, status: Option<u16>) {
        let labels = KeeperLabels {
            endpoint,
            status: KeeperStatus(status),
        };
        self.requests.get_or_create(&labels).inc();
    }

    /// An attempt that got `status` is resent.
    pub fn resend(&self, endpoint: &'static str, status: Option<u16>) {
        let labels = KeeperLabels {
            endpoint,
            status: KeeperStatus(status),
        };
        self.resends.get_or_create(&labels).inc();
    }
}

/// Registers the call and Keeper metrics in `registry` (names prefixed by
/// the registry's prefix, `herald_` on the server):
///
/// - `tool_calls_total{tool, outcome}`;
/// - `tool_call_duration_seconds{tool}` (histogram);
/// - `tool_calls_in_flight`;
/// - `keeper_requests_total{endpoint, status}` (every attempt);
/// - `keeper_resends_total{endpoint, status}` (attempts resent, by the
///   status that caused it).
pub fn register(registry: &mut Registry, calls: &CallMetrics, keeper: &KeeperMetrics) {
    registry.register(
        "tool_calls",
        "Tool calls by tool and outcome (ok, or the error code: unauthorized, not-found, ...)",
        calls.calls.clone(),
    );
    registry.register_with_unit(
        "tool_call_duration",
        "Tool call latency, from the call reaching Herald to its answer",
        Unit::Seconds,
        calls.seconds.clone(),
    );
    registry.register(
        "tool_calls_in_flight",
        "Tool calls running now",
        calls.in_flight.clone(),
    );
    registry.register(
        "keeper_requests",
        "Requests to Keeper (every attempt) by endpoint template and status (none: no answer)",
        keeper.requests.clone(),
    );
    registry.register(
        "keeper_resends",
        "Keeper requests resent (after 429, 503 or no answer), by the status that caused it",
        keeper.resends.clone(),
    );
}

#[cfg(test)]
mod tests {
    use prometheus_client::encoding::prometheus_text::encode;

    use super::*;

    #[test]
    fn recorded_calls_and_requests_are_exposed() {
        let calls = CallMetrics::default();
        let keeper = KeeperMetrics::default();
        let mut registry = Registry::with_prefix("herald");
        register(&mut registry, &calls, &keeper);
        calls.started();
        calls.ended("lorebase_get".into(), "ok", Duration::from_millis(3));
        calls.refused("lorebase_get".into(), "unauthorized");
        keeper.attempt("GET /kinds/{kind}/records/{key}", Some(429));
        keeper.resend("GET /kinds/{kind}/records/{key}", Some(429));
        keeper.attempt("GET /kinds/{kind}/records/{key}", None);
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        for line in [
            r#"herald_tool_calls_total{tool="lorebase_get",outcome="ok"} 1"#,
            r#"herald_tool_calls_total{tool="lorebase_get",outcome="unauthorized"} 1"#,
            r#"herald_tool_call_duration_seconds_bucket{tool="lorebase_get",le="0.005"} 1"#,
            r#"herald_tool_call_duration_seconds_count{tool="lorebase_get"} 1"#,
            "herald_tool_calls_in_flight 0",
            r#"herald_keeper_requests_total{endpoint="GET /kinds/{kind}/records/{key}",status="429"} 1"#,
            r#"herald_keeper_requests_total{endpoint="GET /kinds/{kind}/records/{key}",status="none"} 1"#,
            r#"herald_keeper_resends_total{endpoint="GET /kinds/{kind}/records/{key}",status="429"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
    }
}
