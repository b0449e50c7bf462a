//! The MCP handler: tools, resources, the prompt and completion, over one
//! [`Toolbox`]. The same handler serves stdio and Streamable HTTP; only the
//! way it finds a call's credential differs ([`CallerAuth`]).

use std::sync::Arc;

use axum::http::request::Parts;
use herald_core::keeper::model::ProblemCode;
use herald_core::telemetry::CallOrigin;
use herald_core::tool_interface::ErrorCode;
use herald_core::tools::{
    Audience, RenderedOutput, Serving, ToolCallError, ToolNarrowing, ToolOrigin, ToolView, Toolbox,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::model::{
    DiscoverResult, Extensions, GetSkillRequestParams, GetSkillResult, ListSkillsResult,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::mcp::call_tracking::CallTracking;
use crate::mcp::credential::{CallerAuth, oauth_caller};
use crate::mcp::domain_hints::DomainHints;
use crate::mcp::instructions::instructions;
use crate::mcp::skills::{Reader, ServedSkills, is_skill_uri};
use crate::mcp::tool_forms::ToolForms;
use crate::mcp::{completion, malformed_params, prompt, removed_methods, resources, views};

/// The server's name in `serverInfo`.
pub(crate) const SERVER_NAME: &str = "lorebase-herald";

/// How long a host may keep the tool list (and the discovery answer) when
/// no remote server is configured: the list is fixed for a given
/// configuration (a restart with other settings is a new process).
pub(crate) const FIXED_LIST_TTL_MS: u64 = 3_600_000;

/// The same with remote servers that are re-discovered only on SIGHUP
/// (`mcp.refresh_interval_s: 0`): their tools may come and go.
pub(crate) const REMOTE_LIST_TTL_MS: u64 = 60_000;

/// Whether the request was made under protocol 2026-07-28 or later (its
/// results carry cache hints; older revisions do not define them).
fn speaks_2026_07_28(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The MCP server handler. Cheap to clone (one per HTTP request in
/// stateless mode).
#[derive(Clone)]
pub struct HeraldServer {
    inner: Arc<Inner>,
}

struct Inner {
    toolbox: Toolbox,
    /// The MCP form of the built-in tools (which a request sees: its view).
    tools: ToolForms,
    auth: CallerAuth,
    /// The view serves Lorebase tools: resources, the prompt and completion
    /// are served (else KB-only: none of them).
    lorebase: bool,
    /// Some skill is served (`crate::mcp::skills`): the skills extension
    /// is declared, with the resources its files are read through.
    skills: bool,
    /// What `get_info` answers, made once: rmcp asks for it on every
    /// stateless HTTP request (capabilities, server info, the instructions).
    info: ServerConfig,
    /// The Domain's words in the tools' search hints (`crate::mcp::domain_hints`).
    hints: Arc<DomainHints>,
}

impl std::fmt::Debug for HeraldServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeraldServer")
            .field("tools", &self.inner.tools.names(&self.view(None, None)))
            .field("auth", &self.inner.auth)
            .finish()
    }
}

impl HeraldServer {
    /// The cache lifetime of the tool list: an hour when it is fixed, the
    /// re-discovery interval (else a minute) with remote servers.
    fn list_ttl_ms(&self) -> u64 {
        let toolbox = &self.inner.toolbox;
        if toolbox.remote().is_empty() {
            return FIXED_LIST_TTL_MS;
        }
        match toolbox.settings().mcp.refresh_interval_s {
            0 => REMOTE_LIST_TTL_MS,
            s => (s * 1000).min(FIXED_LIST_TTL_MS),
        }
    }

    /// A handler serving `toolbox`'s tools (`tools`: their MCP form) as each
    /// request's view serves them; resources, the prompt and completion
    /// when the view serves the Lorebase tools.
    pub fn new(toolbox: Toolbox, tools: ToolForms, auth: CallerAuth) -> Self {
        let served = toolbox.view(None, Audience::OneAgent);
        let lorebase = served.serves_origin(ToolOrigin::Lorebase);
        let kb = served.serves_origin(ToolOrigin::Kb);
        let remote = !toolbox.remote().is_empty();
        let instructions = instructions(lorebase, kb, remote);
        let hints = Arc::new(DomainHints::new(lorebase && auth == CallerAuth::Configured));
        let skills = lorebase || kb;
        Self {
            inner: Arc::new(Inner {
                toolbox,
                tools,
                auth,
                lorebase,
                skills,
                info: server_config(lorebase, skills, remote, instructions),
                hints,
            }),
        }
    }

    fn require_lorebase<M: rmcp::model::ConstString>(&self) -> Result<(), McpError> {
        if self.inner.lorebase {
            Ok(())
        } else {
            Err(McpError::method_not_found::<M>())
        }
    }

    /// The toolbox.
    pub fn toolbox(&self) -> &Toolbox {
        &self.inner.toolbox
    }

    /// The MCP form of the built-in tools.
    pub fn tools(&self) -> &ToolForms {
        &self.inner.tools
    }

    /// Who a request comes from: one agent (stdio), a caller of a shared
    /// Herald with its own key (Streamable HTTP), or an OAuth caller and
    /// what its token holds (from the gate, in `extensions`; without it,
    /// as restricted as a caller with a key).
    fn audience<'a>(&self, extensions: Option<&'a Extensions>) -> Audience<'a> {
        match self.inner.auth {
            CallerAuth::Configured => Audience::OneAgent,
            CallerAuth::HttpBearer { .. } => Audience::SharedHttp,
            CallerAuth::OAuth => extensions
                .and_then(oauth_caller)
                .map_or(Audience::SharedHttp, Audience::OAuth),
        }
    }

    /// The tools a request sees (core's [`ToolView`]: the selection, the
    /// audience's rule for remote servers' credentials, the request's narrowing).
    fn view<'a>(
        &'a self,
        narrowing: Option<&'a ToolNarrowing>,
        extensions: Option<&'a Extensions>,
    ) -> ToolView<'a> {
        self.inner
            .toolbox
            .view(narrowing, self.audience(extensions))
    }

    /// Whether this request's client renders the MCP Apps views: it declared
    /// the extension (`crate::mcp::views`) and `ui.enabled` is on.
    fn renders_views(&self, capabilities: Option<&rmcp::model::ClientCapabilities>) -> bool {
        self.inner.lorebase
            && self.inner.toolbox.settings().ui.enabled
            && views::declared(capabilities)
    }

    /// Starts reading the Domain's words for the tools' search hints, so the
    /// host's first `tools/list` does not wait for Keeper
    /// (`crate::mcp::domain_hints`).
    pub(crate) fn prefetch_hints(&self) {
        self.inner.hints.prefetch(&self.inner.toolbox);
    }

    /// Every tool served now: the built-in ones, then the remote tools
    /// discovered so far (`mcp.servers`, re-discovered while serving).
    pub fn current_tools(&self) -> Vec<Tool> {
        self.tools_for(self.view(None, None))
    }

    /// The tools served to a request, in their MCP form: the built-in ones
    /// (made once), then the remote ones, as its view serves them.
    fn tools_for(&self, view: ToolView<'_>) -> Vec<Tool> {
        self.inner.tools.served(&view)
    }

    /// A tool call (`tools/call`), run by [`ServerHandler::call_tool`]
    /// unless it is cancelled first.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        if name == "lorebase_schema" {
            // The schema may have changed: the next listing reads its words again.
            self.inner.hints.schema_read();
        }
        let origin = call_origin(context);
        let narrowing = narrowing(context);
        let toolbox = &self.inner.toolbox;
        let credential = self.inner.auth.credential(&context.extensions);
        let arguments = request.arguments.as_ref();
        let view = self.view(narrowing, Some(&context.extensions));
        // The check copies no tool definition; a forbidden tool is the
        // view's `[forbidden]` tool error.
        if view.serving(name) == Serving::NotServed {
            let code = ErrorCode::UnknownTool.as_str();
            toolbox.record_refused(name, code, credential.as_ref().ok(), arguments, &origin);
            return Err(unknown_tool(name, &self.tools_for(view)));
        }
        // Only a call of a Lorebase tool reaches Keeper: with OAuth on, its
        // token for Keeper is had now (exchanged), never for a KB or remote one.
        let credential = match credential {
            Ok(_) if toolbox.origin_of(name) == Some(ToolOrigin::Lorebase) => {
                self.inner.auth.keeper_credential(&context.extensions).await
            }
            other => other,
        };
        let credential = match credential {
            Ok(c) => c,
            Err(e) => {
                let code = ProblemCode::Unauthorized.as_str();
                toolbox.record_refused(name, code, None, arguments, &origin);
                let caps = &toolbox.settings().output;
                return Ok(to_call_result(e.to_output(caps)).into());
            }
        };
        let arguments = request.arguments.unwrap_or_default();
        match view.call_from(name, arguments, &credential, &origin).await {
            Ok(out) => {
                let auth = &self.inner.auth;
                auth.note_answer(&context.extensions, out.is_error, &out.text);
                Ok(to_call_result(out).into())
            }
            Err(ToolCallError::UnknownTool(_)) => Err(unknown_tool(name, &self.tools_for(view))),
            Err(e @ (ToolCallError::BadArguments(_) | ToolCallError::EmptyApiKey)) => {
                Err(McpError::invalid_params(e.to_string(), None))
            }
        }
    }

    /// The skills served to a request: those of the tools its view serves.
    fn skills_for(&self, context: &RequestContext<RoleServer>) -> ServedSkills {
        let view = self.view(narrowing(context), Some(&context.extensions));
        ServedSkills::new(&Reader {
            lorebase: view.serves_origin(ToolOrigin::Lorebase),
            kb: view.serves_origin(ToolOrigin::Kb),
            serves: &|name| view.serves(name),
        })
    }

    /// The served tool called `name`, built-in or remote.
    fn served_tool(&self, name: &str) -> Option<Tool> {
        let remote = self.inner.toolbox.remote();
        self.inner
            .tools
            .served_tool(&self.view(None, None), remote, name)
    }
}

