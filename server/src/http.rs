//! Streamable HTTP: rmcp's tower service behind the guard
//! ([`crate::http_guard`]), `GET /healthz`, and a graceful shutdown on
//! SIGTERM/SIGINT that lets in-flight calls finish.
//!
//! Stateless with JSON responses by default (`http.stateless`,
//! `http.json_response`), so any replica serves any call.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use herald_core::config::HttpSettings;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;
use crate::handler::{HeraldServer, SERVER_NAME};
use crate::http_guard::{GuardPolicy, guard};
use crate::shutdown::Shutdown;

/// How long open streams (SSE, sessions) may run on after a shutdown signal
/// before they are closed. Plain JSON calls finish on their own.
pub const DRAIN_GRACE: Duration = Duration::from_secs(30);

/// The Axum app: `path` (default `/mcp`) and `/healthz`.
pub fn router(
    server: HeraldServer,
    http: &HttpSettings,
    cancel: CancellationToken,
) -> Result<Router, ServerError> {
    let policy = GuardPolicy::new(
        &http.allowed_hosts,
        &http.allowed_origins,
        http.max_body_bytes,
    )
    .map_err(ServerError::Settings)?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!http.stateless)
        .with_json_response(http.json_response)
        .with_max_request_body_bytes(http.max_body_bytes)
        // The guard checks Host and Origin first (with JSON-RPC bodies).
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_cancellation_token(cancel);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let path = if http.path.starts_with('/') {
        http.path.clone()
    } else {
        format!("/{}", http.path)
    };
    if path == "/healthz" || path == "/" {
        return Err(ServerError::Settings(format!(
            "http.path: {path:?} is reserved; use a path such as /mcp"
        )));
    }
    let mcp = Router::new()
        .route_service(&path, service)
        .layer(from_fn_with_state(Arc::new(policy), guard));
    Ok(Router::new().route("/healthz", get(healthz)).merge(mcp))
}

/// `GET /healthz`: liveness only (no Keeper call).
async fn healthz() -> axum::Json<serde_json::Value> {
    axum::Json(json!({"status": "ok", "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")}))
}

/// A bound listener, ready to serve.
pub struct Bound {
    listener: TcpListener,
    /// The address it listens on (the real port when 0 was asked for).
    pub addr: SocketAddr,
}

/// Binds `host:port`.
pub async fn bind(http: &HttpSettings) -> Result<Bound, ServerError> {
    let addr_text = if http.host.contains(':') && !http.host.starts_with('[') {
        format!("[{}]:{}", http.host, http.port)
    } else {
        format!("{}:{}", http.host, http.port)
    };
    let listener = TcpListener::bind((http.host.trim_matches(['[', ']']), http.port))
        .await
        .map_err(|source| ServerError::Bind {
            addr: addr_text,
            source,
        })?;
    let addr = listener.local_addr()?;
    Ok(Bound { listener, addr })
}

/// The URL callers use for `bound` (the path included).
pub fn url(bound: &Bound, http: &HttpSettings) -> String {
    let path = if http.path.starts_with('/') {
        http.path.clone()
    } else {
        format!("/{}", http.path)
    };
    format!("http://{}{}", bound.addr, path)
}

/// Serves until `shutdown` fires, then stops accepting, lets in-flight
/// requests finish, and closes streams still open after [`DRAIN_GRACE`].
pub async fn serve(
    bound: Bound,
    server: HeraldServer,
    http: &HttpSettings,
    shutdown: Shutdown,
) -> Result<(), ServerError> {
    let cancel = CancellationToken::new();
    let app = router(server, http, cancel.clone())?;
    let signal = shutdown.clone();
    let drain = cancel.clone();
    let result = axum::serve(bound.listener, app)
        .with_graceful_shutdown(async move {
            signal.wait().await;
            tracing::info!("shutting down: finishing in-flight calls");
            tokio::spawn(async move {
                tokio::time::sleep(DRAIN_GRACE).await;
                drain.cancel();
            });
        })
        .await;
    cancel.cancel();
    result.map_err(|e| ServerError::Transport(e.to_string()))
}
