//! The accept loop (ours, so a fault can drop a connection without
//! answering) and the faults it applies before the router.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use keeper_wire::ProblemCode;
use serde_json::Value;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::faults::FaultAction;
use crate::problem::ApiError;
use crate::state::AppState;

/// A fault closed the connection.
#[derive(Debug, thiserror::Error)]
#[error("connection dropped by an injected fault")]
struct DroppedConnection;

/// The answer of a status fault: its own body when it has one, else a
/// problem with the code the status stands for.
fn fault_response(status: u16, retry_after: Option<u64>, body: Option<Value>) -> Response<Body> {
    if let Some(body) = body {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        if !status.is_success() {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/problem+json"),
            );
        }
        if let Some(secs) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        return response;
    }
    let code = match status {
        429 => ProblemCode::RateLimited,
        423 => ProblemCode::BranchBusy,
        401 => ProblemCode::Unauthorized,
        403 => ProblemCode::Forbidden,
        404 => ProblemCode::NotFound,
        409 => ProblemCode::StaleHead,
        422 => ProblemCode::ValidationFailed,
        _ => ProblemCode::KeeperUnavailable,
    };
    let mut e = ApiError::new(code, format!("injected fault: HTTP {status}"));
    e.status = Some(status);
    if let Some(s) = retry_after {
        e = e.with_retry_after(s);
    }
    let mut response = e.into_response();
    if StatusCode::from_u16(status).is_err() {
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    }
    response
}

async fn handle(
    req: Request<Incoming>,
    router: axum::Router,
    state: Arc<AppState>,
) -> Result<Response<Body>, DroppedConnection> {
    if req.uri().path().starts_with("/api/") {
        state.requests.fetch_add(1, Ordering::SeqCst);
        match state.faults.next() {
            Some(FaultAction::Drop) => {
                tracing::info!(path = %req.uri().path(), "fault: dropping the connection");
                return Err(DroppedConnection);
            }
            Some(FaultAction::Delay(d)) => {
                tracing::info!(path = %req.uri().path(), delay_ms = d.as_millis() as u64, "fault: delaying");
                tokio::time::sleep(d).await;
            }
            Some(FaultAction::Status {
                status,
                retry_after,
                body,
            }) => {
                tracing::info!(path = %req.uri().path(), status, "fault: answering a status");
                return Ok(fault_response(status, retry_after, body));
            }
            None => {}
        }
    }
    let api = req.uri().path().starts_with("/api/");
    let response: Result<Response<Body>, Infallible> = router.oneshot(req.map(Body::new)).await;
    let response = response.unwrap_or_else(|never| match never {});
    Ok(match state.newer {
        Some(newer) if api => newer.rewrite(response).await,
        _ => response,
    })
}

/// Accepts connections until `shutdown` fires.
pub(crate) async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    mut shutdown: tokio::sync::oneshot::Receiver<()>,
) {
    let router = crate::http::router(state.clone());
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let (router, state) = (router.clone(), state.clone());
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |req| handle(req, router.clone(), state.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