/// What the server declares (`get_info`): its capabilities for what is
/// served (`lorebase`, `skills`, `remote` servers configured), its name and
/// its `instructions`.
// `logging` is deprecated by SEP-2577 (2026-07-28) but still part of the
// revisions hosts speak today; Herald accepts `logging/setLevel`.
#[allow(deprecated)]
fn server_config(lorebase: bool, skills: bool, remote: bool, instructions: String) -> ServerConfig {
    let capabilities = if lorebase {
        ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build()
    } else if skills {
        // KB-only: the knowledge-base tools, nothing that needs Keeper;
        // resources only for the `kb` skill's files.
        ServerCapabilities::builder()
            .enable_logging()
            .enable_resources()
            .enable_tools()
            .build()
    } else {
        ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .build()
    };
    let mut capabilities = capabilities;
    if skills {
        capabilities = skills_declared(capabilities);
    }
    if remote && let Some(tools) = capabilities.tools.as_mut() {
        // Remote tools come and go with re-discovery.
        tools.list_changed = Some(true);
    }
    ServerConfig::new(capabilities)
        .with_server_info(
            Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
                .with_title("Lorebase Herald")
                .with_description("A Lorebase Domain as MCP tools, resources and a prompt"),
        )
        .with_instructions(instructions)
}

/// `capabilities` with the skills extension declared (SEP-2640; hosts that
/// do not know it ignore the entry, and nothing else changes for them).
fn skills_declared(capabilities: ServerCapabilities) -> ServerCapabilities {
    let declared = ServerCapabilities::builder().enable_skills().build();
    let mut capabilities = capabilities;
    let extensions = capabilities.extensions.get_or_insert_with(Default::default);
    extensions.extend(declared.extensions.into_iter().flatten());
    capabilities
}

