//! Remote MCP servers whose tools join Herald's own (`mcp.servers`), on
//! rmcp's Streamable HTTP client.
//!
//! - Discovery ([`RemoteTools::discover`]) asks every server at once, each
//!   bounded by `mcp.discovery_timeout_s`, with a couple of retries on
//!   transient errors (refused connection, timeout, HTTP 429/502/503/504). A
//!   server that cannot be reached or answers badly is logged and skipped: it
//!   never blocks Herald or the other servers, and joins on a later
//!   discovery (SIGHUP or `mcp.refresh_interval_s` in the server).
//! - Each tool is served as `<server>__<tool>` with its description marked
//!   as external, cleaned and bounded ([`discovery`]); `tools` is an
//!   exact-name allowlist applied here; `tools/list` pages are followed for
//!   at most [`MAX_LIST_PAGES`].
//! - A call ([`RemoteTools::call`]) is sent once: never retried, whatever
//!   the failure (a remote tool is not assumed idempotent). Its output is
//!   untrusted data under Herald's output caps; any failure is a tool error.
//! - Everything a remote server sends (results, structured content, errors,
//!   tool definitions) goes through one cleaning pass ([`clean`]: hidden and
//!   control characters stripped, credential shapes, the configured tokens
//!   and fence markers cut, look-alike and split forms included) and is
//!   shown to a model fenced in `<untrusted_remote_output id="…">` with a
//!   random id per answer.
//! - The bearer token (`token_env`) is checked by the settings (never over
//!   plain `http://` to a public host, see [`crate::config::host`]), is never logged or
//!   shown in an error, and is dropped on a redirect to another host.
//! - A server with `credential: exchange` is called with the caller's OAuth
//!   token exchanged for its audience ([`caller`]), on a session of the
//!   call's own, never with Herald's token (used, when set, for discovery).
//!   Who is served which server's tools is `crate::tools::ToolView`'s rule.

pub mod caller;
pub mod clean;
mod client;
mod discovery;
mod output;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value};

pub use discovery::{
    MAX_DESCRIPTION_CHARS, MAX_INPUT_SCHEMA_BYTES, MAX_LIST_PAGES, MAX_TITLE_CHARS,
    MAX_TOOL_NAME_CHARS, NAME_SEPARATOR, RemoteTool,
};

pub use self::caller::{CallerExchange, ExchangeFailure, OAuthCaller};
use self::clean::Cleaner;
use self::client::{Failure, Session};
use crate::config::{McpServerSettings, McpSettings, OutputSettings, RemoteCredential};
use crate::tool_interface::{RenderedOutput, ToolDefinition};

/// Retries of a discovery after a transient error.
const DISCOVERY_RETRIES: u32 = 2;

/// The first pause before a discovery retry (doubled each time, plus jitter).
const RETRY_PAUSE: Duration = Duration::from_millis(250);

/// Why the remote tools cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The HTTP client cannot be built (TLS roots, for example).
    #[error("cannot build the HTTP client for remote MCP servers: {0}")]
    Client(String),
}

/// Where one server stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ServerStatus {
    /// Not asked yet.
    #[default]
    NotDiscovered,
    /// Discovered; its tools are served.
    Ready {
        /// How many tools are registered.
        tools: usize,
    },
    /// The last discovery failed; no tools are served from it.
    Failed {
        /// What went wrong (scrubbed: no token, no URL query).
        reason: String,
    },
}

/// One server, for listings and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSummary {
    /// `mcp.servers[].name`.
    pub name: String,
    /// Its URL without the query.
    pub url: String,
    /// Where it stands.
    pub status: ServerStatus,
    /// The names of its registered tools (`<server>__<tool>`).
    pub tools: Vec<String>,
    /// The warnings of its last discovery (allowlist, page bound, skipped tools).
    pub warnings: Vec<String>,
}

/// Longest wait for one remote session to close ([`RemoteTools::close`]).
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The remote servers and their discovered tools. Cheap to clone (shared).
#[derive(Clone)]
pub struct RemoteTools {
    inner: Arc<Inner>,
}

struct Inner {
    servers: Vec<Server>,
    discovery_timeout: Duration,
    call_timeout: Duration,
    caps: OutputSettings,
    /// The cleaning pass of everything the servers send, with their
    /// configured credentials.
    cleaner: Cleaner,
    /// Bumped whenever the set of definitions changes.
    generation: AtomicU64,
    /// One discovery at a time.
    discovering: tokio::sync::Mutex<()>,
    /// How much one server may add to `tools/list`.
    bounds: discovery::ListBounds,
}

struct Server {
    settings: McpServerSettings,
    url: String,
    http: reqwest::Client,
    state: RwLock<ServerState>,
}

