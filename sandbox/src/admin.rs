//! The sandbox's own endpoints under `/_sandbox/` (no auth, not counted as
//! API calls): faults, stats, reset, and the embedding of a text.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::faults::FaultSpec;
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;
use crate::text::embed;

type Shared = State<Arc<AppState>>;

async fn add_fault(State(s): Shared, b: Bytes) -> ApiResult<Response> {
    let spec: FaultSpec =
        serde_json::from_slice(&b).map_err(|e| ApiError::invalid("body", e.to_string()))?;
    let fault = spec
        .into_fault()
        .map_err(|e| ApiError::invalid("body", e))?;
    s.faults.push(fault);
    Ok((
        StatusCode::CREATED,
        Json(json!({"pending": s.faults.pending()})),
    )
        .into_response())
}

async fn clear_faults(State(s): Shared) -> Response {
    s.faults.clear();
    StatusCode::NO_CONTENT.into_response()
}

async fn stats(State(s): Shared) -> Response {
    Json(json!({
        "requests": s.requests.load(std::sync::atomic::Ordering::SeqCst),
        "pending_faults": s.faults.pending(),
        "domains": s.domain_names(),
    }))
    .into_response()
}

async fn reset(State(s): Shared) -> Response {
    s.reset();
    StatusCode::NO_CONTENT.into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EmbedRequest {
    text: String,
    #[serde(default)]
    domain: Option<String>,
}

/// The query vector a client would compute for a text (the sandbox's
/// deterministic embedding), so tests can run vector searches.
async fn embed_text(State(s): Shared, b: Bytes) -> ApiResult<Response> {
    let req: EmbedRequest =
        serde_json::from_slice(&b).map_err(|e| ApiError::invalid("body", e.to_string()))?;
    let domain = req.domain.unwrap_or_else(|| "supply".into());
    let info = s.with_domain(&domain, |d| {
        d.def
            .embedding
            .clone()
            .ok_or_else(|| ApiError::invalid("domain", "this Domain has no embedding model"))
    })?;
    Ok(Json(json!({
        "model": info.model,
        "dimension": info.dimension,
        "vector": embed(&req.text, info.dimension as usize),
    }))
    .into_response())
}

/// The admin routes.
pub(crate) fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/_sandbox/faults", post(add_fault).delete(clear_faults))
        .route("/_sandbox/stats", get(stats))
        .route("/_sandbox/reset", post(reset))
        .route("/_sandbox/embed", post(embed_text))
}