/// The HTTP request of a call, when it came over Streamable HTTP.
fn http_parts(context: &RequestContext<RoleServer>) -> Option<&Parts> {
    context.extensions.get::<Parts>()
}

/// The request's tool narrowing (put there by
/// [`crate::http::tool_headers::narrow`]).
fn narrowing(context: &RequestContext<RoleServer>) -> Option<&ToolNarrowing> {
    http_parts(context).and_then(|p| p.extensions.get::<ToolNarrowing>())
}

/// What the caller sent to continue its trace and name the call: the MCP
/// request's `_meta.traceparent`/`tracestate` first, else the HTTP headers
/// of the same names, and the HTTP `X-Request-Id`.
fn call_origin(context: &RequestContext<RoleServer>) -> CallOrigin<'_> {
    let header = |name: &str| {
        http_parts(context)
            .and_then(|p| p.headers.get(name))
            .and_then(|v| v.to_str().ok())
    };
    let meta_traceparent = context.meta.get_traceparent();
    let (traceparent, tracestate) = match meta_traceparent {
        Some(parent) => (Some(parent), context.meta.get_tracestate()),
        None => (header("traceparent"), header("tracestate")),
    };
    CallOrigin {
        traceparent,
        tracestate,
        request_id: header("x-request-id"),
    }
}

