//! `GET /metrics`: Herald's metrics in the Prometheus text format
//! (prometheus-client), on the Streamable HTTP listener, or on a listener of
//! its own when `metrics.port` is set (the only way over stdio). That
//! listener goes through the same connection layer as the MCP one
//! ([`crate::http::connection::accept::accept_until`]: at most [`MAX_CONNECTIONS`], each under
//! the `http.*_timeout_s` limits). Either way, a scrape keeps to the Host
//! rules (`http.allowed_hosts`, [`GuardPolicy::check_headers`]), and sends
//! the bearer of `metrics.bearer_token` when it is set (compared in
//! constant time, never logged). On a listener of its own, a Host that is an
//! IP address is also accepted (DNS rebinding needs a name the attacker
//! controls; Prometheus scrapes a pod by its address and cannot set Host).
//!
//! On the MCP listener of a Herald others can reach (OAuth on, or
//! `http.host` not a loopback address), `/metrics` is served only with
//! `metrics.bearer_token` set: without it, scrapes there get 403 naming the
//! two ways (the bearer, or `metrics.port`, a listener of its own that
//! stays off the ingress).
//!
//! The calls and Keeper requests are counted where they happen
//! (`herald_core::telemetry::metrics`); this module adds what is read at
//! scrape time: the open HTTP connections, the KB catalog, the build, the
//! log and audit lines dropped (`crate::logging`). Every
//! name is prefixed `herald_`; docs/operations.md lists them.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use herald_core::config::SettingKey;
use herald_core::config::{MetricsSettings, Secret};
use herald_core::kb::KbCatalog;
use herald_core::tools::Toolbox;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::prometheus_text::{CONTENT_TYPE, encode};
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::error::ServerError;
use crate::http::connection::state::ConnectionLimits;
use crate::http::connection::table::ConnectionTable;
use crate::http::guard::{GuardPolicy, refusal};
use crate::shutdown::Shutdown;

/// The path metrics are served on.
pub(crate) const METRICS_PATH: &str = "/metrics";

/// Most connections open at once on a metrics listener of its own (a
/// scraper needs one or two).
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// The metrics of one Herald, ready to encode, and who may read them.
#[derive(Debug)]
pub struct MetricsEndpoint {
    registry: Registry,
    access: Arc<ScrapeAccess>,
}

/// Who may scrape: the Host rules, and the bearer when one is set.
#[derive(Debug)]
struct ScrapeAccess {
    hosts: GuardPolicy,
    bearer: Option<Secret>,
    /// Served on the MCP listener of a Herald others reach, without a
    /// bearer: every scrape is refused (why).
    refused: Option<String>,
    /// Served on `metrics.port`, a listener of its own.
    own_listener: bool,
}

/// Whether the one `Host` header is an IP address (with or without a port).
fn ip_host(headers: &HeaderMap) -> bool {
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return false;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.parse::<std::net::IpAddr>().is_ok()
}

/// Why `/metrics` on the MCP listener is refused without a bearer.
fn needs_bearer() -> String {
    format!(
        "Forbidden: /metrics on the MCP listener of a Herald with OAuth on or a non-loopback {} needs {}; or serve it on {} (a listener of its own)",
        SettingKey::HttpHost,
        SettingKey::MetricsBearerToken,
        SettingKey::MetricsPort
    )
}

