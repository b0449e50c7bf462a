//! Streamable HTTP: rmcp's tower service behind the OAuth gate when
//! `http.authorization_servers` is set ([`crate::http::auth`], first, so a
//! request without a usable token is answered before its body is read), the
//! guard ([`crate::http::guard`](mod@crate::http::guard)) and the
//! per-request tool sets ([`crate::http::tool_headers`]); `GET /healthz`
//! (liveness), `GET /readyz` ([`crate::http::readiness`]), `GET /metrics`
//! ([`crate::http::metrics`], unless it has a port of its own), the protected
//! resource metadata; and the listener: at most `http.max_connections`
//! connections, each under its time limits ([`crate::http::connection`]), and a
//! bounded drain on SIGTERM/SIGINT.
//!
//! Stateless with JSON responses by default (`http.stateless`,
//! `http.json_response`), so any replica serves any call.
//!
//! The drain, in order: `/readyz` answers 503, and calls are still accepted
//! for `http.drain_delay_s` (0 by default); the listener closes (new
//! connections are refused, which a balancer retries elsewhere at no risk);
//! connections waiting for a request, or with one half-sent, are closed;
//! calls in flight get `http.drain_timeout_s` to finish, their answers
//! carrying `Connection: close`; then every connection left is closed.

pub(crate) mod auth;
pub(crate) mod cancel_notice;
pub(crate) mod connection;
pub(crate) mod guard;
pub(crate) mod mcp_layer;
pub(crate) mod metrics;
pub(crate) mod oauth;
pub(crate) mod panic;
pub mod readiness;
pub(crate) mod routing_headers;
pub(crate) mod tool_headers;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use herald_core::config::HttpSettings;
use herald_core::config::SettingKey;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;
use crate::http::auth::{OAuthGate, require_token};
use crate::http::connection::accept::accept_until;
use crate::http::connection::peer::PeerRules;
use crate::http::connection::state::ConnectionLimits;
use crate::http::connection::table::{ConnectionTable, MAX_REFUSALS_IN_FLIGHT};
use crate::http::guard::{GuardPolicy, GuardState, JsonBudget, LargeBodyLane};
use crate::http::mcp_layer::{McpLayer, mcp_layer};
use crate::http::metrics::{METRICS_PATH, MetricsEndpoint};
use crate::http::oauth::metadata::WELL_KNOWN;
use crate::http::readiness::{Readiness, readyz};
use crate::mcp::handler::{HeraldServer, SERVER_NAME};
use crate::shutdown::Shutdown;

pub use crate::http::connection::heap_trim::HeapTrims;

