//! The [`Toolbox`]: the two sources of tools of one Herald (the built-in
//! table: Lorebase and KB; the remote servers'), how a call is dispatched to
//! its source and observed, the reads that are not tool calls (resources,
//! the search hints' words); the [`ToolView`], what one caller is served
//! (by the rules of [`super::serving`]); and the toolbox's own lists and
//! calls, those of one agent's view.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::built_in::BuiltInTools;
use super::call_telemetry::{self, CallRecord, CallTelemetry};
use super::lorebase::ResourceRead;
use super::search_hint;
use super::selection::{self, KB_GROUP, REMOTE_GROUP, ToolNarrowing};
use super::serving::{Audience, Serving, forbidden, remote_serving};
use super::source::{ToolOrigin, ToolSource};
use super::table::{self, GROUPS, TOOLS};
use crate::config::{McpServerSettings, Settings};
use crate::kb::{KbCatalog, KbError, KbOptions};
use crate::keeper::model::ProblemCode;
use crate::keeper::model::{ReadAt, SchemaDetail, SchemaParams};
use crate::keeper::{Credential, KeeperClient, KeeperError};
use crate::remote::clean::Cleaner;
use crate::remote::{NAME_SEPARATOR, OAuthCaller, RemoteError, RemoteTools, ServerSummary};
use crate::telemetry::{CallMetrics, CallOrigin, CallScope, Caller, ObservedCall, SpanSink};
use crate::tool_interface::{
    ErrorCode, RenderedOutput, ToolCallError, ToolDefinition, strip_host_arguments,
};

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
    built_in: BuiltInTools,
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
            built_in: BuiltInTools::new(keeper.clone(), catalog, settings.clone()),
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
        TOOLS.iter().map(|t| t.name)
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
    /// [`ToolView::serves`]'s answer.
    pub fn built_in_definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.built_in.definitions();
        if !self.settings.output.schemas {
            for d in &mut defs {
                d.output_schema = None;
            }
        }
        defs
    }

    /// Whether the source of `origin` serves `name` now, and if so whether
    /// it writes.
    pub(super) fn source_serves(&self, origin: ToolOrigin, name: &str) -> Option<bool> {
        match origin {
            ToolOrigin::Lorebase | ToolOrigin::Kb => self.built_in.serves(name),
            ToolOrigin::Remote => self.remote.serves(name),
        }
    }

    /// Where the tool `name` comes from, whether served or not (`None`: no
    /// such tool).
    pub fn origin_of(&self, name: &str) -> Option<ToolOrigin> {
        if let Some((_, row)) = table::row(name) {
            Some(row.origin)
        } else if self.remote.defines(name) {
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
        // The names are cleaned as remote text is: its patterns compile
        // beside the schema's round trip, not after it.
        let prepare = tokio::task::spawn_blocking(Cleaner::prepare);
        let schema = self
            .keeper
            .schema(&Credential::Configured, domain, &params)
            .await;
        let _ = prepare.await;
        Some(schema.map(|s| search_hint::DomainWords::from_schema(&s)))
    }

    /// The KB catalog, when `kb.dir` is set.
    pub fn kb(&self) -> Option<&KbCatalog> {
        self.built_in.catalog()
    }

    /// A call, observed (counted, timed, audited, in its scope), of a tool
    /// a [`ToolView`] serves (`served`) or not (then `UnknownTool`,
    /// recorded as such), for `caller` when it is an OAuth caller.
    pub(super) async fn observed_call(
        &self,
        name: &str,
        mut arguments: Map<String, Value>,
        credential: &Credential,
        origin: &CallOrigin<'_>,
        served: bool,
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
            Caller::of(call_telemetry::key_of(credential, &self.settings)),
            &arguments,
        );
        let scope = CallScope::new(origin, self.telemetry.spans.as_ref());
        let call = self.dispatch(
            served.then_some(tool_origin).flatten(),
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
        let caller = Caller::of(call_telemetry::key_of(credential, &self.settings));
        let scope = CallScope::new(origin, self.telemetry.spans.as_ref());
        ObservedCall::new(scope, read, |result, scope| {
            let outcome = match result {
                None => call_telemetry::CANCELLED,
                Some(Ok(_)) => "ok",
                Some(Err(e)) => {
                    call_telemetry::known_code(failure(e)).unwrap_or(call_telemetry::OTHER_ERROR)
                }
            };
            call_telemetry::resource_read(resource, outcome, started, caller, scope);
        })
        .await
    }

    /// Reads Keeper for a resource (`resources/read`), unrecorded: only
    /// inside [`Toolbox::read_resource`], which records the read. No tool
    /// call: a resource is served when the Lorebase tools are
    /// ([`ToolView::serves_origin`]), whatever the tool selection; it reads and
    /// renders as the read `read` names does (the same checks, the same text).
    pub async fn read_for_resource(
        &self,
        read: ResourceRead<'_>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        let (name, arguments) = read.as_call();
        self.built_in
            .call(name, arguments, credential, None)
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
        let key = credential.and_then(|c| call_telemetry::key_of(c, &self.settings));
        let label = self.metric_label(name, tool_origin);
        let empty = Map::new();
        let scope =
            call_telemetry::audit_scope(tool_origin, arguments.unwrap_or(&empty), &self.settings);
        call_telemetry::refused(&self.telemetry, name, label, outcome, key, scope, origin);
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
        let builtin = table::row(name).map(|(_, t)| t.name);
        call_telemetry::label(name, origin, builtin)
    }

    /// The group `name` belongs to (`reads`, `provenance`, `revisions`,
    /// `agent`, `kb`, `remote`); `None`: no such tool.
    pub fn group_of(&self, name: &str) -> Option<&'static str> {
        match table::row(name) {
            Some((_, t)) => Some(t.group),
            None => self.remote.defines(name).then_some(REMOTE_GROUP),
        }
    }

    /// Every group name a narrowing may use.
    pub fn group_names() -> impl Iterator<Item = &'static str> {
        GROUPS.into_iter().chain([KB_GROUP, REMOTE_GROUP])
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

    /// Runs the call in the source that defines `name`.
    async fn dispatch(
        &self,
        origin: Option<ToolOrigin>,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        caller: Option<&OAuthCaller>,
    ) -> Result<RenderedOutput, ToolCallError> {
        match origin {
            Some(ToolOrigin::Lorebase | ToolOrigin::Kb) => {
                self.call_in(&self.built_in, name, arguments, credential, caller)
                    .await
            }
            Some(ToolOrigin::Remote) => {
                self.call_in(&self.remote, name, arguments, credential, caller)
                    .await
            }
            None => Err(ToolCallError::UnknownTool(name.to_string())),
        }
    }

    /// Calls `name` in the source that defines it, when it still serves it
    /// (the view served it).
    async fn call_in<S: ToolSource>(
        &self,
        source: &S,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        caller: Option<&OAuthCaller>,
    ) -> Result<RenderedOutput, ToolCallError> {
        let unknown = || ToolCallError::UnknownTool(name.to_string());
        match source.serves(name) {
            Some(_) => source
                .call(name, arguments, credential, caller)
                .await
                .ok_or_else(unknown),
            None => Err(unknown()),
        }
    }
}