/// Whether `host` (`http.host`) is a loopback address or `localhost`.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_matches(['[', ']']);
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl MetricsEndpoint {
    /// The toolbox's call and Keeper metrics, its KB catalog, and the open
    /// connections of `connections` (the Streamable HTTP listener's, when
    /// there is one).
    pub fn new(
        toolbox: &Toolbox,
        connections: Option<Arc<ConnectionTable>>,
    ) -> Result<Arc<Self>, ServerError> {
        let settings = toolbox.settings();
        let http = &settings.http;
        let hosts = GuardPolicy::new(&http.allowed_hosts, &http.allowed_origins, 0)
            .map_err(ServerError::Settings)?;
        let bearer = settings.metrics.bearer_token.clone();
        let on_mcp_listener = settings.metrics.port.is_none();
        let reached_by_others = !http.authorization_servers.is_empty() || !is_loopback(&http.host);
        let refused = (on_mcp_listener && reached_by_others && bearer.is_none()).then(|| {
            let why = needs_bearer();
            tracing::warn!("{why}; scrapes of /metrics there are refused");
            why
        });
        let access = Arc::new(ScrapeAccess {
            hosts,
            bearer,
            refused,
            own_listener: !on_mcp_listener,
        });
        let mut registry = Registry::with_prefix("herald");
        herald_core::telemetry::metrics::register(
            &mut registry,
            toolbox.call_metrics(),
            toolbox.keeper().metrics(),
        );
        registry.register_collector(Box::new(ScrapeTime {
            connections,
            kb: toolbox.kb().cloned(),
        }));
        Ok(Arc::new(Self { registry, access }))
    }

    /// The metrics in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut text = String::with_capacity(4096);
        if let Err(e) = encode(&mut text, &self.registry) {
            tracing::warn!("cannot encode the metrics: {e}");
        }
        text
    }

    /// The router serving `GET /metrics` to the scrapes [`ScrapeAccess`]
    /// lets through.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route(METRICS_PATH, get(metrics))
            .with_state(self.clone())
            .layer(from_fn_with_state(self.access.clone(), admit_scrape))
    }
}

/// The Host rules (on a listener of its own, an IP address as Host too),
/// the refusal of an exposed MCP listener, then the bearer (401 without the
/// right one).
async fn admit_scrape(
    State(access): State<Arc<ScrapeAccess>>,
    request: Request,
    next: Next,
) -> Response {
    let by_address =
        access.own_listener && request.uri().authority().is_none() && ip_host(request.headers());
    if !by_address
        && let Err(refused) = access.hosts.check_headers(request.uri(), request.headers())
    {
        return refused.into_response();
    }
    if let Some(why) = &access.refused {
        return refusal(StatusCode::FORBIDDEN, -32001, why);
    }
    if let Some(expected) = &access.bearer
        && !bearer_matches(request.headers(), expected)
    {
        tracing::warn!(
            "refused a metrics scrape without the bearer of {}",
            SettingKey::MetricsBearerToken
        );
        let mut refused = refusal(
            StatusCode::UNAUTHORIZED,
            -32001,
            &format!(
                "Unauthorized: /metrics needs the bearer of {}",
                SettingKey::MetricsBearerToken
            ),
        );
        refused.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer realm=\"metrics\""),
        );
        return refused;
    }
    next.run(request).await
}

/// Whether the request's `Authorization: Bearer` is `expected`, compared
/// in constant time (for tokens of the same length).
fn bearer_matches(headers: &HeaderMap, expected: &Secret) -> bool {
    let Some(sent) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().get(..7).map(|scheme| (scheme, v.as_bytes())))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case(b"bearer "))
        .map(|(_, v)| v[7..].trim_ascii())
    else {
        return false;
    };
    constant_time_eq(sent, expected.expose().as_bytes())
}

/// `a == b`, in a time that depends on their lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// `GET /metrics`.
async fn metrics(State(endpoint): State<Arc<MetricsEndpoint>>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, CONTENT_TYPE)],
        endpoint.render(),
    )
        .into_response()
}

/// What is read when metrics are scraped.
#[derive(Debug)]
struct ScrapeTime {
    connections: Option<Arc<ConnectionTable>>,
    kb: Option<KbCatalog>,
}

