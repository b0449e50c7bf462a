//! The settings an operator runs Herald with, besides serving: the log
//! format and the audit line (`log`), Prometheus metrics (`metrics`) and the
//! export of spans (`traces`). What they produce is described in
//! `docs/operations.md`.

use std::path::PathBuf;

/// How log lines are written on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

impl LogFormat {
    /// The setting's value (`text`, `json`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
        }
    }

    /// Parses a setting's value.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "text" => Some(Self::Text),
            "json" => Some(Self::Json),
            _ => None,
        }
    }
}

/// Logs and the audit trail (one info line per tool call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSettings {
    /// `text` or `json` (`--log-format`).
    pub format: LogFormat,
    /// Add the names of a call's arguments to its audit line (never their
    /// values, which may hold private data).
    pub audit_arguments: bool,
    /// A file every audit line is also appended to (never dropped, whatever
    /// the log level; bounded only by the disk), for operators who need every
    /// line even when stderr is not read. None: stderr only.
    pub audit_file: Option<PathBuf>,
}

/// Prometheus metrics (`GET /metrics`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsSettings {
    /// Serve metrics at all.
    pub enabled: bool,
    /// The address of the metrics listener when `port` is set.
    pub host: String,
    /// A listener of its own for `/metrics` (0 picks a free port, logged at
    /// start). None: `/metrics` is served on the Streamable
    /// HTTP listener, and not at all over stdio.
    pub port: Option<u16>,
    /// The bearer a scrape must send (`Authorization: Bearer ...`), from a
    /// secret reference (`metrics.bearer_token`). None (the default): no
    /// bearer asked for. Holds the reference until the settings are loaded.
    pub bearer_token: Option<super::Secret>,
}

/// Spans exported over OTLP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracesSettings {
    /// The OTLP/HTTP traces endpoint (`http://collector:4318/v1/traces`; a
    /// URL without a path gets `/v1/traces`). None: no export;
    /// Keeper requests still carry `traceparent` and `X-Request-Id`.
    pub otlp_endpoint: Option<String>,
    /// `service.name` of the exported spans.
    pub service_name: String,
}

/// The OTLP traces URL of a configured endpoint: `/v1/traces` added to a URL
/// without a path. `None` when it is not an `http://` or `https://` URL
/// without credentials.
pub fn otlp_traces_url(endpoint: &str) -> Option<String> {
    let mut url = url::Url::parse(endpoint.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https")
        || !url.has_host()
        || !url.username().is_empty()
        || url.password().is_some()
        || url.fragment().is_some()
    {
        return None;
    }
    if url.path() == "/" || url.path().is_empty() {
        url.set_path("/v1/traces");
    }
    Some(url.to_string())
}

/// Whether `text` is an absolute `http://` or `https://` URL without
/// credentials or fragment (authorization servers, the resource URL).
pub(crate) fn is_plain_http_url(text: &str) -> bool {
    url::Url::parse(text).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https")
            && u.has_host()
            && u.username().is_empty()
            && u.password().is_none()
            && u.fragment().is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn otlp_urls_get_the_traces_path_when_they_have_none() {
        assert_eq!(
            otlp_traces_url("http://127.0.0.1:4318").as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        assert_eq!(
            otlp_traces_url("https://otel.example/custom/traces").as_deref(),
            Some("https://otel.example/custom/traces")
        );
        assert_eq!(otlp_traces_url("grpc://x:4317"), None);
        assert_eq!(otlp_traces_url("http://u:p@x:4318"), None);
        assert_eq!(otlp_traces_url("not a url"), None);
    }

    #[test]
    fn formats_parse() {
        for f in [LogFormat::Text, LogFormat::Json] {
            assert_eq!(LogFormat::parse(f.as_str()), Some(f));
        }
        assert_eq!(LogFormat::parse("yaml"), None);
    }
}