/// The tools one caller sees ([`Toolbox::view`]). Cheap: it borrows.
#[derive(Debug, Clone, Copy)]
pub struct ToolView<'a> {
    toolbox: &'a Toolbox,
    narrowing: Option<&'a ToolNarrowing>,
    audience: Audience<'a>,
}

impl<'a> ToolView<'a> {
    fn new(
        toolbox: &'a Toolbox,
        narrowing: Option<&'a ToolNarrowing>,
        audience: Audience<'a>,
    ) -> Self {
        Self {
            toolbox,
            narrowing: narrowing.filter(|n| !n.is_none()),
            audience,
        }
    }

    /// Whether the tool `name` is served to this caller (copies no definition).
    pub fn serves(&self, name: &str) -> bool {
        self.serving(name) == Serving::Served
    }

    /// Whether any tool of the family `origin` is served to this caller:
    /// what turns on what a family brings besides its tools (the Lorebase
    /// family: the resources, the prompt and completion; the server
    /// instructions' paragraphs). Remote tools count once discovered.
    pub fn serves_origin(&self, origin: ToolOrigin) -> bool {
        match origin {
            ToolOrigin::Remote => !self.remote_definitions().is_empty(),
            _ => self
                .toolbox
                .built_in_names()
                .filter(|name| self.toolbox.origin_of(name) == Some(origin))
                .any(|name| self.serves(name)),
        }
    }

    /// Whether the tool `name` is served to this caller, and if not, why.
    pub fn serving(&self, name: &str) -> Serving {
        let Some(origin) = self.toolbox.origin_of(name) else {
            return Serving::NotServed;
        };
        let Some(writes) = self.toolbox.source_serves(origin, name) else {
            return Serving::NotServed;
        };
        if !selection::serves(&self.toolbox.settings().tools, name, writes) {
            return Serving::NotServed;
        }
        if !self
            .narrowing
            .is_none_or(|n| n.serves(name, self.toolbox.group_of(name), writes))
        {
            return Serving::NotServed;
        }
        match origin {
            ToolOrigin::Remote => self.remote_serving(name),
            _ => Serving::Served,
        }
    }

    /// The audience's rule for the tools of remote servers
    /// ([`super::serving`]).
    fn remote_serving(&self, name: &str) -> Serving {
        match self.server_of(name) {
            Some(server) => remote_serving(self.audience, server),
            None => Serving::NotServed,
        }
    }