/// The JSON-RPC code of a cancelled request's answer (nobody reads it: rmcp
/// drops the answer to a `notifications/cancelled`, and an HTTP client that
/// left has no connection to read it on).
const REQUEST_CANCELLED: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32800);

/// Runs `work` unless the request is cancelled first: `notifications/cancelled`,
/// or over HTTP a client that closed its connection (rmcp cancels the
/// request's token and leaves the rest to the handler). Then `work` is
/// dropped at once: its Keeper request is aborted (Keeper sees the
/// connection close) and the call is audited and counted `cancelled`.
/// Over stateless HTTP, the request is kept among the calls in flight
/// meanwhile, for a `notifications/cancelled` POST to find it
/// ([`crate::mcp::call_tracking`]).
async fn unless_cancelled<T>(
    context: &RequestContext<RoleServer>,
    work: impl Future<Output = Result<T, McpError>>,
) -> Result<T, McpError> {
    let _tracked = http_parts(context).and_then(|parts| {
        let calls = parts.extensions.get::<CallTracking>()?;
        Arc::clone(&calls.0).track(parts, &context.id, context.ct.clone())
    });
    tokio::select! {
        biased;
        () = context.ct.cancelled() => {
            tracing::debug!(id = %context.id, "request cancelled: its work stopped");
            Err(McpError::new(REQUEST_CANCELLED, "Request cancelled", None))
        }
        done = work => done,
    }
}

/// A rendered answer as an MCP tool result: the text block, `isError`, and
/// `structuredContent` for the `json` format.
pub(crate) fn to_call_result(out: RenderedOutput) -> CallToolResult {
    let content = vec![ContentBlock::text(out.text)];
    let mut result = if out.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    if !out.is_error {
        result.structured_content = out.structured;
    }
    result
}

/// The protocol error for an unknown tool: JSON-RPC invalid params (-32602),
/// as the MCP specification says, with the tools `available` to the caller.
pub(crate) fn unknown_tool(name: &str, available: &[Tool]) -> McpError {
    let mut shown: String = name.chars().take(100).collect();
    if shown.len() < name.len() {
        shown.push('…');
    }
    McpError::invalid_params(
        format!("Unknown tool: {shown:?}"),
        Some(serde_json::json!({
            "available": available.iter().map(|t| t.name.as_ref()).collect::<Vec<&str>>()
        })),
    )
}

