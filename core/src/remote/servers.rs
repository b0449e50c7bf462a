//! The remote servers and the tools discovered on them: [`RemoteTools`],
//! its settings, each server's state, and discovery (every server at once,
//! each bounded in time, retried a little on transient errors).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::bounded_http::{AnswerBound, BoundedHttpClient};
use super::clean::Cleaner;
use super::client::{self, Failure, Session};
use super::discovery::{self, RemoteTool};
use super::status::{RemoteError, ServerStatus, ServerSummary};
use crate::config::{McpServerSettings, McpSettings, OutputSettings};
use crate::tool_interface::ToolDefinition;

/// Retries of a discovery after a transient error.
const DISCOVERY_RETRIES: u32 = 2;

/// The first pause before a discovery retry (doubled each time, plus jitter).
const RETRY_PAUSE: Duration = Duration::from_millis(250);

/// Longest wait for one remote session to close ([`RemoteTools::close`]).
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The remote servers and their discovered tools. Cheap to clone (shared).
#[derive(Clone)]
pub struct RemoteTools {
    pub(super) inner: Arc<Inner>,
}

/// What the clones of one [`RemoteTools`] share.
pub(super) struct Inner {
    pub(super) servers: Vec<Server>,
    pub(super) discovery_timeout: Duration,
    pub(super) call_timeout: Duration,
    pub(super) caps: OutputSettings,
    /// The cleaning pass of everything the servers send, with their
    /// configured credentials.
    pub(super) cleaner: Cleaner,
    /// Bumped whenever the set of definitions changes.
    pub(super) generation: AtomicU64,
    /// One discovery at a time.
    pub(super) discovering: tokio::sync::Mutex<()>,
    /// How much one server may add to `tools/list`.
    pub(super) bounds: discovery::ListBounds,
    /// How many bytes one tool answer may take (`mcp.max_answer_bytes`).
    pub(super) answer_bound: AnswerBound,
}

/// One configured server.
pub(super) struct Server {
    pub(super) settings: McpServerSettings,
    pub(super) url: String,
    /// Its HTTP client, tool answers bounded (`mcp.max_answer_bytes`).
    pub(super) http: BoundedHttpClient,
    state: RwLock<ServerState>,
}

/// What is known of one server since its last discovery.
#[derive(Default)]
pub(super) struct ServerState {
    pub(super) tools: Vec<RemoteTool>,
    pub(super) session: Option<Arc<Session>>,
    pub(super) status: ServerStatus,
    pub(super) warnings: Vec<String>,
}

impl std::fmt::Debug for RemoteTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteTools")
            .field("servers", &self.summaries())
            .finish()
    }
}

impl Server {
    pub(super) fn read(&self) -> std::sync::RwLockReadGuard<'_, ServerState> {
        self.state
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> std::sync::RwLockWriteGuard<'_, ServerState> {
        self.state
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RemoteTools {
    /// The servers of `mcp`, none discovered yet (no network here).
    pub fn new(mcp: &McpSettings, caps: &OutputSettings) -> Result<Self, RemoteError> {
        let answer_bound = AnswerBound::new(mcp.max_answer_bytes);
        let mut servers = Vec::with_capacity(mcp.servers.len());
        for settings in &mcp.servers {
            let http = client::http_client().map_err(|e| RemoteError::Client(e.to_string()))?;
            let http = BoundedHttpClient::new(http, answer_bound);
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
                answer_bound,
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
