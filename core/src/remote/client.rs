//! The MCP client of one remote server: its HTTP client (redirects, timeouts,
//! no proxy), a session on rmcp's Streamable HTTP transport, and how its
//! errors are told (transient or not, scrubbed of the token and of the URL's
//! query).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::SseRetryPolicy;
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use super::bounded_http::BoundedHttpClient;
use crate::config::{McpServerSettings, Secret};

/// Most redirects followed for one request.
const MAX_REDIRECTS: usize = 5;

/// Longest TCP/TLS connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest error text kept (after scrubbing).
const MAX_ERROR_CHARS: usize = 400;

/// The client side of a session: Herald's name and version, no capabilities
/// (no sampling, roots or elicitation for remote servers).
#[derive(Debug, Clone)]
pub(crate) struct RemoteClient {
    info: ClientConfig,
}

impl RemoteClient {
    fn new() -> Self {
        let implementation = Implementation::new("lorebase-herald", env!("CARGO_PKG_VERSION"))
            .with_title("Lorebase Herald");
        Self {
            info: ClientConfig::new(ClientCapabilities::default(), implementation),
        }
    }
}

impl ClientHandler for RemoteClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// A broken response stream is not resumed: the call fails instead.
#[derive(Debug)]
struct NoStreamResume;

impl SseRetryPolicy for NoStreamResume {
    fn retry(&self, _attempts: usize) -> Option<Duration> {
        None
    }
}

/// A live session with one remote server.
pub(crate) type Session = RunningService<RoleClient, RemoteClient>;

/// The HTTP client of one remote server. Redirects: only 307 and 308 (they
/// keep the POST body), at most [`MAX_REDIRECTS`], never from https to http;
/// on a redirect to another host, scheme or port reqwest drops the
/// `Authorization` header, so the token never follows. Proxies from the
/// environment are ignored, as for Keeper by default.
/// TLS roots as for Keeper ([`crate::keeper::roots`]): the system's, or the
/// bundled ones where the system has none.
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    let make = || {
        reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // As rmcp's own client: no idle pooling (avoids delayed-ACK stalls).
            .pool_max_idle_per_host(0)
            .redirect(redirect_policy())
            .no_proxy()
            .user_agent(concat!("lorebase-herald/", env!("CARGO_PKG_VERSION")))
    };
    crate::keeper::roots::build_client(make, &[])
}

fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let downgrade = attempt.url().scheme() == "http"
            && attempt.previous().iter().any(|u| u.scheme() == "https");
        if !keeps_body || downgrade {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

/// Opens a session with Herald's own token (`token_env`, when set):
/// discovery, and the calls of a server with `credential: herald`.
pub(crate) async fn connect(
    settings: &McpServerSettings,
    http: &BoundedHttpClient,
) -> Result<Session, Failure> {
    connect_as(settings, http, settings.token.as_ref()).await
}

/// Opens a session whose every request carries `token` (none: no
/// `Authorization`): `initialize`, then `notifications/initialized`. The
/// transport neither re-initializes an expired session nor reconnects a
/// broken stream on its own: nothing is ever sent twice.
pub(crate) async fn connect_as(
    settings: &McpServerSettings,
    http: &BoundedHttpClient,
    token: Option<&Secret>,
) -> Result<Session, Failure> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(settings.url.clone())
        .reinit_on_expired_session(false);
    config.retry_config = Arc::new(NoStreamResume);
    if let Some(token) = token {
        config = config.auth_header(token.expose());
    }
    let transport = StreamableHttpClientTransport::with_client(http.clone(), config);
    RemoteClient::new()
        .serve(transport)
        .await
        .map_err(|e| Failure::from_error(&e, settings))
}

/// A failure talking to a remote server, scrubbed and classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// What went wrong: no token, no URL query, no control characters, bounded.
    pub reason: String,
    /// Worth another try at discovery (connection refused or reset, timeout,
    /// HTTP 429, 502, 503, 504).
    pub transient: bool,
}