impl ServerHandler for HeraldServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    /// `initialize`: as rmcp negotiates it, with the MCP Apps extension
    /// declared back to a client that declared it.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        if self.renders_views(Some(&request.capabilities)) {
            views::declare(&mut result.capabilities);
        }
        Ok(result)
    }

    /// `server/discover` (protocol 2026-07-28): what that revision defines,
    /// with a real cache lifetime. `logging` is left out: 2026-07-28 removed
    /// it (SEP-2577); `initialize` under the older revisions still declares it.
    #[allow(deprecated)]
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        let mut info = self.get_info();
        info.capabilities.logging = None;
        if self.renders_views(context.client_capabilities().as_ref()) {
            views::declare(&mut info.capabilities);
        }
        Ok(
            DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), info)
                .with_ttl_ms(self.list_ttl_ms()),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let view = self.view(narrowing(&context), Some(&context.extensions));
        let mut tools = self.tools_for(view);
        let inner = &self.inner;
        // Boxed, as a call is (`call_tool`): it may read the schema from Keeper.
        Box::pin(inner.hints.apply(&inner.toolbox, &mut tools)).await;
        if self.renders_views(context.client_capabilities().as_ref()) {
            // A view may call Herald's read tools, never a write nor a
            // remote server's tool.
            views::link(&mut tools, |t| inner.tools.is_built_in_read(&t.name));
        }
        let mut result = ListToolsResult::with_all_items(tools);
        if speaks_2026_07_28(&context) {
            result.ttl_ms = Some(self.list_ttl_ms());
        }
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.served_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Boxed: the call's future (its Keeper request and rendering inside)
        // is many kilobytes, and rmcp spawns a task per request sized for the
        // largest handler future; moved and copied inline, it cost more than
        // the allocation (docs/benchmarks.md, "Herald against the floor").
        Box::pin(async move { unless_cancelled(&context, self.call(request, &context)).await })
            .await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        if !self.inner.lorebase && self.inner.skills {
            // KB-only: no Keeper resources; the skill files are read by URI.
            return Ok(ListResourcesResult::with_all_items(Vec::new()));
        }
        self.require_lorebase::<rmcp::model::ListResourcesRequestMethod>()?;
        let domain = self.inner.toolbox.settings().domain.as_deref();
        let mut listed = resources::listed(domain);
        if self.renders_views(context.client_capabilities().as_ref()) {
            listed.extend(views::listed());
        }
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        if !self.inner.lorebase && self.inner.skills {
            return Ok(ListResourceTemplatesResult::with_all_items(Vec::new()));
        }
        self.require_lorebase::<rmcp::model::ListResourceTemplatesRequestMethod>()?;
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if self.inner.skills && is_skill_uri(&request.uri) {
            // A skill file: text made by Herald, no Keeper call.
            return match self.skills_for(&context).read(&request.uri) {
                Some(read) => Ok(read.into()),
                None => Err(McpError::resource_not_found(
                    format!(
                        "no skill file {}",
                        request.uri.chars().take(200).collect::<String>()
                    ),
                    None,
                )),
            };
        }
        self.require_lorebase::<rmcp::model::ReadResourceRequestMethod>()?;
        if self.renders_views(context.client_capabilities().as_ref())
            && let Some(view) = views::read(&request.uri)
        {
            // A view is the same static page for everyone: no Keeper read.
            return Ok(view.into());
        }
        let credential = Box::pin(self.inner.auth.keeper_credential(&context.extensions))
            .await
            .map_err(|e| McpError::invalid_request(format!("[unauthorized] {e}"), None))?;
        // A resource read is not a tool call: audited as `resource read`.
        let toolbox = &self.inner.toolbox;
        let origin = call_origin(&context);
        let read = resources::read(toolbox, &request.uri, &credential);
        let (template, domain) = resources::ResourceUri::audited(&request.uri);
        let audited = (template, domain.as_str());
        let reading = toolbox.read_resource(audited, &credential, &origin, |e| &e.message, read);
        unless_cancelled(&context, Box::pin(reading))
            .await
            .inspect_err(|e| {
                let auth = &self.inner.auth;
                auth.note_answer(&context.extensions, true, &e.message);
            })
            .map(Into::into)
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let mut result = self.skills_for(&context).list();
        if speaks_2026_07_28(&context) {
            // The skills change only with the tools served (the same lifetime).
            result.ttl_ms = Some(self.list_ttl_ms());
        }
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let got = self.skills_for(&context).get(&request.uri)?;
        Ok(if speaks_2026_07_28(&context) {
            got.with_ttl_ms(self.list_ttl_ms())
        } else {
            got
        })
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.require_lorebase::<rmcp::model::ListPromptsRequestMethod>()?;
        Ok(ListPromptsResult::with_all_items(
            vec![prompt::definition()],
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.require_lorebase::<rmcp::model::GetPromptRequestMethod>()?;
        if request.name != prompt::GUIDE_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "Unknown prompt: {:?}; the prompt is {}",
                    request.name.chars().take(100).collect::<String>(),
                    prompt::GUIDE_NAME
                ),
                None,
            ));
        }
        let domain = self.inner.toolbox.settings().domain.as_deref();
        prompt::render(request.arguments.as_ref(), domain).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.require_lorebase::<rmcp::model::CompleteRequestMethod>()?;
        let credential = Box::pin(self.inner.auth.keeper_credential(&context.extensions))
            .await
            .ok();
        let completing = completion::complete(&self.inner.toolbox, &request, credential.as_ref());
        unless_cancelled(&context, Box::pin(async { Ok(completing.await) })).await
    }

    /// A request rmcp could not parse: invalid params (-32602) for a method
    /// Herald serves whose params have the wrong shape, method not found
    /// (-32601) for any other.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        let method = request.method.as_str();
        if let Some(e) =
            removed_methods::not_found_under(method, context.protocol_version().as_ref())
        {
            return Err(e);
        }
        if let Some(e) = malformed_params::invalid_params(method, request.params.as_ref()) {
            tracing::debug!(
                method,
                "refused a request whose params do not fit its method"
            );
            return Err(e);
        }
        let shown: String = method.chars().take(100).collect();
        Err(McpError::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            shown,
            None,
        ))
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let method = <rmcp::model::SetLevelRequestMethod as rmcp::model::ConstString>::VALUE;
        if let Some(e) =
            removed_methods::not_found_under(method, context.protocol_version().as_ref())
        {
            return Err(e);
        }
        // Herald's logs go to stderr (or the HTTP server's log); it sends no
        // log notifications, so any level is accepted.
        tracing::debug!(level = ?request.level, "client set the MCP log level");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_output_becomes_structured_content() {
        let r = to_call_result(RenderedOutput {
            text: "{\"a\":1}".into(),
            is_error: false,
            structured: Some(json!({"a": 1})),
        });
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["isError"], false);
        assert_eq!(v["structuredContent"], json!({"a": 1}));
        assert_eq!(v["content"][0]["text"], "{\"a\":1}");
    }

    #[test]
    fn tool_errors_carry_is_error_and_no_structure() {
        let r = to_call_result(RenderedOutput {
            text: "[not-found] no Record".into(),
            is_error: true,
            structured: Some(json!({"ignored": true})),
        });
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["isError"], true);
        assert!(v.get("structuredContent").is_none());
        assert_eq!(v["content"][0]["text"], "[not-found] no Record");
    }

    #[test]
    fn unknown_tool_is_invalid_params() {
        let e = unknown_tool(&"x".repeat(1000), &[]);
        assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(e.message.len() < 200);
    }
}
