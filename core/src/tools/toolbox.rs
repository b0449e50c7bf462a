//! The [`Toolbox`]: the three sources of tools of one Herald (Lorebase, KB,
//! remote), how a call is dispatched to its source and observed, and the
//! reads that are not tool calls (resources, the search hints' words). What
//! one caller sees and may call, and the calls through it, are in
//! [`super::view`].

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::kb::{self, KbTools};
use super::lorebase::{self, LorebaseTools, ResourceRead};
use super::observe::{self, CallRecord, CallTelemetry};
use super::search_hint;
use super::selection::{KB_GROUP, REMOTE_GROUP, ToolNarrowing};
use super::source::{ToolOrigin, ToolSource};
use crate::config::Settings;
use crate::kb::{KbCatalog, KbError, KbOptions};
use crate::keeper::model::{ReadAt, SchemaDetail, SchemaParams};
use crate::keeper::{Credential, KeeperClient, KeeperError};
use crate::remote::{NAME_SEPARATOR, OAuthCaller, RemoteError, RemoteTools, ServerSummary};
use crate::telemetry::{CallMetrics, CallOrigin, CallScope, Caller, ObservedCall, SpanSink};
use crate::tool::{ErrorCode, RenderedOutput, ToolCallError, ToolDefinition, strip_host_arguments};

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
    /// The span exporter (`traces.otlp_endpoint`) cannot start.
    #[error("{0}")]
    Traces(String),
}

impl ToolboxError {
    /// Its stable code: `invalid-settings`, or `internal` when the HTTP
    /// client of the remote servers cannot be built.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Keeper(_) | Self::Kb(_) | Self::Selection(_) => ErrorCode::InvalidSettings,
            Self::Remote(_) | Self::Traces(_) => ErrorCode::Internal,
        }
    }
}

/// The tools of one Herald, ready to list and call. Cheap to clone (shared).
#[derive(Clone)]
pub struct Toolbox {
    settings: Arc<Settings>,
    keeper: KeeperClient,
    lorebase: LorebaseTools,
    kb: KbTools,
    remote: RemoteTools,
    telemetry: Arc<CallTelemetry>,
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

