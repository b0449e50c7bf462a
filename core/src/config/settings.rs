//! The settings' types: [`Settings`] and its sections, as [`Settings::load`]
//! resolves them (the defaults are in `defaults.rs`, the keys in `keys.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::mcp::McpSettings;
use super::operations::{LogSettings, MetricsSettings, TracesSettings};
use super::secret::Secret;

/// How Herald talks to its MCP host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// One Herald per agent, started by the host.
    Stdio,
    /// One shared Herald; each caller sends its own key.
    StreamableHttp,
}

/// With OAuth on (`http.authorization_servers`), the token a call sends to
/// Keeper: never the client's own token unless the operator says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeeperToken {
    /// RFC 8693 token exchange at the authorization server, for a token
    /// whose audience is `keeper.base_url`.
    Exchange,
    /// The client's token, unchanged: Keeper accepts tokens issued for
    /// Herald's audience (the operator's explicit statement).
    Forward,
}

/// All of Herald's settings, resolved (secrets included). Their defaults are
/// written once, in the settings table (`keys.rs`, shown by
/// `config/lorebase.example.yaml`): see [`Settings::default`].
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// How to reach Keeper.
    pub keeper: KeeperSettings,
    /// The Domain used when a call names none.
    pub domain: Option<String>,
    /// The branch used when a call names none (none: the Domain's default branch).
    pub branch: Option<String>,
    /// stdio or Streamable HTTP.
    pub transport: Transport,
    /// The Streamable HTTP listener.
    pub http: HttpSettings,
    /// Output caps.
    pub output: OutputSettings,
    /// `lorebase_changes` paging bound.
    pub changes: ChangesSettings,
    /// The knowledge-base catalog.
    pub kb: KbSettings,
    /// Which tools are served.
    pub tools: ToolSelection,
    /// Remote MCP servers whose tools join the toolbox.
    pub mcp: McpSettings,
    /// The log format and the audit line.
    pub log: LogSettings,
    /// The MCP Apps views.
    pub ui: UiSettings,
    /// Prometheus metrics.
    pub metrics: MetricsSettings,
    /// Span export over OTLP.
    pub traces: TracesSettings,
}

/// How to reach Keeper.
#[derive(Debug, Clone, PartialEq)]
pub struct KeeperSettings {
    /// Keeper's origin.
    pub base_url: String,
    /// The key every stdio call carries.
    pub api_key: Option<Secret>,
    /// Resends after 429, 503 or an unreachable Keeper (0 = off).
    pub max_retries: u32,
    /// Longest pause before a retry in seconds.
    pub retry_max_wait_s: u64,
    /// Honour `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY`.
    pub trust_env: bool,
    /// Verify Keeper's TLS certificate.
    pub verify_tls: bool,
    /// A PEM file of private CA certificates trusted besides the system's
    /// roots (where the system has none, instead of the bundled Mozilla
    /// roots: [`crate::keeper::roots`]).
    pub ca_file: Option<PathBuf>,
    /// Timeout of one request in seconds.
    pub timeout_s: u64,
    /// Largest response body accepted, in bytes.
    pub max_response_bytes: u64,
    /// The proxy variables, captured from the environment by
    /// [`Settings::load`] only when `trust_env` is on (empty otherwise).
    pub env_proxy: EnvProxy,
}

/// The proxy variables of the environment (`HTTP_PROXY`, `HTTPS_PROXY`,
/// `ALL_PROXY`, `NO_PROXY`, upper or lower case). Proxy URLs may carry
/// credentials, so they are [`Secret`]s.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EnvProxy {
    /// Proxy for `http://` Keeper URLs.
    pub http: Option<Secret>,
    /// Proxy for `https://` Keeper URLs.
    pub https: Option<Secret>,
    /// Proxy for both.
    pub all: Option<Secret>,
    /// Hosts reached directly (comma-separated, as in `NO_PROXY`).
    pub no_proxy: Option<String>,
}

