//! The tools every front end serves (the MCP server, the Node addon, the
//! Python module, the C ABI), through one [`Toolbox`].
//!
//! A toolbox asks three [`source::ToolSource`]s, in order: the 14 Lorebase
//! tools ([`lorebase`], one module per group, a tool being one impl with its
//! definition, argument and answer types and handler), the KB tools ([`kb`],
//! when `kb.dir` is set), and the tools of remote MCP servers (`mcp.servers`,
//! [`crate::remote`], after discovery, as `<server>__<tool>`; a built-in tool
//! wins a name collision). The tool selection ([`selection`]) narrows all
//! three the same way.
//!
//! - `args`: the argument types whose bounds are declared once, and the
//!   `[validation-failed]` errors that name an argument;
//! - `schema`: the input and output schemas derived from the Rust types.
//!
//! What the tools take and answer is documented in `docs/tools.md`; how to
//! add one, in `docs/architecture.md`.

mod args;
pub mod kb;
mod lorebase;
mod remote;
mod schema;
mod selection;
mod source;

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config::Settings;
use crate::kb::{KbCatalog, KbError, KbOptions};
use crate::keeper::{Credential, KeeperClient, KeeperError};
use crate::remote::{RemoteError, RemoteTools, ServerSummary};
use crate::tool::ErrorCode;
pub use crate::tool::{RenderedOutput, ToolAnnotations, ToolCallError, ToolDefinition};
use kb::KbTools;
use lorebase::LorebaseTools;
use source::ToolSource;

/// Why a [`Toolbox`] cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    /// The Keeper client cannot be built from the settings.
    #[error("cannot build the Keeper client: {0}")]
    Keeper(#[from] KeeperError),
    /// The KB catalog (`kb.dir`) cannot be opened.
    #[error(transparent)]
    Kb(#[from] KbError),
    /// The client of the remote MCP servers (`mcp.servers`) cannot be built.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// `tools.allow` names a tool that is not served.
    #[error("{0}")]
    Selection(String),
}

impl ToolboxError {
    /// Its stable code: `invalid-settings`, or `internal` when the HTTP
    /// client of the remote servers cannot be built.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Keeper(_) | Self::Kb(_) | Self::Selection(_) => ErrorCode::InvalidSettings,
            Self::Remote(_) => ErrorCode::Internal,
        }
    }
}

/// Where a served tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOrigin {
    /// A Lorebase tool (Keeper).
    Lorebase,
    /// A KB tool (the markdown catalog).
    Kb,
    /// A tool of a remote MCP server.
    Remote,
}

/// The tools of one Herald, ready to list and call. Cheap to clone (shared).
#[derive(Clone)]
pub struct Toolbox {
    settings: Arc<Settings>,
    keeper: KeeperClient,
    lorebase: LorebaseTools,
    kb: KbTools,
    remote: RemoteTools,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("settings", &self.settings)
            .field("keeper", &self.keeper)
            .field("kb", &self.kb().map(|c| c.dir().to_path_buf()))
            .field("remote", &self.remote)
            .finish()
    }
}

impl Toolbox {
    /// Builds the toolbox from resolved settings: the Keeper client, and the KB
    /// catalog when `kb.dir` is set (indexed in the background from now,
    /// then watched). Fails when
    /// `tools.allow` names a tool that is not served. Remote MCP servers are
    /// not asked yet: see [`Toolbox::start`] and [`Toolbox::discover_remote`].
    pub fn new(settings: Settings) -> Result<Self, ToolboxError> {
        let keeper = KeeperClient::new(&settings.keeper)?;
        Self::with_keeper(settings, keeper)
    }

    /// [`Toolbox::new`], then the first discovery of the remote MCP servers
    /// (bounded by `mcp.discovery_timeout_s`; a server that fails is skipped):
    /// how every front end starts a toolbox.
    pub async fn start(settings: Settings) -> Result<Self, ToolboxError> {
        let toolbox = Self::new(settings)?;
        toolbox.discover_remote().await;
        Ok(toolbox)
    }

    /// A toolbox with other settings that shares this one's Keeper client
    /// (one connection pool, one load of the system's root certificates) when
    /// their Keeper settings are the same; otherwise the same as
    /// [`Toolbox::new`].
    pub fn sibling(&self, settings: Settings) -> Result<Self, ToolboxError> {
        if settings.keeper != self.settings.keeper {
            return Self::new(settings);
        }
        Self::with_keeper(settings, self.keeper.clone())
    }

    fn with_keeper(settings: Settings, keeper: KeeperClient) -> Result<Self, ToolboxError> {
        // Indexed in the background: a large or slow catalog never holds
        // back a front end's start (the MCP handshake); KB calls wait for it.
        let catalog = match &settings.kb.dir {
            Some(dir) => Some(KbCatalog::start(dir, KbOptions::default())?),
            None => None,
        };
        let remote = RemoteTools::new(&settings.mcp, &settings.output)?;
        let settings = Arc::new(settings);
        let toolbox = Self {
            lorebase: LorebaseTools::new(keeper.clone(), settings.clone()),
            kb: KbTools::new(
                catalog,
                settings.output.clone(),
                std::time::Duration::from_secs(settings.kb.index_wait_s),
            ),
            settings,
            keeper,
            remote,
        };
        toolbox.check_selection()?;
        Ok(toolbox)
    }