impl Collector for ScrapeTime {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let info = ConstGauge::new(1i64);
        let mut family = encoder.encode_descriptor(
            "build_info",
            "The running Herald's version",
            None,
            info.metric_type(),
        )?;
        info.encode(family.encode_family(&[("version", env!("CARGO_PKG_VERSION"))])?)?;
        let dropped = ConstCounter::new(crate::logging::lines_dropped_total());
        let help = "Log lines dropped because stderr could not take them (nobody read it)";
        put(&mut encoder, "log_lines_dropped", help, dropped)?;
        let lost = ConstCounter::new(crate::logging::audit_lines_dropped_total());
        let help = format!(
            "Audit lines {} did not take (a full disk, an I/O error)",
            SettingKey::LogAuditFile
        );
        put(&mut encoder, "audit_lines_dropped", &help, lost)?;
        if let Some(table) = &self.connections {
            let open = ConstGauge::new(table.len() as i64);
            put(
                &mut encoder,
                "http_connections_open",
                "Streamable HTTP connections open now",
                open,
            )?;
        }
        if let Some(kb) = &self.kb {
            let status = kb.status();
            let entries = ConstGauge::new(status.entries as i64);
            put(
                &mut encoder,
                "kb_entries",
                "Entries in the KB index now",
                entries,
            )?;
            let last = ConstGauge::new(status.last_reload_unix_s);
            let help = "When the KB index was last built or rescanned (Unix time)";
            put(&mut encoder, "kb_last_reload_timestamp_seconds", help, last)?;
            let failures = ConstCounter::new(status.reload_failures);
            let help = "KB re-indexes that failed (the previous index stayed in service)";
            put(&mut encoder, "kb_reload_failures", help, failures)?;
        }
        Ok(())
    }
}

/// Encodes one metric without labels.
fn put(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    metric: impl EncodeMetric,
) -> Result<(), std::fmt::Error> {
    metric.encode(encoder.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Binds the metrics listener of its own (`metrics.host:metrics.port`).
pub(crate) async fn bind(
    settings: &MetricsSettings,
) -> Result<Option<tokio::net::TcpListener>, ServerError> {
    let Some(port) = settings.port else {
        return Ok(None);
    };
    let host = settings.host.trim_matches(['[', ']']);
    let listener = tokio::net::TcpListener::bind((host, port))
        .await
        .map_err(|source| ServerError::Bind {
            addr: format!(
                "{}:{port} ({}, {})",
                settings.host,
                SettingKey::MetricsHost,
                SettingKey::MetricsPort
            ),
            source,
        })?;
    Ok(Some(listener))
}

/// Serves `GET /metrics` on `listener` until `shutdown` fires, each
/// connection under `limits`, at most [`MAX_CONNECTIONS`] at once.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    endpoint: Arc<MetricsEndpoint>,
    limits: ConnectionLimits,
    shutdown: Shutdown,
) {
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    if let Some(addr) = addr {
        tracing::info!("metrics on http://{addr}{METRICS_PATH}");
    }
    let table = Arc::new(ConnectionTable::default());
    let drain = Shutdown::new();
    let closing = async { shutdown.wait().await };
    crate::http::connection::accept::accept_until(
        listener,
        closing,
        &endpoint.router(),
        &table,
        limits,
        &crate::http::connection::peer::PeerRules::uniform(MAX_CONNECTIONS),
        &drain,
    )
    .await;
    drain.trigger();
    let _ = tokio::time::timeout(limits.drain, table.wait_empty()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_is_compared_whole() {
        let expected = Secret::new("s3cret-token");
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, value.parse().unwrap());
            bearer_matches(&headers, &expected)
        };
        assert!(with("Bearer s3cret-token"));
        assert!(with("bearer s3cret-token"));
        assert!(!with("Bearer s3cret-tokeN"));
        assert!(!with("Bearer s3cret-token-and-more"));
        assert!(!with("Bearer s3cret"));
        assert!(!with("Basic s3cret-token"));
        assert!(!with("Bearer"));
        assert!(!bearer_matches(&HeaderMap::new(), &expected));
    }

    #[test]
    fn a_host_that_is_an_address_is_told_from_a_name() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, value.parse().unwrap());
            ip_host(&headers)
        };
        assert!(with("10.1.2.3:9090") && with("10.1.2.3") && with("[fd00::1]:9090"));
        assert!(!with("evil.example:9090") && !with("evil.example") && !with("10.1.2.3.nip.io"));
        assert!(!ip_host(&HeaderMap::new()));
    }

    #[test]
    fn loopback_hosts_are_told_apart() {
        for host in ["127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"] {
            assert!(is_loopback(host), "{host}");
        }
        for host in ["0.0.0.0", "::", "10.0.0.1", "herald.example"] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
