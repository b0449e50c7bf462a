//! Settings: the `herald` section of the Lorebase settings, layered as herald.md
//! says (the YAML file named by `LOREBASE_CONFIG`, then `LOREBASE__HERALD__...`
//! variables, then the short variables `LOREBASE_URL`, `LOREBASE_API_KEY`,
//! `LOREBASE_DOMAIN`, `LOREBASE_BRANCH`, then flags or binding options).
//!
//! Every key and its default is in `config/lorebase.example.yaml`.
//!
//! (Issue 3 fills in the loading and validation; the shapes below are the API
//! the other modules build on.)

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A secret value (an API key, a token). `Debug` and `Display` print `***`;
/// the value is only reachable through [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a resolved secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// How Herald talks to its MCP host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// One Herald per agent, started by the host.
    #[default]
    Stdio,
    /// One shared Herald; each caller sends its own key.
    StreamableHttp,
}

/// All of Herald's settings, resolved (secrets included).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// How to reach Keeper.
    pub keeper: KeeperSettings,
    /// The Domain used when a call names none.
    pub domain: Option<String>,
    /// The branch used when a call names none (default: the Domain's default branch).
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
}

/// How to reach Keeper.
#[derive(Debug, Clone, PartialEq)]
pub struct KeeperSettings {
    /// Keeper origin, default `http://127.0.0.1:8080`.
    pub base_url: String,
    /// The key every stdio call carries.
    pub api_key: Option<Secret>,
    /// Resends after 429, 503 or an unreachable Keeper (0 = off), default 2.
    pub max_retries: u32,
    /// Longest pause before a retry in seconds, default 5.
    pub retry_max_wait_s: u64,
    /// Honour `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY`, default false.
    pub trust_env: bool,
    /// Verify Keeper's TLS certificate, default true.
    pub verify_tls: bool,
    /// Timeout of one request in seconds, default 30.
    pub timeout_s: u64,
    /// Largest response body accepted, default 16 MiB.
    pub max_response_bytes: u64,
}

/// The Streamable HTTP listener.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSettings {
    /// Default `127.0.0.1`.
    pub host: String,
    /// Default 8090.
    pub port: u16,
    /// Default `/mcp`.
    pub path: String,
    /// Host values accepted besides `127.0.0.1`, `localhost` and `[::1]`.
    pub allowed_hosts: Vec<String>,
    /// Origins accepted besides `http://127.0.0.1` and `http://localhost`.
    pub allowed_origins: Vec<String>,
    /// No sessions: any replica serves any call. Default true.
    pub stateless: bool,
    /// JSON responses instead of SSE streams. Default true.
    pub json_response: bool,
    /// Let header-less calls through to Keeper without a credential. Default false.
    pub allow_anonymous: bool,
    /// Largest request body accepted, default 1 MiB.
    pub max_body_bytes: usize,
}

/// Output caps (herald.md, Output size).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSettings {
    /// Longest tool output in characters, default 12000.
    pub max_chars: usize,
    /// Longest list, default 50.
    pub max_items: usize,
    /// Longest single value in characters, default 500.
    pub max_value_chars: usize,
}

/// `lorebase_changes` paging bound.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangesSettings {
    /// Most branch-log pages read back to `since`, default 10.
    pub max_pages: u32,
}

/// The knowledge-base catalog.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KbSettings {
    /// The catalog directory; none means no KB tools.
    pub dir: Option<PathBuf>,
}

/// Which tools are served (beyond the seed: read-only mode, allow and deny lists).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolSelection {
    /// Drop `lorebase_execute`.
    pub read_only: bool,
    /// Serve only these tools (exact names), when set.
    pub allow: Option<Vec<String>>,
    /// Never serve these tools.
    pub deny: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            keeper: KeeperSettings {
                base_url: "http://127.0.0.1:8080".into(),
                api_key: None,
                max_retries: 2,
                retry_max_wait_s: 5,
                trust_env: false,
                verify_tls: true,
                timeout_s: 30,
                max_response_bytes: 16 * 1024 * 1024,
            },
            domain: None,
            branch: None,
            transport: Transport::Stdio,
            http: HttpSettings {
                host: "127.0.0.1".into(),
                port: 8090,
                path: "/mcp".into(),
                allowed_hosts: Vec::new(),
                allowed_origins: Vec::new(),
                stateless: true,
                json_response: true,
                allow_anonymous: false,
                max_body_bytes: 1024 * 1024,
            },
            output: OutputSettings {
                max_chars: 12_000,
                max_items: 50,
                max_value_chars: 500,
            },
            changes: ChangesSettings { max_pages: 10 },
            kb: KbSettings::default(),
            tools: ToolSelection::default(),
        }
    }
}
