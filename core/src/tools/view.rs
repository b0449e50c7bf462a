//! Which tools one request sees: the one answer to "is this tool served to
//! this caller?", for listing and for calling, in every front end.
//!
//! A [`ToolView`] puts together, in this order:
//! - the tool selection of the settings (`tools.read_only`, `tools.allow`,
//!   `tools.deny`: [`super::selection`]);
//! - a built-in tool winning a name collision with a remote one;
//! - who asks ([`Audience`]) and whose credential the calls of a remote
//!   server carry (`mcp.servers[].credential`, [`RemoteGrant`]):
//!   - one agent (stdio, in-process) is served every remote server's tools
//!     but those of `credential: exchange` servers (it has no token to
//!     exchange);
//!   - the callers of a shared Herald with Lorebase API keys are not served
//!     the tools of a server called with Herald's own token
//!     (`token_env`), since Herald cannot check a caller's key itself and
//!     anyone reaching it would borrow that token; nor those of exchange
//!     servers (no OAuth token);
//!   - an OAuth caller is served a remote server's tools when its token
//!     holds the server's scope ([`McpServerSettings::required_scope`]: for
//!     a server called with Herald's own token, `scope` or
//!     `herald:remote:<name>` by default, so that no one borrows Herald's
//!     token unless an operator granted it). Without it, the tools are not
//!     listed and a call is `[forbidden]`;
//! - the request's narrowing ([`ToolNarrowing`]: `X-MCP-Readonly`,
//!   `X-MCP-Toolsets`, `X-MCP-Tools`), which only narrows.
//!
//! The [`Toolbox`]'s own lists and calls (`definitions`, `call`,
//! `call_from`, the check of `tools.allow`) are those of one agent's view,
//! so they are here too.

use serde_json::{Map, Value};

use super::selection::{self, ToolNarrowing};
use super::source::ToolOrigin;
use super::toolbox::{Toolbox, ToolboxError};
use crate::config::{McpServerSettings, RemoteCredential, RemoteGrant};
use crate::error::ToolError;
use crate::keeper::Credential;
use crate::keeper::model::ProblemCode;
use crate::remote::OAuthCaller;
use crate::telemetry::CallOrigin;
use crate::tool::{RenderedOutput, ToolCallError, ToolDefinition};

/// Who a view is for.
#[derive(Debug, Clone, Copy)]
pub enum Audience<'a> {
    /// One agent: stdio, the `call` command, the bindings in-process. Every
    /// selected tool is served, the remote servers' whatever their token
    /// (but `credential: exchange` servers').
    OneAgent,
    /// The callers of a shared Herald over Streamable HTTP, each with its own
    /// Lorebase API key: the tools of remote servers called with Herald's own
    /// token are hidden.
    SharedHttp,
    /// One caller of a shared Herald with OAuth on, and what its token holds.
    OAuth(&'a OAuthCaller),
}

/// Whether a tool is served to one caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Listed and callable.
    Served,
    /// Not a tool of this caller (an unknown name, one the selection or the
    /// narrowing leaves out): not listed, and a call is an unknown tool.
    NotServed,
    /// A remote tool this caller's token lacks the grant for (the scope
    /// named): not listed, and a call is a `[forbidden]` tool error.
    Forbidden {
        /// The remote server.
        server: String,
        /// The scope the caller's token lacks.
        scope: String,
    },
}

/// The tools one caller sees ([`Toolbox::view`]). Cheap: it borrows.
#[derive(Debug, Clone, Copy)]
pub struct ToolView<'a> {
    toolbox: &'a Toolbox,
    narrowing: Option<&'a ToolNarrowing>,
    audience: Audience<'a>,
}