#[derive(Default)]
struct ServerState {
    tools: Vec<RemoteTool>,
    session: Option<Arc<Session>>,
    status: ServerStatus,
    warnings: Vec<String>,
}

impl std::fmt::Debug for RemoteTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTools")
            .field("servers", &self.summaries())
            .finish()
    }
}

impl Server {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, ServerState> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, ServerState> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RemoteTools {
    /// The servers of `mcp`, none discovered yet (no network here).
    pub fn new(mcp: &McpSettings, caps: &OutputSettings) -> Result<Self, RemoteError> {
        let mut servers = Vec::with_capacity(mcp.servers.len());
        for settings in &mcp.servers {
            let http = client::http_client().map_err(|e| RemoteError::Client(e.to_string()))?;
            servers.push(Server {
                url: client::display_url(&settings.url),
                settings: settings.clone(),
                http,
                state: RwLock::new(ServerState::default()),
            });
        }
        let cleaner = Cleaner::new(mcp.servers.iter().flat_map(configured_credentials));
        Ok(Self {
            inner: Arc::new(Inner {
                cleaner,
                servers,
                discovery_timeout: Duration::from_secs(mcp.discovery_timeout_s.max(1)),
                call_timeout: Duration::from_secs(mcp.call_timeout_s.max(1)),
                caps: caps.clone(),
                generation: AtomicU64::new(0),
                discovering: tokio::sync::Mutex::new(()),
                bounds: discovery::ListBounds::of(mcp),
            }),
        })
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.inner.servers.is_empty()
    }

    /// Closes the open sessions, all at once, each within [`CLOSE_TIMEOUT`],
    /// and waits for their tasks to end: what a process does before its
    /// runtime stops, so no session task is cancelled halfway through closing
    /// its transport (rmcp logs that as an error). A session still used by a
    /// call is left to close when the call drops it. A later call opens a
    /// new session.
    pub async fn close(&self) {
        let sessions: Vec<Arc<Session>> = self
            .inner
            .servers
            .iter()
            .filter_map(|server| server.write().session.take())
            .collect();
        let closing = sessions.into_iter().map(|session| async move {
            if let Ok(mut session) = Arc::try_unwrap(session)
                && let Ok(None) = session.close_with_timeout(CLOSE_TIMEOUT).await
            {
                tracing::debug!("a remote MCP session did not close within {CLOSE_TIMEOUT:?}");
            }
        });
        futures::future::join_all(closing).await;
    }

    /// Asks every server for its tools, all at once, each bounded by
    /// `mcp.discovery_timeout_s`; replaces each server's tools with what it
    /// answered (none when it failed). Never fails: failures are logged and
    /// reported in the summaries.
    pub async fn discover(&self) -> Vec<ServerSummary> {
        let _one_at_a_time = self.inner.discovering.lock().await;
        let before = self.definitions();
        let timeout = self.inner.discovery_timeout;
        let cleaner = &self.inner.cleaner;
        let bounds = self.inner.bounds;
        let runs = self.inner.servers.iter().map(|server| async move {
            match tokio::time::timeout(timeout, discover_server(server, cleaner, bounds)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(Failure::new(
                    format!(
                        "no answer within {} s ({})",
                        timeout.as_secs(),
                        crate::config::SettingKey::McpDiscoveryTimeoutS
                    ),
                    true,
                )),
            }
        });
        let outcomes = futures::future::join_all(runs).await;
        for (server, outcome) in self.inner.servers.iter().zip(outcomes) {
            let name = &server.settings.name;
            match outcome {
                Ok((session, selected)) => {
                    for warning in &selected.warnings {
                        tracing::warn!(server = %name, url = %server.url, "remote MCP server: {warning}");
                    }
                    tracing::info!(
                        server = %name,
                        url = %server.url,
                        tools = selected.tools.len(),
                        "remote MCP server discovered"
                    );
                    let mut state = server.write();
                    state.status = ServerStatus::Ready {
                        tools: selected.tools.len(),
                    };
                    state.tools = selected.tools;
                    state.warnings = selected.warnings;
                    state.session = Some(Arc::new(session));
                }
                Err(mut failure) => {
                    failure.reason = self.inner.cleaner.line(&failure.reason, 500);
                    tracing::warn!(
                        server = %name,
                        url = %server.url,
                        error = %failure.reason,
                        "remote MCP server skipped: its tools are not served until a later discovery succeeds"
                    );
                    let mut state = server.write();
                    state.status = ServerStatus::Failed {
                        reason: failure.reason,
                    };
                    state.tools.clear();
                    state.warnings.clear();
                    state.session = None;
                }
            }
        }
        if self.definitions() != before {
            self.inner.generation.fetch_add(1, Ordering::SeqCst);
        }
        self.summaries()
    }