    fn with_keeper(settings: Settings, keeper: KeeperClient) -> Result<Self, ToolboxError> {
        // Indexed in the background: a large or slow catalog never holds
        // back a front end's start (the MCP handshake); KB calls wait for it.
        let catalog = match &settings.kb.dir {
            Some(dir) => Some(KbCatalog::start(dir, KbOptions::default())?),
            None => None,
        };
        let remote = RemoteTools::new(&settings.mcp, &settings.output)?;
        let telemetry = Arc::new(CallTelemetry::new(&settings).map_err(ToolboxError::Traces)?);
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
            telemetry,
        };
        toolbox.check_selection()?;
        Ok(toolbox)
    }

    /// The names of every built-in tool, served or not, in table order (the
    /// Lorebase tools, then the KB tools).
    pub(super) fn built_in_names(&self) -> impl Iterator<Item = &'static str> {
        lorebase::TOOLS.iter().map(|t| t.name).chain(kb::NAMES)
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

    /// Every built-in definition, served or not (output schemas only with
    /// `output.schemas`): for a front end that keeps their MCP form made
    /// once; which of them a caller sees is
    /// [`ToolView::admits`](super::ToolView::admits)'s answer.
    pub fn built_in_definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.lorebase.definitions();
        defs.extend(self.kb.definitions());
        if !self.settings.output.schemas {
            for d in &mut defs {
                d.output_schema = None;
            }
        }
        defs
    }

    /// Whether the source `origin` offers `name` now, and if so whether it writes.
    pub(super) fn offered(&self, origin: ToolOrigin, name: &str) -> Option<bool> {
        match origin {
            ToolOrigin::Lorebase => self.lorebase.offers(name),
            ToolOrigin::Kb => self.kb.offers(name),
            ToolOrigin::Remote => self.remote.offers(name),
        }
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

    /// The words of the default Domain's schema (full detail, the configured
    /// branch) for the tools' search hints ([`search_hint::DomainWords`]),
    /// read with the configured credential: `None` without a default Domain.
    /// Only for a front end whose every call carries that credential (stdio):
    /// a shared Herald's callers each have their own grants, so no one's
    /// schema may name what another cannot read.
    pub async fn domain_words(&self) -> Option<Result<search_hint::DomainWords, KeeperError>> {
        let domain = self.settings.domain.as_deref()?;
        let params = SchemaParams {
            read: ReadAt {
                branch: self.settings.branch.clone(),
                at: None,
            },
            kinds: None,
            detail: Some(SchemaDetail::Full),
        };
        let schema = self
            .keeper
            .schema(&Credential::Configured, domain, &params)
            .await;
        Some(schema.map(|s| search_hint::DomainWords::from_schema(&s)))
    }

    /// The KB catalog, when `kb.dir` is set.
    pub fn kb(&self) -> Option<&KbCatalog> {
        self.kb.catalog()
    }

    /// A call, observed (counted, timed, audited, in its scope), of a tool
    /// a [`ToolView`](super::ToolView) has `admitted` or refused (then `UnknownTool`,
    /// recorded as such), for `caller` when it is an OAuth caller.
    pub(super) async fn observed_call(
        &self,
        name: &str,
        mut arguments: Map<String, Value>,
        credential: &Credential,
        origin: &CallOrigin<'_>,
        admitted: bool,
        caller: Option<&OAuthCaller>,
    ) -> Result<RenderedOutput, ToolCallError> {
        let tool_origin = self.origin_of(name);
        strip_host_arguments(&mut arguments, |argument| {
            tool_origin == Some(ToolOrigin::Remote)
                && self
                    .remote
                    .find(name)
                    .is_some_and(|tool| tool.definition.declares(argument))
        });
        let record = CallRecord::start(
            &self.telemetry,
            name,
            self.metric_label(name, tool_origin),
            tool_origin,
            &self.settings,
            Caller::of(observe::key_of(credential, &self.settings)),
            &arguments,
        );
        let scope = CallScope::new(origin, self.telemetry.spans.as_ref());
        let call = self.dispatch(
            admitted.then_some(tool_origin).flatten(),
            name,
            arguments,
            credential,
            caller,
        );
        ObservedCall::new(scope, call, |result, scope| record.end(result, scope)).await
    }

    /// Runs a resource read (`resources/read`: `read`), which is not a tool
    /// call: neither counted in `tool_calls_total` nor audited as one. It
    /// runs in a scope of its own (its Keeper requests carry a trace and a
    /// request id) and gets an audit line `resource read` naming the
    /// resource's template and Domain (`resource`) and the outcome: `ok`,
    /// else the code the failure's message starts with (`failure` gives the
    /// message), else `error`.
    pub async fn read_resource<T, E, F>(
        &self,
        resource: (&str, &str),
        credential: &Credential,
        origin: &CallOrigin<'_>,
        failure: impl FnOnce(&E) -> &str,
        read: F,
    ) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
    {
        let started = std::time::Instant::now();
        let caller = Caller::of(observe::key_of(credential, &self.settings));
        let scope = CallScope::new(origin, self.telemetry.spans.as_ref());
        ObservedCall::new(scope, read, |result, scope| {
            let outcome = match result {
                None => observe::CANCELLED,
                Some(Ok(_)) => "ok",
                Some(Err(e)) => observe::known_code(failure(e)).unwrap_or(observe::OTHER_ERROR),
            };
            observe::resource_read(resource, outcome, started, caller, scope);
        })
        .await
    }

    /// Reads Keeper for a resource (`resources/read`), unrecorded: only
    /// inside [`Toolbox::read_resource`], which records the read. No tool
    /// call: a resource is served when the Lorebase tools are
    /// ([`ToolView::serves`](super::ToolView::serves)), whatever the tool selection; it reads and
    /// renders as the read `read` names does (the same checks, the same text).
    pub async fn read_for_resource(
        &self,
        read: ResourceRead<'_>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        let (name, arguments) = read.as_call();
        self.lorebase
            .call(name, arguments, credential)
            .await
            .ok_or_else(|| ToolCallError::UnknownTool(name.to_string()))
    }

    /// Records a call a front end refused before calling the toolbox (no
    /// usable credential: `unauthorized`; a tool not served to this request:
    /// `unknown-tool`): its metric and its audit line.
    pub fn record_refused(
        &self,
        name: &str,
        outcome: &'static str,
        credential: Option<&Credential>,
        arguments: Option<&Map<String, Value>>,
        origin: &CallOrigin<'_>,
    ) {
        let tool_origin = self.origin_of(name);
        let key = credential.and_then(|c| observe::key_of(c, &self.settings));
        let label = self.metric_label(name, tool_origin);
        let empty = Map::new();
        let scope = observe::audit_scope(tool_origin, arguments.unwrap_or(&empty), &self.settings);
        observe::refused(&self.telemetry, name, label, outcome, key, scope, origin);
    }

    /// The call metrics (shared by its clones), for `/metrics`.
    pub fn call_metrics(&self) -> &CallMetrics {
        &self.telemetry.metrics
    }

    /// Where spans go when traces are exported (to flush at exit).
    pub fn span_sink(&self) -> Option<&SpanSink> {
        self.telemetry.spans.as_ref()
    }

    /// The metric label of `name`: the tool's own name when it is one.
    fn metric_label(&self, name: &str, origin: Option<ToolOrigin>) -> Cow<'static, str> {
        let builtin = match origin {
            Some(ToolOrigin::Lorebase) => lorebase::TOOLS
                .iter()
                .find(|t| t.name == name)
                .map(|t| t.name),
            Some(ToolOrigin::Kb) => kb::NAMES.iter().find(|n| **n == name).copied(),
            _ => None,
        };
        observe::label(name, origin, builtin)
    }

    /// The group `name` belongs to (`reads`, `provenance`, `revisions`,
    /// `agent`, `kb`, `remote`); `None`: no such tool.
    pub fn group_of(&self, name: &str) -> Option<&'static str> {
        match self.origin_of(name)? {
            ToolOrigin::Lorebase => lorebase::TOOLS
                .iter()
                .find(|t| t.name == name)
                .map(|t| t.group),
            ToolOrigin::Kb => Some(KB_GROUP),
            ToolOrigin::Remote => Some(REMOTE_GROUP),
        }
    }

    /// Every group name a narrowing may use.
    pub fn group_names() -> impl Iterator<Item = &'static str> {
        lorebase::GROUPS.into_iter().chain([KB_GROUP, REMOTE_GROUP])
    }

    /// Checks that a request's narrowing names real groups and tools (a
    /// typo would otherwise hide every tool from that request): the message
    /// names the unknown ones. A name shaped like a remote tool
    /// (`<server>__<tool>`) is accepted, as it may be discovered later.
    pub fn check_narrowing(&self, narrowing: &ToolNarrowing) -> Result<(), String> {
        let mut unknown = Vec::new();
        for group in narrowing.groups.iter().flatten() {
            if !Self::group_names().any(|g| g == group) {
                unknown.push(format!("toolset {group:?}"));
            }
        }
        for tool in narrowing.tools.iter().flatten() {
            if self.origin_of(tool).is_none() && !tool.contains(NAME_SEPARATOR) {
                unknown.push(format!("tool {tool:?}"));
            }
        }
        if unknown.is_empty() {
            return Ok(());
        }
        Err(format!(
            "no such {}; toolsets: {}",
            unknown.join(", "),
            Self::group_names().collect::<Vec<_>>().join(", ")
        ))
    }

    /// Runs the call in the source that owns `name`.
    async fn dispatch(
        &self,
        origin: Option<ToolOrigin>,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        caller: Option<&OAuthCaller>,
    ) -> Result<RenderedOutput, ToolCallError> {
        match origin {
            Some(ToolOrigin::Lorebase) => {
                self.call_in(&self.lorebase, name, arguments, credential)
                    .await
            }
            Some(ToolOrigin::Kb) => self.call_in(&self.kb, name, arguments, credential).await,
            // Remote servers get Herald's own token or the caller's,
            // exchanged (`remote::caller`), never the caller's Keeper credential.
            // Boxed: the MCP client's future is some 10 KB, which every call
            // of every tool would otherwise carry (and copy).
            Some(ToolOrigin::Remote) => match self.remote.offers(name) {
                Some(_) => Box::pin(self.remote.call(name, arguments, caller))
                    .await
                    .ok_or_else(|| ToolCallError::UnknownTool(name.to_string())),
                None => Err(ToolCallError::UnknownTool(name.to_string())),
            },
            None => Err(ToolCallError::UnknownTool(name.to_string())),
        }
    }

    /// Calls `name` in the source that owns it, when it still offers it (the
    /// view admitted it).
    async fn call_in<S: ToolSource>(
        &self,
        source: &S,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        let unknown = || ToolCallError::UnknownTool(name.to_string());
        match source.offers(name) {
            Some(_) => source
                .call(name, arguments, credential)
                .await
                .ok_or_else(unknown),
            None => Err(unknown()),
        }
    }
}
