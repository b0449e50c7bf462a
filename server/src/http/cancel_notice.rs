//! `notifications/cancelled` over stateless Streamable HTTP. Each
//! POST is its own rmcp service there, and rmcp drops a
//! notification POST unread, so a client that cancels a call in a POST of
//! its own (the TypeScript SDK does) would cancel nothing. The calls in
//! flight are kept here ([`CallsInFlight`]) by caller and JSON-RPC id; such
//! a notification cancels the caller's call of that id (its token: the
//! handler drops the call, as on a disconnect) and is answered 202.
//!
//! The caller is the `Authorization` header and the peer address together,
//! so nobody cancels another's calls; anonymous callers on one address who
//! reuse ids (`http.allow_anonymous`, a local stack) can cancel each other's.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::http::connection::PeerAddr;

/// The method of a cancellation.
const CANCELLED: &str = "notifications/cancelled";

/// The calls in flight on one listener, by caller and id.
#[derive(Debug, Default)]
pub(crate) struct CallsInFlight {
    hasher: RandomState,
    calls: Mutex<HashMap<(u64, String), CancellationToken>>,
}

/// A call kept in [`CallsInFlight`] until it is dropped.
#[derive(Debug)]
pub(crate) struct Tracked {
    calls: Arc<CallsInFlight>,
    key: (u64, String),
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.calls.lock().remove(&self.key);
    }
}

impl CallsInFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, String), CancellationToken>> {
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The caller of a request: its `Authorization` and peer address.
    fn caller(&self, parts: &Parts) -> u64 {
        let authorization = parts
            .headers
            .get(header::AUTHORIZATION)
            .map(axum::http::HeaderValue::as_bytes);
        let peer = parts.extensions.get::<PeerAddr>().and_then(|p| p.0);
        self.hasher.hash_one((authorization, peer))
    }

    /// Keeps the call `id` of the request `parts` until the returned guard
    /// is dropped; a cancellation of it fires `token`.
    pub(crate) fn track(
        self: &Arc<Self>,
        parts: &Parts,
        id: String,
        token: CancellationToken,
    ) -> Tracked {
        let key = (self.caller(parts), id);
        self.lock().insert(key.clone(), token);
        Tracked {
            calls: self.clone(),
            key,
        }
    }

    /// Cancels the call `id` of the caller of `parts`; whether there was one.
    fn cancel(&self, parts: &Parts, id: String) -> bool {
        let key = (self.caller(parts), id);
        match self.lock().remove(&key) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}

/// A JSON-RPC id as a key (a number and a string of its digits are one).
pub(crate) fn id_key(id: &Value) -> Option<String> {
    match id {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The middleware (after the guard, which bounded and buffered the body):
/// a `notifications/cancelled` cancels the caller's call and is answered
/// 202; any other request goes on, carrying the calls in flight for the
/// handler to keep its call there.
pub(crate) async fn cancel_notice(
    State(calls): State<Arc<CallsInFlight>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    // The guard read the body whole, within the limit: this copies nothing.
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    if may_be_cancellation(&bytes)
        && let Ok(message) = serde_json::from_slice::<Value>(&bytes)
        && message.get("method").and_then(Value::as_str) == Some(CANCELLED)
        && message.get("id").is_none()
    {
        let id = message
            .get("params")
            .and_then(|p| p.get("requestId"))
            .and_then(id_key);
        if let Some(id) = id {
            let found = calls.cancel(&parts, id);
            tracing::debug!(found, "notifications/cancelled over HTTP");
        }
        return StatusCode::ACCEPTED.into_response();
    }
    parts.extensions.insert(calls);
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Whether `bytes` may be a cancellation (before parsing anything).
fn may_be_cancellation(bytes: &[u8]) -> bool {
    bytes
        .windows(CANCELLED.len())
        .any(|w| w == CANCELLED.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(authorization: &str) -> Parts {
        let (parts, ()) = axum::http::Request::builder()
            .header(header::AUTHORIZATION, authorization)
            .body(())
            .unwrap()
            .into_parts();
        parts
    }

    #[test]
    fn a_caller_cancels_its_own_call_only() {
        let calls = Arc::new(CallsInFlight::default());
        let token = CancellationToken::new();
        let tracked = calls.track(&parts("Bearer a"), "7".into(), token.clone());
        assert!(!calls.cancel(&parts("Bearer b"), "7".into()));
        assert!(!token.is_cancelled());
        assert!(calls.cancel(&parts("Bearer a"), "7".into()));
        assert!(token.is_cancelled());
        drop(tracked);
        assert!(calls.lock().is_empty());
        assert_eq!(id_key(&serde_json::json!(7)), Some("7".into()));
        assert_eq!(id_key(&Value::Null), None);
    }
}
