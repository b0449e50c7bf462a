//! The guard ([`guard`], the first step of the MCP endpoint's layer,
//! `http::mcp_layer`): the header checks of the policy, then
//! the body read within the limit, its checks as one JSON-RPC message
//! ([`super::message`]), the reservation of its JSON values
//! ([`super::budget`]), and a large body's trip on the large-body lane
//! ([`super::lane`]).

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::LengthLimitError;

use super::budget::JsonBudget;
use super::lane::{self, LargeBodyLane};
use super::message::{check_message, refusal};
use super::policy::GuardPolicy;
use crate::http::connection::heap_trim::{HeapTrims, LARGE_BODY};

/// What the guard middleware holds for one listener.
#[derive(Debug, Clone)]
pub(crate) struct GuardState {
    /// The Host, Origin and body rules.
    pub policy: Arc<GuardPolicy>,
    /// The runtime's heap trims (one after large bodies).
    pub trims: Arc<HeapTrims>,
    /// The JSON values the requests in flight may hold together.
    pub budget: Arc<JsonBudget>,
    /// The runtime that probes, parses and handles large bodies.
    pub lane: Arc<LargeBodyLane>,
}

/// The guard: header checks, then the body limit (the body is read
/// here, bounded, and handed on in one piece; broken chunked framing is a
/// 400, not a 413), then the body itself, probed without building a tree
/// ([`crate::mcp::probe`]): JSON (else 400 with a parse error, -32700), one JSON-RPC
/// message with each key once (else 400, -32600), routing headers that
/// match it (else 400, -32020), and no more than
/// [`MAX_JSON_VALUES`](crate::mcp::probe::MAX_JSON_VALUES) values ([`super::message`]); then a large request
/// reserves its values in the listener's budget until it is answered
/// ([`super::budget`]: 503 when it cannot within 30 s). From the probe on, a body
/// of [`lane::LANE_BODY_BYTES`] or more runs on the large-body lane. A
/// request the guard lets through goes on to `inner`.
pub(crate) async fn guard<F, Fut>(state: &GuardState, request: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut + Send + 'static,
    Fut: Future<Output = Response> + Send + 'static,
{
    let GuardState {
        policy,
        trims,
        budget,
        lane,
    } = state;
    if let Err(refusal) = policy.check_headers(request.uri(), request.headers()) {
        return refusal.into_response();
    }
    if request.method() != Method::POST {
        return inner(request).await;
    }
    let limit = policy.max_body_bytes();
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large(limit);
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(e) => return unreadable(&e, limit),
    };
    let large = bytes.len() >= LARGE_BODY;
    let budget = Arc::clone(budget);
    let response = if lane::takes(bytes.len()) {
        lane.run(admit(parts, bytes, budget, inner)).await
    } else {
        admit(parts, bytes, budget, inner).await
    };
    if large {
        trims.after_large_body();
    }
    response
}

/// The body's checks ([`super::message`]), its reservation
/// ([`super::budget`]), then `inner` (rmcp and the call), holding the
/// reservation until the answer.
async fn admit<F, Fut>(
    parts: axum::http::request::Parts,
    bytes: axum::body::Bytes,
    budget: Arc<JsonBudget>,
    inner: F,
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let values = match check_message(&parts.headers, &bytes) {
        Ok(values) => values,
        Err(refused) => return *refused,
    };
    let _reserved = match budget.reserve(values, bytes.len()).await {
        Ok(reserved) => reserved,
        Err(busy) => return busy,
    };
    inner(Request::from_parts(parts, Body::from(bytes))).await
}

/// The answer to a body that could not be read whole: past the limit, 413;
/// broken framing (a chunk size that is no hex number, a short chunk, bare
/// LF line ends) or a connection that closed early, 400.
fn unreadable(error: &axum::Error, limit: usize) -> Response {
    let source: &(dyn std::error::Error + 'static) = error;
    let mut cause = Some(source);
    while let Some(e) = cause {
        if e.is::<LengthLimitError>() {
            return too_large(limit);
        }
        cause = e.source();
    }
    tracing::debug!(error = %error, "refused a request whose body could not be read");
    refusal(
        StatusCode::BAD_REQUEST,
        -32600,
        "Bad Request: the body's framing is malformed (chunked encoding or Content-Length); send it again whole",
    )
}

fn too_large(limit: usize) -> Response {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!("Request body exceeds {limit} bytes"),
    )
}