/// The Axum app: `path` (default `/mcp`), `/healthz` and `/readyz`, and
/// `metrics` at `/metrics` when given; the guard trims the heap through
/// `trims` after large bodies.
pub fn router(
    server: HeraldServer,
    http: &HttpSettings,
    cancel: CancellationToken,
    readiness: Readiness,
    metrics: Option<Arc<MetricsEndpoint>>,
    trims: Arc<HeapTrims>,
) -> Result<Router, ServerError> {
    let policy = Arc::new(
        GuardPolicy::new(
            &http.allowed_hosts,
            &http.allowed_origins,
            http.max_body_bytes,
        )
        .map_err(ServerError::Settings)?,
    );
    let oauth = OAuthGate::from_settings(server.toolbox().settings(), policy.clone())
        .map_err(ServerError::Settings)?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!http.stateless)
        .with_json_response(http.json_response)
        .with_max_request_body_bytes(http.max_body_bytes)
        // The guard checks Host and Origin first (with JSON-RPC bodies).
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_cancellation_token(cancel);
    let toolbox = Arc::new(server.toolbox().clone());
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
    if ["/healthz", "/readyz", "/", METRICS_PATH].contains(&path.as_str())
        || path.starts_with(WELL_KNOWN)
    {
        return Err(ServerError::Settings(format!(
            "{}: {path:?} is reserved; use a path such as /mcp",
            SettingKey::HttpPath
        )));
    }
    // Layers run from the last added: the OAuth gate (before any body is
    // read), then one layer for the guard, cancellations (stateless: rmcp
    // drops notification POSTs there) and the tool sets.
    let layer = McpLayer {
        guard: GuardState {
            policy: policy.clone(),
            trims: trims.clone(),
            budget: Arc::new(JsonBudget::default()),
            lane: Arc::new(LargeBodyLane::start(trims.clone()).map_err(|e| {
                ServerError::Transport(format!("cannot start the large-body lane: {e}"))
            })?),
        },
        calls: http
            .stateless
            .then(|| Arc::new(cancel_notice::CallsInFlight::default())),
        toolbox: http.tool_headers.then_some(toolbox),
    };
    let mut mcp = Router::new()
        .route_service(&path, service)
        .layer(from_fn_with_state(Arc::new(layer), mcp_layer));
    if let Some(gate) = &oauth {
        mcp = mcp.layer(from_fn_with_state(gate.clone(), require_token));
    }
    let probes = Router::new()
        .route("/healthz", get(healthz))
        .route(
            "/readyz",
            get(readyz).layer(from_fn_with_state(policy, readiness::host_rules)),
        )
        .with_state(readiness);
    let mut app = probes.merge(mcp);
    if let Some(gate) = oauth {
        app = app.merge(gate.metadata_router());
    }
    if let Some(metrics) = metrics {
        app = app.merge(metrics.router());
    }
    #[cfg(debug_assertions)]
    if panic::test_hook_enabled() {
        app = app.layer(axum::middleware::from_fn(panic::panic_on_purpose));
    }
    Ok(app.layer(axum::middleware::from_fn(panic::answer_panics)))
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
    let listener = listen(http.host.trim_matches(['[', ']']), http.port)
        .await
        .map_err(|source| ServerError::Bind {
            addr: addr_text,
            source,
        })?;
    let addr = listener.local_addr()?;
    Ok(Bound { listener, addr })
}

/// The accept queue's length (the kernel caps it at `net.core.somaxconn`).
/// Slow clients evicted at `http.max_connections` reconnect in bursts; with
/// tokio's default (1,024) the queue overflowed under such a burst, the
/// kernel dropped the new connections' handshakes, and a normal client's
/// retransmitted SYN came a second later.
const ACCEPT_BACKLOG: u32 = 4096;

/// A listener on the first address `host:port` resolves to that binds.
async fn listen(host: &str, port: u16) -> std::io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host((host, port)).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()
        } else {
            tokio::net::TcpSocket::new_v6()
        }?;
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket
            .bind(addr)
            .and_then(|()| socket.listen(ACCEPT_BACKLOG))
        {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the host resolves to no address",
        )
    }))
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

/// Serves until `shutdown` fires, then drains (see the module
/// documentation); ready at once.
pub async fn serve(
    bound: Bound,
    server: HeraldServer,
    http: &HttpSettings,
    shutdown: Shutdown,
) -> Result<(), ServerError> {
    let readiness = Readiness::new(shutdown.clone(), server.toolbox().keeper().clone());
    readiness.mark_started();
    let trims = Arc::new(HeapTrims::default());
    serve_with(bound, server, http, shutdown, readiness, trims).await
}

/// [`serve`] with a readiness the caller marks started, trimming the heap
/// after a surge of connections through `trims` (the runtime's, whose
/// workers collect their heaps as they park).
pub async fn serve_with(
    bound: Bound,
    server: HeraldServer,
    http: &HttpSettings,
    shutdown: Shutdown,
    readiness: Readiness,
    trims: Arc<HeapTrims>,
) -> Result<(), ServerError> {
    prepare(bound, server, http, &shutdown, readiness, trims)
        .await?
        .serve(http, shutdown)
        .await
}

/// A listener with everything it serves built: the router (whose settings,
/// `http.path`, `http.allowed_hosts`, `http.allowed_origins` and the OAuth
/// ones, are checked as it is built) and `metrics.port` bound and served.
/// What can fail at start-up has failed once this exists, so Herald says it
/// is ready only after [`prepare`] (never a READY line, then exit 2).
pub(crate) struct Prepared {
    bound: Bound,
    app: Router,
    table: Arc<ConnectionTable>,
    limits: ConnectionLimits,
    rules: PeerRules,
    cancel: CancellationToken,
    trims: Arc<HeapTrims>,
}

