//! Where the handler keeps a call so that a cancellation sent apart from it
//! reaches it: over stateless Streamable HTTP a `notifications/cancelled`
//! comes in a request of its own, which the HTTP layer answers
//! (`http::cancel_notice`, the one [`TrackCalls`] there is). The handler
//! finds the tracker in the request's extensions ([`CallTracking`]) and
//! knows nothing of HTTP's callers; the transport knows nothing of the
//! handler.

use std::sync::Arc;

use axum::http::request::Parts;
use tokio_util::sync::CancellationToken;

/// A call kept where cancellations find it, until this guard is dropped.
pub(crate) type CallGuard = Box<dyn Send>;

/// What keeps calls in flight for the cancellations of one transport.
pub(crate) trait TrackCalls: Send + Sync {
    /// Keeps the call `id` of the request `parts` until the returned guard
    /// is dropped; a cancellation of it fires `token`. `None` (nothing
    /// kept) for a request nothing identifies.
    fn track(
        self: Arc<Self>,
        parts: &Parts,
        id: &dyn std::fmt::Display,
        token: CancellationToken,
    ) -> Option<CallGuard>;
}

/// The tracker a request carries in its extensions for the handler.
#[derive(Clone)]
pub(crate) struct CallTracking(pub(crate) Arc<dyn TrackCalls>);