    /// A counter bumped whenever a discovery changed the definitions (for
    /// `notifications/tools/list_changed`).
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    /// Every registered remote tool, servers in the order declared.
    pub fn tools(&self) -> Vec<RemoteTool> {
        self.inner
            .servers
            .iter()
            .flat_map(|s| s.read().tools.clone())
            .collect()
    }

    /// The definitions of the registered remote tools.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools().into_iter().map(|t| t.definition).collect()
    }

    /// The registered tool served as `name`.
    pub fn find(&self, name: &str) -> Option<RemoteTool> {
        self.inner.servers.iter().find_map(|s| {
            s.read()
                .tools
                .iter()
                .find(|t| t.definition.name == name)
                .cloned()
        })
    }

    /// Every configured server: its URL (without query), status and tools.
    pub fn summaries(&self) -> Vec<ServerSummary> {
        self.inner
            .servers
            .iter()
            .map(|s| {
                let state = s.read();
                ServerSummary {
                    name: s.settings.name.clone(),
                    url: s.url.clone(),
                    status: state.status.clone(),
                    tools: state
                        .tools
                        .iter()
                        .map(|t| t.definition.name.clone())
                        .collect(),
                    warnings: state.warnings.clone(),
                }
            })
            .collect()
    }

    /// Calls the remote tool served as `name` (`None` when there is none)
    /// for `caller` (an OAuth caller, whose token a server with
    /// `credential: exchange` gets, exchanged; [`caller`]).
    /// Sent once, never retried; every failure (unreachable, HTTP error,
    /// timeout after `mcp.call_timeout_s`, protocol error) is a tool error.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        caller: Option<&OAuthCaller>,
    ) -> Option<RenderedOutput> {
        let (server, tool) = self.inner.servers.iter().find_map(|s| {
            let state = s.read();
            let tool = state
                .tools
                .iter()
                .find(|t| t.definition.name == name)?
                .clone();
            Some((s, tool))
        })?;
        Some(self.call_on(server, &tool, arguments, caller).await)
    }

    async fn call_on(
        &self,
        server: &Server,
        tool: &RemoteTool,
        arguments: Map<String, Value>,
        caller: Option<&OAuthCaller>,
    ) -> RenderedOutput {
        let settings = &server.settings;
        let (session, own_token) = match self.session_for(server, caller).await {
            Ok(CallSession::Shared(s)) => (s, None),
            Ok(CallSession::Caller(s, token)) => (Arc::new(s), Some(token)),
            Err(SessionError::Refused(out)) => return out,
            Err(SessionError::Failed(f)) => {
                let reason = self.inner.cleaner.line(&f.reason, 500);
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, error = %reason, "remote tool call: cannot connect");
                return output::failure(&settings.name, &tool.definition.name, &reason);
            }
        };
        let mut params = CallToolRequestParams::new(tool.remote_name.clone());
        params.arguments = Some(arguments);
        tracing::debug!(server = %settings.name, tool = %tool.definition.name, "remote tool call");
        let timeout = self.inner.call_timeout;
        // A call on the caller's own session also redacts its exchanged token.
        let own_cleaner = own_token
            .as_ref()
            .map(|t| self.inner.cleaner.with_secret(t.expose()));
        let cleaner = own_cleaner.as_ref().unwrap_or(&self.inner.cleaner);
        let origin = output::Origin {
            server: &settings.name,
            tool: &tool.definition.name,
            cleaner,
        };
        let answer = tokio::time::timeout(timeout, session.peer().call_tool(params)).await;
        let out = match answer {
            Ok(Ok(result)) => output::rendered(result, &self.inner.caps, &origin),
            Ok(Err(rmcp::ServiceError::McpError(e))) => {
                let reason = cleaner.line(&client::scrub(&e.message, settings), 500);
                tracing::info!(server = %settings.name, tool = %tool.definition.name, code = e.code.0, error = %reason, "remote tool call: protocol error");
                output::refusal(&e, &self.inner.caps, &origin)
            }
            Ok(Err(e)) => {
                let reason = cleaner.line(&Failure::from_error(&e, settings).reason, 500);
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, error = %reason, "remote tool call failed (not retried)");
                // The session may be broken: the next call opens a new one.
                self.forget_session(server, &session);
                output::failure(&settings.name, &tool.definition.name, &reason)
            }
            Err(_) => {
                let reason = format!(
                    "no answer within {} s ({})",
                    timeout.as_secs(),
                    crate::config::SettingKey::McpCallTimeoutS
                );
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, "remote tool call: {reason}; abandoned");
                output::failure(&settings.name, &tool.definition.name, &reason)
            }
        };
        if own_token.is_some() {
            caller::close(session, CLOSE_TIMEOUT).await;
        }
        out
    }

    /// The session a call for `caller` uses: the server's shared one (with
    /// Herald's own token, or none), or, for `credential: exchange`, one of
    /// the call's own carrying the caller's token exchanged for the server's
    /// audience (never Herald's).
    async fn session_for(
        &self,
        server: &Server,
        caller: Option<&OAuthCaller>,
    ) -> Result<CallSession, SessionError> {
        let RemoteCredential::Exchange { audience } = &server.settings.grant.credential else {
            return self
                .session(server)
                .await
                .map(CallSession::Shared)
                .map_err(SessionError::Failed);
        };
        let token = caller::exchanged(&server.settings.name, audience, caller, &self.inner.caps)
            .await
            .map_err(SessionError::Refused)?;
        let timeout = self.inner.discovery_timeout;
        let session = tokio::time::timeout(
            timeout,
            client::connect_as(&server.settings, &server.http, Some(&token)),
        )
        .await
        .map_err(|_| {
            SessionError::Failed(Failure::new(
                format!("no answer within {} s", timeout.as_secs()),
                true,
            ))
        })?
        .map_err(SessionError::Failed)?;
        Ok(CallSession::Caller(session, token))
    }

    /// The server's open session, or a new one when it has none or it closed.
    async fn session(&self, server: &Server) -> Result<Arc<Session>, Failure> {
        if let Some(s) = server.read().session.clone()
            && !s.is_closed()
            && !s.peer().is_transport_closed()
        {
            return Ok(s);
        }
        let timeout = self.inner.discovery_timeout;
        let session =
            tokio::time::timeout(timeout, client::connect(&server.settings, &server.http))
                .await
                .map_err(|_| {
                    Failure::new(format!("no answer within {} s", timeout.as_secs()), true)
                })??;
        let session = Arc::new(session);
        server.write().session = Some(session.clone());
        Ok(session)
    }

    fn forget_session(&self, server: &Server, broken: &Arc<Session>) {
        let mut state = server.write();
        if state
            .session
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, broken))
        {
            state.session = None;
        }
    }
}

