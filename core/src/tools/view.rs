//! Which tools one request sees: the one answer to "is this tool served to
//! this caller?", for listing and for calling, in every front end.
//!
//! A [`ToolView`] puts together, in this order:
//! - the tool selection of the settings (`tools.read_only`, `tools.allow`,
//!   `tools.deny`: [`super::selection`]);
//! - a built-in tool winning a name collision with a remote one;
//! - who asks ([`Audience`]): over Streamable HTTP, where every caller brings
//!   its own key, the tools of a remote server that Herald calls with its own
//!   token (`mcp.servers[].token_env`) are hidden, since Herald cannot check a
//!   caller's key itself and anyone reaching it would borrow that token (serve
//!   such servers over stdio or in-process instead);
//! - the request's narrowing ([`ToolNarrowing`]: `X-MCP-Readonly`,
//!   `X-MCP-Toolsets`, `X-MCP-Tools`), which only narrows.

use serde_json::{Map, Value};

use super::Toolbox;
use super::selection::{self, ToolNarrowing};
use super::source::ToolOrigin;
use crate::keeper::Credential;
use crate::telemetry::CallOrigin;
use crate::tool::{RenderedOutput, ToolCallError, ToolDefinition};

/// Who a view is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// One agent: stdio, the `call` command, the bindings in-process. Every
    /// selected tool is served, the remote servers' whatever their token.
    OneAgent,
    /// The callers of a shared Herald over Streamable HTTP, each with its own
    /// key: the tools of remote servers called with Herald's own token are
    /// hidden.
    SharedHttp,
}

/// The tools one caller sees ([`Toolbox::view`]). Cheap: it borrows.
#[derive(Debug, Clone, Copy)]
pub struct ToolView<'a> {
    toolbox: &'a Toolbox,
    narrowing: Option<&'a ToolNarrowing>,
    audience: Audience,
}

impl<'a> ToolView<'a> {
    pub(super) fn new(
        toolbox: &'a Toolbox,
        narrowing: Option<&'a ToolNarrowing>,
        audience: Audience,
    ) -> Self {
        Self {
            toolbox,
            narrowing: narrowing.filter(|n| !n.is_none()),
            audience,
        }
    }

    /// Whether the tool `name` is served to this caller (copies no definition).
    pub fn admits(&self, name: &str) -> bool {
        let Some(origin) = self.toolbox.origin_of(name) else {
            return false;
        };
        let Some(writes) = self.toolbox.offered(origin, name) else {
            return false;
        };
        if !selection::serves(&self.toolbox.settings().tools, name, writes) {
            return false;
        }
        if origin == ToolOrigin::Remote && self.hides_remote(name) {
            return false;
        }
        self.narrowing
            .is_none_or(|n| n.admits(name, self.toolbox.group_of(name), writes))
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

    /// Whether a remote tool is hidden from this audience (its server is
    /// called with Herald's own token, and the callers share this Herald).
    fn hides_remote(&self, name: &str) -> bool {
        if self.audience != Audience::SharedHttp {
            return false;
        }
        let Some(tool) = self.toolbox.remote().find(name) else {
            return false;
        };
        self.toolbox
            .settings()
            .mcp
            .servers
            .iter()
            .any(|s| s.name == tool.server && s.token_env.is_some())
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
    /// [`ToolCallError::UnknownTool`].
    pub async fn call_from(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        origin: &CallOrigin<'_>,
    ) -> Result<RenderedOutput, ToolCallError> {
        let admitted = self.admits(name);
        self.toolbox
            .observed_call(name, arguments, credential, origin, admitted)
            .await
    }
}
