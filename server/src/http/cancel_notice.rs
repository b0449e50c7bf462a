//! `notifications/cancelled` over stateless Streamable HTTP. Each POST is
//! its own rmcp service there, and rmcp drops a notification POST unread,
//! so a client that cancels a call in a POST of its own (the TypeScript SDK
//! does) would cancel nothing. The calls in flight are kept here
//! ([`CallsInFlight`]) by caller and JSON-RPC id; such a notification
//! cancels the caller's calls of that id (their tokens: the handler drops
//! the call, as on a disconnect) and is answered 202.
//!
//! Who the caller is decides whose calls a cancellation can reach, first
//! that applies:
//!
//! - with OAuth on, the authenticated subject ([`CallerIdentity`], put there
//!   by the gate: the issuer and `sub`, or the token when it names none);
//! - the `Authorization` header (a Lorebase API key);
//! - the MCP session (`Mcp-Session-Id`);
//! - otherwise, an anonymous caller: its own connection only
//!   ([`ConnectionId`]), so anonymous clients behind one address (one proxy)
//!   never cancel each other's calls.
//!
//! Each tracked call is its own entry, removed by its own serial when the
//! call ends: two calls of one caller under one id are both kept, and the
//! first to end does not remove the other.
//!
//! What a call pays to be kept is one map entry under one lock: its caller
//! and id are hashed together into one key (with a key of the process's
//! own, so no client can make its key meet another caller's), never copied.
//! A cancellation pays the rest: it looks through the calls in flight for
//! its key.

use std::collections::HashMap;
use std::fmt::{self, Display, Write as _};
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::http::connection::ConnectionId;
use crate::http::oauth::cache::TokenKey;
use crate::mcp::call_tracking::{CallGuard, CallTracking, TrackCalls};

/// The method of a cancellation.
const CANCELLED: &str = "notifications/cancelled";
/// The header naming an MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// An authenticated caller (OAuth on), in the request's extensions: the
/// SHA-256 of its issuer and subject, or of its token when the token names
/// no subject. Holds no token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CallerIdentity(TokenKey);

impl CallerIdentity {
    /// The caller `subject` of `issuer` (or, without one, of `token`).
    pub(crate) fn of(issuer: &str, subject: Option<&str>, token: &str) -> Self {
        Self(match subject {
            Some(subject) => TokenKey::of_parts(&["subject", issuer, subject]),
            None => TokenKey::of_parts(&["token", token]),
        })
    }
}