/// The configured credentials of one server, redacted by value from what
/// any server sends: its token and its URL's query.
fn configured_credentials(settings: &McpServerSettings) -> Vec<&str> {
    let mut credentials: Vec<&str> = settings
        .token
        .as_ref()
        .map(crate::config::Secret::expose)
        .into_iter()
        .collect();
    if let Some(at) = settings.url.find('?') {
        let query = settings.url[at + 1..].split('#').next().unwrap_or_default();
        credentials.push(query);
        credentials.extend(
            query
                .split('&')
                .filter_map(|pair| pair.split_once('=').map(|(_, v)| v)),
        );
    }
    credentials
}

/// The session of one call.
enum CallSession {
    /// The server's, shared by every call.
    Shared(Arc<Session>),
    /// The call's own, carrying the caller's exchanged token (closed after it).
    Caller(Session, crate::config::Secret),
}

/// Why a call has no session.
enum SessionError {
    /// The caller's token cannot be used for this server (a tool error).
    Refused(RenderedOutput),
    /// The server cannot be reached.
    Failed(Failure),
}

/// One server's discovery, retried a little on transient errors.
async fn discover_server(
    server: &Server,
    cleaner: &Cleaner,
    bounds: discovery::ListBounds,
) -> Result<(Session, discovery::Selected), Failure> {
    let mut attempt = 0;
    loop {
        match discover_once(server, cleaner, bounds).await {
            Ok(found) => return Ok(found),
            Err(f) if f.transient && attempt < DISCOVERY_RETRIES => {
                let pause =
                    RETRY_PAUSE * 2u32.pow(attempt) + Duration::from_millis(fastrand::u64(0..100));
                tracing::debug!(server = %server.settings.name, error = %f.reason, "discovery failed; retrying in {pause:?}");
                tokio::time::sleep(pause).await;
                attempt += 1;
            }
            Err(f) => return Err(f),
        }
    }
}

async fn discover_once(
    server: &Server,
    cleaner: &Cleaner,
    bounds: discovery::ListBounds,
) -> Result<(Session, discovery::Selected), Failure> {
    let session = client::connect(&server.settings, &server.http).await?;
    let listed = discovery::list_pages(&session)
        .await
        .map_err(|e| Failure::from_error(&e, &server.settings))?;
    Ok((
        session,
        discovery::select(&server.settings, listed, cleaner, bounds),
    ))
}