impl EnvProxy {
    /// Reads the proxy variables of `env` (upper case first, then lower case).
    pub fn from_env(env: &BTreeMap<String, String>) -> Self {
        let get = |name: &str| {
            env.get(name)
                .or_else(|| env.get(&name.to_ascii_lowercase()))
                .filter(|v| !v.trim().is_empty())
                .cloned()
        };
        Self {
            http: get("HTTP_PROXY").map(Secret::new),
            https: get("HTTPS_PROXY").map(Secret::new),
            all: get("ALL_PROXY").map(Secret::new),
            no_proxy: get("NO_PROXY"),
        }
    }

    /// Whether no proxy is set.
    pub fn is_empty(&self) -> bool {
        self.http.is_none() && self.https.is_none() && self.all.is_none()
    }
}

/// The Streamable HTTP listener.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSettings {
    /// The address the listener binds.
    pub host: String,
    /// The port (0 picks a free one).
    pub port: u16,
    /// The path of the MCP endpoint.
    pub path: String,
    /// Host values accepted besides `127.0.0.1`, `localhost` and `[::1]`.
    pub allowed_hosts: Vec<String>,
    /// Origins accepted besides `http://127.0.0.1` and `http://localhost`.
    pub allowed_origins: Vec<String>,
    /// No sessions: any replica serves any call.
    pub stateless: bool,
    /// JSON responses instead of SSE streams.
    pub json_response: bool,
    /// Let header-less calls through to Keeper without a credential.
    pub allow_anonymous: bool,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Most connections open at once. At the limit, a new
    /// connection closes the oldest one that has not delivered a whole request.
    pub max_connections: usize,
    /// Most connections one client address may hold
    /// (`http.max_connections_per_peer`; 0, the default: no limit of its own
    /// below `max_connections`, see [`Self::peer_connection_limit`]).
    pub max_connections_per_peer: usize,
    /// Proxies whose forwarded client address (`X-Forwarded-For`,
    /// `Forwarded`) is believed (`http.trusted_proxies`, default none).
    pub trusted_proxies: Vec<crate::config::IpRange>,
    /// Seconds a request's head may take to arrive (from the connection
    /// opening, or from the first byte of a later request).
    pub header_timeout_s: u64,
    /// Seconds a request's body may take to arrive after its head.
    pub body_timeout_s: u64,
    /// Seconds a kept-alive connection may wait for its next request
    /// (longer than a balancer's own upstream keep-alive, so it closes first).
    pub idle_timeout_s: u64,
    /// Seconds an answer may wait, in all, for the client to read it
    /// (`http.send_timeout_s`, default 30).
    pub send_timeout_s: u64,
    /// Seconds Herald goes on accepting calls after SIGTERM/SIGINT while
    /// `/readyz` answers 503, so balancers stop routing to it first.
    pub drain_delay_s: u64,
    /// Seconds in-flight calls get to finish once the listener is closed;
    /// then every connection is closed and Herald exits.
    pub drain_timeout_s: u64,
    /// The authorization servers that issue Lorebase credentials (RFC 9728).
    /// When set, a request without `Authorization` gets HTTP 401 with
    /// `WWW-Authenticate: Bearer resource_metadata=...`, and the protected
    /// resource metadata is served; empty: a call without a
    /// credential is an `[unauthorized]` tool error.
    pub authorization_servers: Vec<String>,
    /// The resource identifier (`https://herald.example/mcp`): the metadata's
    /// `resource` and the audience a token must carry. Required with
    /// `authorization_servers` (a settings error at start otherwise).
    pub resource_url: Option<String>,
    /// Scopes every token must hold (empty, the default: none); a token
    /// without one is answered 403 `insufficient_scope`.
    pub required_scopes: Vec<String>,
    /// The RFC 7662 introspection endpoint for tokens that are not JWTs;
    /// none (the default): only JWTs are accepted.
    pub introspection_endpoint: Option<String>,
    /// Most introspections in flight at once
    /// (`http.introspection_max_in_flight`, default 8).
    pub introspection_max_in_flight: usize,
    /// Introspections a second, sustained (`http.introspection_per_second`,
    /// default 10).
    pub introspection_per_second: u32,
    /// Introspections allowed at once after a quiet spell
    /// (`http.introspection_burst`, default 20).
    pub introspection_burst: u32,
    /// Most token exchanges in flight at once
    /// (`http.exchange_max_in_flight`, default 16).
    pub exchange_max_in_flight: usize,
    /// Token exchanges a second, sustained (`http.exchange_per_second`,
    /// default 20).
    pub exchange_per_second: u32,
    /// Token exchanges allowed at once after a quiet spell
    /// (`http.exchange_burst`, default 40).
    pub exchange_burst: u32,
    /// Herald's client id at the authorization server (introspection and
    /// token exchange authenticate with it).
    pub oauth_client_id: Option<String>,
    /// That client's secret (a literal, `secret://env/NAME` or
    /// `secret://file/PATH`); never logged.
    pub oauth_client_secret: Option<Secret>,
    /// How a call with a validated token reaches Keeper. Default exchange.
    pub keeper_token: KeeperToken,
    /// Honour the `X-MCP-Readonly`, `X-MCP-Toolsets` and `X-MCP-Tools`
    /// request headers, which narrow the tools of one request.
    pub tool_headers: bool,
}