    /// The settings of the server of the remote tool `name`.
    fn server_of(&self, name: &str) -> Option<&'a McpServerSettings> {
        let tool = self.toolbox.remote().find(name)?;
        self.toolbox
            .settings()
            .mcp
            .servers
            .iter()
            .find(|s| s.name == tool.server)
    }

    /// The built-in definitions served to this caller, in table order.
    pub fn local_definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.toolbox.built_in_definitions();
        defs.retain(|d| self.serves(&d.name));
        defs
    }

    /// The discovered remote definitions served to this caller.
    pub fn remote_definitions(&self) -> Vec<ToolDefinition> {
        self.toolbox
            .remote()
            .definitions()
            .into_iter()
            .filter(|d| self.toolbox.origin_of(&d.name) == Some(ToolOrigin::Remote))
            .filter(|d| self.serves(&d.name))
            .collect()
    }

    /// Every definition served to this caller: the built-in ones, then the
    /// remote ones.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.local_definitions();
        defs.extend(self.remote_definitions());
        defs
    }

    /// Calls a tool served to this caller ([`Toolbox::call_from`]'s
    /// observation and argument handling); one not served is
    /// [`ToolCallError::UnknownTool`], one forbidden a `[forbidden]` tool
    /// error (recorded as such).
    pub async fn call_from(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        origin: &CallOrigin<'_>,
    ) -> Result<RenderedOutput, ToolCallError> {
        let serving = self.serving(name);
        if let Serving::Forbidden { server, scope } = &serving {
            let code = ProblemCode::Forbidden.as_str();
            self.toolbox
                .record_refused(name, code, Some(credential), Some(&arguments), origin);
            return Ok(forbidden(name, server, scope).to_output(&self.toolbox.settings().output));
        }
        let caller = match self.audience {
            Audience::OAuth(caller) => Some(caller),
            _ => None,
        };
        self.toolbox
            .observed_call(
                name,
                arguments,
                credential,
                origin,
                serving == Serving::Served,
                caller,
            )
            .await
    }
}

/// The toolbox's calls and lists through a view: one agent's
/// ([`Audience::OneAgent`], no narrowing) unless the caller builds its own.
impl Toolbox {
    /// `tools.allow` must name served tools (see [`selection::check`]):
    /// the built-in tools [`ToolView::serves`] for one agent.
    pub(super) fn check_selection(&self) -> Result<(), ToolboxError> {
        let sel = &self.settings().tools;
        if sel.allow.is_none() && sel.deny.is_empty() {
            return Ok(());
        }
        let view = self.view(None, Audience::OneAgent);
        let served: Vec<&str> = self.built_in_names().filter(|n| view.serves(n)).collect();
        let existing: Vec<&str> = self.built_in_names().collect();
        selection::check(sel, &served, &existing).map_err(ToolboxError::Selection)
    }

    /// The built-in definitions served (Lorebase, then KB), narrowed by the
    /// tool selection, in table order: [`Toolbox::view`] for one agent.
    pub fn local_definitions(&self) -> Vec<ToolDefinition> {
        self.view(None, Audience::OneAgent).local_definitions()
    }

    /// The discovered remote definitions served: those whose name no built-in
    /// tool takes, narrowed by the tool selection (`tools.read_only` drops
    /// every remote tool the server does not declare read-only).
    pub fn remote_definitions(&self) -> Vec<ToolDefinition> {
        self.view(None, Audience::OneAgent).remote_definitions()
    }

    /// The tools one caller sees: the settings' selection, the audience's
    /// rule for remote servers' tokens and the request's narrowing, in one
    /// value that lists them and serves calls ([`ToolView`]).
    pub fn view<'a>(
        &'a self,
        narrowing: Option<&'a ToolNarrowing>,
        audience: Audience<'a>,
    ) -> ToolView<'a> {
        ToolView::new(self, narrowing, audience)
    }

    /// The definitions of the tools served, in table order: the Lorebase tools,
    /// then the KB tools when a catalog is open, then the discovered remote
    /// tools; `tools.read_only` drops `lorebase_execute` (and remote tools not
    /// declared read-only), then the allow and deny lists apply.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.view(None, Audience::OneAgent).definitions()
    }

    /// Calls one tool. Tool failures are `Ok` with `is_error: true`; only a
    /// caller's programming error (a tool not served) is `Err`.
    ///
    /// The call gets a new trace and request id; [`Toolbox::call_from`]
    /// continues a caller's.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        self.call_from(name, arguments, credential, &CallOrigin::default())
            .await
    }

    /// [`Toolbox::call`] for a caller that sent a trace context or a request
    /// id (`origin`): its Keeper requests carry them.
    ///
    /// Every call of every front end passes here, once: it is counted
    /// (`tool_calls_total`, its latency, calls in flight), runs in its
    /// [`CallScope`] (the trace and request id
    /// its Keeper requests carry), and gets its audit line and, when traces
    /// are exported, its span. A call dropped before it ends is recorded as
    /// `cancelled`.
    ///
    /// The arguments hosts add for themselves ([`crate::tool_interface::HOST_ADDED_ARGUMENTS`]:
    /// Gemini CLI's `wait_for_previous`) are dropped here, before any check,
    /// unless the tool declares them.
    ///
    /// The caller is one agent ([`Audience::OneAgent`]); a front end serving
    /// many calls through [`Toolbox::view`]'s [`ToolView::call_from`].
    pub async fn call_from(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        origin: &CallOrigin<'_>,
    ) -> Result<RenderedOutput, ToolCallError> {
        self.view(None, Audience::OneAgent)
            .call_from(name, arguments, credential, origin)
            .await
    }
}