    /// `tools.allow` must name served tools (see [`selection::check`]).
    fn check_selection(&self) -> Result<(), ToolboxError> {
        let sel = &self.settings.tools;
        if sel.allow.is_none() && sel.deny.is_empty() {
            return Ok(());
        }
        let mut offered: Vec<(&str, bool)> =
            lorebase::TOOLS.iter().map(|t| (t.name, t.writes)).collect();
        if self.kb.catalog().is_some() {
            offered.extend(kb::NAMES.map(|name| (name, false)));
        }
        let served: Vec<&str> = offered
            .iter()
            .filter(|(name, writes)| selection::serves(sel, name, *writes))
            .map(|(name, _)| *name)
            .collect();
        let existing: Vec<&str> = lorebase::TOOLS
            .iter()
            .map(|t| t.name)
            .chain(kb::NAMES)
            .collect();
        selection::check(sel, &served, &existing).map_err(ToolboxError::Selection)
    }

    /// Asks the remote MCP servers (`mcp.servers`) for their tools, all at
    /// once and bounded by `mcp.discovery_timeout_s`; a server that fails is
    /// logged and skipped. Call it again to re-discover (a server that came
    /// up later joins). Shared by every clone of this toolbox.
    pub async fn discover_remote(&self) -> Vec<ServerSummary> {
        if self.remote.is_empty() {
            return Vec::new();
        }
        self.remote.discover().await
    }

    /// Closes the sessions with the remote MCP servers (see
    /// [`RemoteTools::close`]): call it before the runtime stops.
    pub async fn close_remote(&self) {
        self.remote.close().await;
    }

    /// The remote MCP servers and their discovered tools.
    pub fn remote(&self) -> &RemoteTools {
        &self.remote
    }

    /// The built-in definitions served (the Lorebase tools, the KB tools),
    /// without the remote ones.
    pub fn local_definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.lorebase.definitions();
        defs.extend(self.kb.definitions());
        defs.retain(|d| self.serves(&d.name, d.writes()));
        if !self.settings.output.schemas {
            for d in &mut defs {
                d.output_schema = None;
            }
        }
        defs
    }

    /// The discovered remote definitions served: those whose name no built-in
    /// tool takes, narrowed by the tool selection (`tools.read_only` drops
    /// every remote tool the server does not declare read-only).
    pub fn remote_definitions(&self) -> Vec<ToolDefinition> {
        self.remote
            .definitions()
            .into_iter()
            .filter(|d| !self.is_builtin(&d.name))
            .filter(|d| self.serves(&d.name, d.writes()))
            .collect()
    }

    /// Whether `name` is a built-in tool (Lorebase or KB), served or not.
    fn is_builtin(&self, name: &str) -> bool {
        self.lorebase.owns(name) || self.kb.owns(name)
    }

    /// Where the tool `name` comes from, whether served or not (`None`: no
    /// such tool).
    pub fn origin_of(&self, name: &str) -> Option<ToolOrigin> {
        if self.lorebase.owns(name) {
            Some(ToolOrigin::Lorebase)
        } else if self.kb.owns(name) {
            Some(ToolOrigin::Kb)
        } else if self.remote.owns(name) {
            Some(ToolOrigin::Remote)
        } else {
            None
        }
    }

    /// The settings it serves with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The Keeper client (for resources and completions).
    pub fn keeper(&self) -> &KeeperClient {
        &self.keeper
    }

    /// The KB catalog, when `kb.dir` is set.
    pub fn kb(&self) -> Option<&KbCatalog> {
        self.kb.catalog()
    }

    /// The definitions of the tools served, in table order: the Lorebase tools,
    /// then the KB tools when a catalog is open, then the discovered remote
    /// tools; `tools.read_only` drops `lorebase_execute` (and remote tools not
    /// declared read-only), then the allow and deny lists apply.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.local_definitions();
        defs.extend(self.remote_definitions());
        defs
    }

    /// Whether a tool of that name (writing or not) is served.
    fn serves(&self, name: &str, writes: bool) -> bool {
        selection::serves(&self.settings.tools, name, writes)
    }

    /// Calls one tool. Tool failures are `Ok` with `is_error: true`; only a
    /// caller's programming error (a tool not served) is `Err`.
    ///
    /// Every call of every front end passes here, once: the place to observe
    /// calls (the tool, its origin, the outcome).
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        match self.origin_of(name) {
            Some(ToolOrigin::Lorebase) => {
                self.call_in(&self.lorebase, name, arguments, credential)
                    .await
            }
            Some(ToolOrigin::Kb) => self.call_in(&self.kb, name, arguments, credential).await,
            Some(ToolOrigin::Remote) => {
                self.call_in(&self.remote, name, arguments, credential)
                    .await
            }
            None => Err(ToolCallError::UnknownTool(name.to_string())),
        }
    }

    /// Calls `name` in the source that owns it, when it offers and serves it.
    async fn call_in<S: ToolSource>(
        &self,
        source: &S,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        let unknown = || ToolCallError::UnknownTool(name.to_string());
        match source.offers(name) {
            Some(writes) if self.serves(name, writes) => source
                .call(name, arguments, credential)
                .await
                .ok_or_else(unknown),
            _ => Err(unknown()),
        }
    }
}