impl HttpSettings {
    /// The connections one client address may hold out of `max_connections`
    /// (itself capped below the open-file limit by the server):
    /// `max_connections_per_peer`, or when 0 all of them (the fair share at
    /// the limit still applies); never more than `max_connections`.
    pub fn peer_connection_limit(&self, max_connections: usize) -> usize {
        let wanted = match self.max_connections_per_peer {
            0 => max_connections,
            n => n,
        };
        wanted.clamp(1, max_connections.max(1))
    }
}

/// The shortest `output.max_chars` the settings accept: room for the cut
/// marker and a whole footer (a query's `rows`, a 200-character
/// `next_cursor` and a `coverage` line), and for a JSON answer's
/// identifiers and `cuts` (`render::text`).
pub const MIN_MAX_CHARS: usize = 500;

/// The MCP Apps views (extension `io.modelcontextprotocol/ui`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiSettings {
    /// Offer the views to the clients that declare the extension.
    pub enabled: bool,
}

/// Output caps (docs/tools.md, "Output caps").
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSettings {
    /// Longest tool output in characters.
    pub max_chars: usize,
    /// Longest list, in items.
    pub max_items: usize,
    /// Longest single value in characters.
    pub max_value_chars: usize,
    /// Declare each tool's output schema. Off, a `text`
    /// answer is its text block alone and a `json` answer is the JSON as the
    /// text block and as `structuredContent`: hosts that show the
    /// model only `structuredContent` when a result has it (Claude Code,
    /// Codex, opencode) then show the compact text. On, for hosts that want
    /// output schemas: MCP then requires `structuredContent` with every
    /// success, so a `text` answer also carries the JSON shape as
    /// `structuredContent`, its text block staying the compact text.
    pub schemas: bool,
}

/// `lorebase_changes` paging bound.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangesSettings {
    /// Most branch-log pages read back to `since`.
    pub max_pages: u32,
}

/// The knowledge-base catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct KbSettings {
    /// The catalog directory; none means no KB tools.
    pub dir: Option<PathBuf>,
    /// Seconds a KB tool called while the catalog is first indexed (in the
    /// background, from startup) waits for the index before it answers a
    /// tool error saying to retry.
    pub index_wait_s: u64,
}

/// Which tools are served (beyond the seed: read-only mode, allow and deny
/// lists), and how hosts are asked to present them.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSelection {
    /// Drop `lorebase_execute`.
    pub read_only: bool,
    /// Serve only these tools (exact names), when set.
    pub allow: Option<Vec<String>>,
    /// Never serve these tools.
    pub deny: Vec<String>,
    /// Mark `lorebase_context` for hosts that defer MCP tools behind a
    /// search to keep it loaded (`_meta["anthropic/alwaysLoad"]`).
    pub always_load_context: bool,
}