impl<'a> ToolView<'a> {
    pub(super) fn new(
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
    pub fn admits(&self, name: &str) -> bool {
        self.access(name) == Access::Served
    }

    /// Whether any tool of the family `origin` is served to this caller:
    /// what turns on what a family brings besides its tools (the Lorebase
    /// family: the resources, the prompt and completion; the server
    /// instructions' paragraphs). Remote tools count once discovered.
    pub fn serves(&self, origin: ToolOrigin) -> bool {
        match origin {
            ToolOrigin::Remote => !self.remote_definitions().is_empty(),
            _ => self
                .toolbox
                .built_in_names()
                .filter(|name| self.toolbox.origin_of(name) == Some(origin))
                .any(|name| self.admits(name)),
        }
    }

    /// Whether the tool `name` is served to this caller, and if not, why.
    pub fn access(&self, name: &str) -> Access {
        let Some(origin) = self.toolbox.origin_of(name) else {
            return Access::NotServed;
        };
        let Some(writes) = self.toolbox.offered(origin, name) else {
            return Access::NotServed;
        };
        if !selection::serves(&self.toolbox.settings().tools, name, writes) {
            return Access::NotServed;
        }
        if !self
            .narrowing
            .is_none_or(|n| n.admits(name, self.toolbox.group_of(name), writes))
        {
            return Access::NotServed;
        }
        match origin {
            ToolOrigin::Remote => self.remote_access(name),
            _ => Access::Served,
        }
    }

    /// The audience's rule for the tools of remote servers (see the module
    /// documentation).
    fn remote_access(&self, name: &str) -> Access {
        let Some(server) = self.server_of(name) else {
            return Access::NotServed;
        };
        let exchange = matches!(server.grant.credential, RemoteCredential::Exchange { .. });
        match self.audience {
            Audience::OneAgent if exchange => Access::NotServed,
            Audience::OneAgent => Access::Served,
            Audience::SharedHttp if exchange || server.uses_heralds_token() => Access::NotServed,
            Audience::SharedHttp => Access::Served,
            Audience::OAuth(caller) => match server.required_scope() {
                Some(scope) if !caller.holds(&scope) => Access::Forbidden {
                    server: server.name.clone(),
                    scope,
                },
                _ => Access::Served,
            },
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
        defs.retain(|d| self.admits(&d.name));
        defs
    }

    /// The discovered remote definitions served to this caller.
    pub fn remote_definitions(&self) -> Vec<ToolDefinition> {
        self.toolbox
            .remote()
            .definitions()
            .into_iter()
            .filter(|d| self.toolbox.origin_of(&d.name) == Some(ToolOrigin::Remote))
            .filter(|d| self.admits(&d.name))
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
        let access = self.access(name);
        if let Access::Forbidden { server, scope } = &access {
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
                access == Access::Served,
                caller,
            )
            .await
    }
}

/// The toolbox's calls and lists through a view: one agent's
/// ([`Audience::OneAgent`], no narrowing) unless the caller builds its own.
impl Toolbox {
    /// `tools.allow` must name served tools (see [`selection::check`]):
    /// the built-in tools [`ToolView::admits`] for one agent.
    pub(super) fn check_selection(&self) -> Result<(), ToolboxError> {
        let sel = &self.settings().tools;
        if sel.allow.is_none() && sel.deny.is_empty() {
            return Ok(());
        }
        let view = self.view(None, Audience::OneAgent);
        let served: Vec<&str> = self.built_in_names().filter(|n| view.admits(n)).collect();
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
    /// value that lists them and admits calls ([`ToolView`]).
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
    /// [`CallScope`](crate::telemetry::CallScope) (the trace and request id
    /// its Keeper requests carry), and gets its audit line and, when traces
    /// are exported, its span. A call dropped before it ends is recorded as
    /// `cancelled`.
    ///
    /// The arguments hosts add for themselves ([`crate::tool::HOST_ADDED_ARGUMENTS`]:
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

/// The `[forbidden]` error of a remote tool whose server's scope the
/// caller's token lacks.
fn forbidden(name: &str, server: &str, scope: &str) -> ToolError {
    let default = scope.starts_with(RemoteGrant::DEFAULT_SCOPE_PREFIX);
    let how = if default {
        "the remote server is called with Herald's own credential, granted per server"
    } else {
        "the operator grants this server's tools by scope"
    };
    ToolError {
        next: Some(format!(
            "do not retry: ask an administrator for the scope {scope} (then sign in again), or use another tool"
        )),
        ..ToolError::new(
            ProblemCode::Forbidden,
            format!(
                "the tool {name} of the remote server {server:?} needs the scope {scope}, which your token lacks ({how})"
            ),
        )
    }
}
