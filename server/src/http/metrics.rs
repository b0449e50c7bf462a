//! `GET /metrics`: Herald's metrics in the Prometheus text format
//! (prometheus-client), on the Streamable HTTP listener, or on a listener of
//! its own when `metrics.port` is set (the only way over stdio).
//!
//! The calls and Keeper requests are counted where they happen
//! (`herald_core::telemetry::metrics`); this module adds what is read at
//! scrape time: the open HTTP connections, the KB catalog, the build, the
//! log lines dropped (`crate::logging`). Every
//! name is prefixed `herald_`; docs/operations.md lists them.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use herald_core::config::MetricsSettings;
use herald_core::kb::KbCatalog;
use herald_core::tools::Toolbox;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::prometheus_text::{CONTENT_TYPE, encode};
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use crate::error::ServerError;
use crate::http::conn::ConnectionTable;
use crate::shutdown::Shutdown;

/// The path metrics are served on.
pub const METRICS_PATH: &str = "/metrics";

/// The metrics of one Herald, ready to encode.
#[derive(Debug)]
pub struct MetricsEndpoint {
    registry: Registry,
}

impl MetricsEndpoint {
    /// The toolbox's call and Keeper metrics, its KB catalog, and the open
    /// connections of `connections` (the Streamable HTTP listener's, when
    /// there is one).
    pub fn new(toolbox: &Toolbox, connections: Option<Arc<ConnectionTable>>) -> Arc<Self> {
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
        Arc::new(Self { registry })
    }

    /// The metrics in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut text = String::with_capacity(4096);
        if let Err(e) = encode(&mut text, &self.registry) {
            tracing::warn!("cannot encode the metrics: {e}");
        }
        text
    }

    /// The router serving `GET /metrics`.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route(METRICS_PATH, get(metrics))
            .with_state(self.clone())
    }
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
pub async fn bind(
    settings: &MetricsSettings,
) -> Result<Option<tokio::net::TcpListener>, ServerError> {
    let Some(port) = settings.port else {
        return Ok(None);
    };
    let host = settings.host.trim_matches(['[', ']']);
    let listener = tokio::net::TcpListener::bind((host, port))
        .await
        .map_err(|source| ServerError::Bind {
            addr: format!("{}:{port} (metrics.host, metrics.port)", settings.host),
            source,
        })?;
    Ok(Some(listener))
}

/// Serves `GET /metrics` on `listener` until `shutdown` fires.
pub async fn serve(
    listener: tokio::net::TcpListener,
    endpoint: Arc<MetricsEndpoint>,
    shutdown: Shutdown,
) {
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    if let Some(addr) = addr {
        tracing::info!("metrics on http://{addr}{METRICS_PATH}");
    }
    let served = axum::serve(listener, endpoint.router())
        .with_graceful_shutdown(async move { shutdown.wait().await })
        .await;
    if let Err(e) = served {
        tracing::warn!("the metrics listener stopped: {e}");
    }
}