impl Failure {
    /// From any error of rmcp or reqwest.
    pub(crate) fn from_error(
        error: &(dyn std::error::Error + 'static),
        settings: &McpServerSettings,
    ) -> Self {
        let mut text = error.to_string();
        let mut transient = false;
        let mut source = Some(error);
        while let Some(e) = source {
            transient |= is_transient(e);
            let shown = e.to_string();
            if !text.contains(&shown) {
                text.push_str(": ");
                text.push_str(&shown);
            }
            source = e.source();
        }
        // Some transports keep their cause out of `source()`: read the text too.
        transient |= [
            "Connection refused",
            "connection closed",
            "error sending request",
        ]
        .iter()
        .any(|needle| text.contains(needle))
            || ["HTTP 429", "HTTP 502", "HTTP 503", "HTTP 504"]
                .iter()
                .any(|needle| text.contains(needle));
        Self {
            reason: scrub(&without_type_names(&text), settings),
            transient,
        }
    }

    /// A failure described by Herald itself.
    pub(crate) fn new(reason: impl Into<String>, transient: bool) -> Self {
        Self {
            reason: reason.into(),
            transient,
        }
    }
}

/// Drops rmcp's `Transport [<Rust type name>] error: ` prefixes (noise to
/// an operator).
fn without_type_names(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(start) = out.find("Transport [") {
        let Some(end) = out[start..].find("] error: ") else {
            break;
        };
        out.replace_range(start..start + end + "] error: ".len(), "");
    }
    out
}

fn is_transient(e: &(dyn std::error::Error + 'static)) -> bool {
    if let Some(r) = e.downcast_ref::<reqwest::Error>() {
        return r.is_connect() || r.is_timeout();
    }
    if let Some(status) = e.downcast_ref::<HttpStatusError>() {
        return matches!(status.status, 429 | 502 | 503 | 504);
    }
    if let Some(http) = e.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        return match http {
            StreamableHttpError::HttpStatus(s) => matches!(s.status, 429 | 502 | 503 | 504),
            StreamableHttpError::Client(r) => r.is_connect() || r.is_timeout(),
            StreamableHttpError::Io(_) | StreamableHttpError::UnexpectedEndOfStream => true,
            _ => false,
        };
    }
    false
}

/// An error text fit for logs and tool errors: the token (if it appears at
/// all) replaced by `***`, the configured URL shown without its query,
/// control characters dropped, at most [`MAX_ERROR_CHARS`] characters.
pub(crate) fn scrub(text: &str, settings: &McpServerSettings) -> String {
    let mut out = text.to_string();
    if let Some(token) = &settings.token
        && !token.expose().is_empty()
    {
        out = out.replace(token.expose(), "***");
    }
    if let Ok(url) = url::Url::parse(&settings.url)
        && url.query().is_some()
    {
        out = out.replace(&settings.url, &display_url(&settings.url));
        out = out.replace(url.as_str(), &display_url(&settings.url));
        if let Some(query) = url.query() {
            out = out.replace(query, "...");
        }
    }
    let cleaned: String = out
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut bounded: String = cleaned.chars().take(MAX_ERROR_CHARS).collect();
    if bounded.len() < cleaned.len() {
        bounded.push('…');
    }
    bounded
}

/// The URL as logged and shown: scheme, host, port and path (a query may
/// carry credentials).
pub(crate) fn display_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => "<invalid url>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str, token: Option<&str>) -> McpServerSettings {
        McpServerSettings {
            name: "s".into(),
            url: url.into(),
            token_env: token.map(|_| "T".into()),
            token: token.map(Secret::new),
            tools: None,
            grant: Default::default(),
        }
    }

    #[test]
    fn scrub_hides_token_and_query_and_bounds_the_text() {
        let s = settings("http://127.0.0.1:9/mcp?key=abcdef", Some("tok-123456"));
        let text = "failed for http://127.0.0.1:9/mcp?key=abcdef with tok-123456\nand more";
        let out = scrub(text, &s);
        assert!(
            !out.contains("tok-123456") && !out.contains("abcdef"),
            "{out}"
        );
        assert!(out.contains("http://127.0.0.1:9/mcp"), "{out}");
        assert!(!out.contains('\n'));
        let long = scrub(&"x".repeat(5000), &s);
        assert!(long.chars().count() <= MAX_ERROR_CHARS + 1);
    }

    #[test]
    fn type_names_are_dropped() {
        assert_eq!(
            without_type_names("Send message error Transport [a::B<c::D>] error: HTTP 500, when x"),
            "Send message error HTTP 500, when x"
        );
    }

    #[test]
    fn display_url_drops_the_query() {
        assert_eq!(
            display_url("https://h.example/mcp?token=1#f"),
            "https://h.example/mcp"
        );
    }
}