/// Builds what `bound` serves ([`Prepared`]); the metrics port, when it has
/// one of its own, serves until `shutdown`.
pub(crate) async fn prepare(
    bound: Bound,
    server: HeraldServer,
    http: &HttpSettings,
    shutdown: &Shutdown,
    readiness: Readiness,
    trims: Arc<HeapTrims>,
) -> Result<Prepared, ServerError> {
    let cancel = CancellationToken::new();
    let table = Arc::new(ConnectionTable::default());
    // Below the open-file limit (raised to the hard one first): EMFILE would
    // stall every client before the limit evicts a slow one.
    let settings = &server.toolbox().settings().metrics;
    // A metrics port of its own holds descriptors too.
    let metrics_share = if settings.enabled && settings.port.is_some() {
        crate::http::metrics::MAX_CONNECTIONS + MAX_REFUSALS_IN_FLIGHT
    } else {
        0
    };
    let max_connections = crate::http::connection::fd_limit::connection_limit(
        http.max_connections,
        MAX_REFUSALS_IN_FLIGHT + metrics_share,
    );
    let endpoint = match settings.enabled {
        true => Some(MetricsEndpoint::new(server.toolbox(), Some(table.clone()))?),
        false => None,
    };
    let limits = ConnectionLimits::of(http);
    // On a port of its own (bound now, served once the router is built), or
    // on this listener.
    let (on_this_listener, own_port) = match (endpoint, crate::http::metrics::bind(settings).await?)
    {
        (Some(endpoint), Some(listener)) => (None, Some((listener, endpoint))),
        (endpoint, _) => (endpoint, None),
    };
    let app = router(
        server,
        http,
        cancel.clone(),
        readiness,
        on_this_listener,
        trims.clone(),
    )?;
    if let Some((listener, endpoint)) = own_port {
        tokio::spawn(crate::http::metrics::serve(
            listener,
            endpoint,
            limits,
            shutdown.clone(),
        ));
    }
    Ok(Prepared {
        bound,
        app,
        table,
        limits,
        rules: PeerRules::of(http, max_connections),
        cancel,
        trims,
    })
}

impl Prepared {
    /// Serves until `shutdown` fires, then drains (see the module
    /// documentation).
    pub(crate) async fn serve(
        self,
        http: &HttpSettings,
        shutdown: Shutdown,
    ) -> Result<(), ServerError> {
        let Self {
            bound,
            app,
            table,
            limits,
            rules,
            cancel,
            trims,
        } = self;
        // The connections' drain starts once the listener is closed.
        let drain = Shutdown::new();
        tokio::spawn(connection::heap_trim::watch(
            table.clone(),
            trims,
            rules.max,
            drain.clone(),
        ));
        let closing = async {
            shutdown.wait().await;
            if http.drain_delay_s > 0 {
                tracing::info!(
                    drain_delay_s = http.drain_delay_s,
                    "shutdown requested: /readyz answers 503; still accepting calls"
                );
                tokio::time::sleep(Duration::from_secs(http.drain_delay_s)).await;
            }
        };
        accept_until(
            bound.listener,
            closing,
            &app,
            &table,
            limits,
            &rules,
            &drain,
        )
        .await;
        drain.trigger();
        let open = table.len();
        tracing::info!(
            open,
            drain_timeout_s = http.drain_timeout_s,
            "shutting down: listener closed, finishing in-flight calls"
        );
        // Each connection ends itself by the drain deadline; the margin covers
        // the last answers being written.
        let deadline = Instant::now() + limits.drain + Duration::from_secs(1);
        if tokio::time::timeout_at(deadline.into(), table.wait_empty())
            .await
            .is_err()
        {
            tracing::warn!(
                open = table.len(),
                "drain time over: closing the connections left"
            );
        }
        cancel.cancel();
        Ok(())
    }
}