/// Whose calls a cancellation can reach (see the module documentation).
#[derive(Hash)]
enum Caller<'a> {
    Subject(&'a CallerIdentity),
    Credential(&'a [u8]),
    Session(&'a [u8]),
    Connection(ConnectionId),
}

/// The calls in flight: by the key of their caller and id, and their serial
/// (each call's own identity), their tokens.
type Calls = HashMap<(u64, u64), CancellationToken>;

/// The calls in flight on one listener, by caller and id.
#[derive(Debug, Default)]
pub(crate) struct CallsInFlight {
    hasher: RandomState,
    calls: Mutex<Calls>,
    serials: AtomicU64,
}

/// A call kept in [`CallsInFlight`] until it is dropped.
#[derive(Debug)]
pub(crate) struct Tracked {
    calls: Arc<CallsInFlight>,
    entry: (u64, u64),
}

impl Drop for Tracked {
    /// Removes this call's entry, by its serial: never another call's of
    /// the same caller and id.
    fn drop(&mut self) {
        self.calls.lock().remove(&self.entry);
    }
}

/// Feeds what is written to a hasher (an id's digits or text, unallocated).
struct HashWriter<'a, H: Hasher>(&'a mut H);

impl<H: Hasher> fmt::Write for HashWriter<'_, H> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

impl CallsInFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Calls> {
        self.calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The key of the call `id` of the caller of a request (see the module
    /// documentation): `id` as text (a number and a string of its digits are
    /// one); `None` when nothing identifies the caller, not even its
    /// connection.
    fn key(&self, parts: &Parts, id: &dyn Display) -> Option<u64> {
        let header = |name| parts.headers.get(name).map(HeaderValue::as_bytes);
        let caller = if let Some(identity) = parts.extensions.get::<CallerIdentity>() {
            Caller::Subject(identity)
        } else if let Some(credential) = header(header::AUTHORIZATION.as_str()) {
            Caller::Credential(credential)
        } else if let Some(session) = header(SESSION_HEADER) {
            Caller::Session(session)
        } else {
            Caller::Connection(*parts.extensions.get::<ConnectionId>()?)
        };
        let mut hasher = self.hasher.build_hasher();
        caller.hash(&mut hasher);
        write!(HashWriter(&mut hasher), "{id}").ok()?;
        // The end of the id, as `str`'s own hash marks it.
        hasher.write_u8(0xff);
        Some(hasher.finish())
    }

    /// Keeps the call `id` of the request `parts` until the returned guard
    /// is dropped; a cancellation of it fires `token`. `None` (nothing
    /// kept) for a request nothing identifies.
    pub(crate) fn keep(
        self: &Arc<Self>,
        parts: &Parts,
        id: &dyn Display,
        token: CancellationToken,
    ) -> Option<Tracked> {
        let entry = (
            self.key(parts, id)?,
            self.serials.fetch_add(1, Ordering::Relaxed),
        );
        self.lock().insert(entry, token);
        Some(Tracked {
            calls: self.clone(),
            entry,
        })
    }

    /// Cancels the calls `id` of the caller of `parts`; how many there were.
    fn cancel(&self, parts: &Parts, id: &dyn Display) -> usize {
        let Some(key) = self.key(parts, id) else {
            return 0;
        };
        let mut cancelled = Vec::new();
        self.lock().retain(|(of, _), token| {
            let theirs = *of == key;
            if theirs {
                cancelled.push(token.clone());
            }
            !theirs
        });
        // Fired outside the lock, so a call ending meanwhile (removing its
        // entry) never waits for the wake-ups.
        for token in &cancelled {
            token.cancel();
        }
        cancelled.len()
    }
}

impl TrackCalls for CallsInFlight {
    fn track(
        self: Arc<Self>,
        parts: &Parts,
        id: &dyn Display,
        token: CancellationToken,
    ) -> Option<CallGuard> {
        self.keep(parts, id, token)
            .map(|tracked| Box::new(tracked) as CallGuard)
    }
}

/// A JSON-RPC id as its text (a number and a string of its digits are one).
pub(crate) fn id_key(id: &Value) -> Option<&dyn Display> {
    match id {
        Value::Number(n) => Some(n),
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The step after the guard (which bounded and buffered the body) in the
/// MCP endpoint's layer (`http::mcp_layer`): a `notifications/cancelled`
/// cancels the caller's call and is answered 202; any other request goes
/// on to `inner`, carrying the calls in flight for the handler to keep its
/// call there.
pub(crate) async fn cancel_notice<F, Fut>(
    calls: &Arc<CallsInFlight>,
    request: Request,
    inner: F,
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
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
            let cancelled = calls.cancel(&parts, id);
            tracing::debug!(cancelled, "notifications/cancelled over HTTP");
        }
        return StatusCode::ACCEPTED.into_response();
    }
    parts.extensions.insert(CallTracking(calls.clone()));
    inner(Request::from_parts(parts, Body::from(bytes))).await
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

    fn parts(headers: &[(&str, &str)], connection: u64) -> Parts {
        let mut builder = axum::http::Request::builder();
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let (mut parts, ()) = builder.body(()).unwrap().into_parts();
        parts.extensions.insert(ConnectionId(connection));
        parts
    }

    fn bearer(token: &str, connection: u64) -> Parts {
        parts(&[("authorization", token)], connection)
    }

    #[test]
    fn a_caller_cancels_its_own_call_only() {
        let calls = Arc::new(CallsInFlight::default());
        let token = CancellationToken::new();
        let tracked = calls.keep(&bearer("Bearer a", 1), &"7", token.clone());
        assert_eq!(calls.cancel(&bearer("Bearer b", 1), &"7"), 0);
        assert!(!token.is_cancelled());
        // The same key from another connection is the same caller.
        assert_eq!(calls.cancel(&bearer("Bearer a", 2), &"7"), 1);
        assert!(token.is_cancelled());
        drop(tracked);
        assert!(calls.lock().is_empty());
        let seven = serde_json::json!(7);
        assert_eq!(
            id_key(&seven).map(ToString::to_string).as_deref(),
            Some("7")
        );
        assert!(id_key(&Value::Null).is_none());
        // A number and a string of its digits are one call.
        let again = CancellationToken::new();
        let _kept = calls.keep(&bearer("Bearer a", 1), &"8", again.clone());
        let eight = serde_json::json!(8);
        assert_eq!(
            calls.cancel(&bearer("Bearer a", 1), id_key(&eight).unwrap()),
            1
        );
        assert!(again.is_cancelled());
    }

    #[test]
    fn an_entry_is_removed_by_its_own_identity_never_by_its_id() {
        let calls = Arc::new(CallsInFlight::default());
        let (first, second) = (CancellationToken::new(), CancellationToken::new());
        let caller = bearer("Bearer a", 1);
        let tracked_first = calls.keep(&caller, &"1", first.clone());
        let _tracked_second = calls.keep(&caller, &"1", second.clone());
        // The first call ends: the second is still kept, and cancelled.
        drop(tracked_first);
        assert_eq!(calls.cancel(&caller, &"1"), 1);
        assert!(second.is_cancelled() && !first.is_cancelled());
    }

    #[test]
    fn anonymous_callers_reach_only_their_connection_or_their_session() {
        let calls = Arc::new(CallsInFlight::default());
        let on_one = CancellationToken::new();
        let _a = calls.keep(&parts(&[], 1), &"0", on_one.clone());
        // Another anonymous connection (another client behind one proxy).
        assert_eq!(calls.cancel(&parts(&[], 2), &"0"), 0);
        assert_eq!(calls.cancel(&bearer("Bearer x", 1), &"0"), 0);
        assert!(!on_one.is_cancelled());
        assert_eq!(calls.cancel(&parts(&[], 1), &"0"), 1);
        assert!(on_one.is_cancelled());
        // A session reaches its calls from any connection, and only its own.
        let in_session = CancellationToken::new();
        let session = |s, c| parts(&[("mcp-session-id", s)], c);
        let _s = calls.keep(&session("s-1", 3), &"5", in_session.clone());
        assert_eq!(calls.cancel(&session("s-2", 3), &"5"), 0);
        assert_eq!(calls.cancel(&parts(&[], 3), &"5"), 0);
        assert_eq!(calls.cancel(&session("s-1", 4), &"5"), 1);
        assert!(in_session.is_cancelled());
        // Nothing identifies a request without a connection: nothing kept.
        let (bare, ()) = axum::http::Request::builder()
            .body(())
            .unwrap()
            .into_parts();
        assert!(calls.keep(&bare, &"9", CancellationToken::new()).is_none());
    }

    #[test]
    fn with_oauth_the_subject_decides_not_the_token() {
        let calls = Arc::new(CallsInFlight::default());
        let token = CancellationToken::new();
        let mut first = bearer("Bearer token-1", 1);
        let alice = CallerIdentity::of("https://as.example", Some("alice"), "token-1");
        first.extensions.insert(alice);
        let _t = calls.keep(&first, &"3", token.clone());
        // Bob with the same header text (never the case, but the subject wins).
        let mut bob = bearer("Bearer token-1", 2);
        bob.extensions.insert(CallerIdentity::of(
            "https://as.example",
            Some("bob"),
            "token-1",
        ));
        assert_eq!(calls.cancel(&bob, &"3"), 0);
        // Alice with a refreshed token.
        let mut again = bearer("Bearer token-2", 2);
        again.extensions.insert(CallerIdentity::of(
            "https://as.example",
            Some("alice"),
            "token-2",
        ));
        assert_eq!(calls.cancel(&again, &"3"), 1);
        assert!(token.is_cancelled());
    }
}
