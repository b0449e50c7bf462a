//! The interface behind which the toolbox finds its tools: the built-in
//! tools (the one table: the Lorebase tools over Keeper, the KB tools over a
//! markdown catalog) and the tools of remote MCP servers (built at run time)
//! are two [`ToolSource`]s, asked in that order, the first that defines a
//! name answering for it.

use std::future::Future;

use serde_json::{Map, Value};

use crate::keeper::Credential;
use crate::remote::OAuthCaller;
use crate::tool_interface::{RenderedOutput, ToolDefinition};

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

/// One source of tools.
pub(crate) trait ToolSource {
    /// Whether `name` is this source's (served now or not): a name a source
    /// defines is never looked up in a later one.
    fn defines(&self, name: &str) -> bool;

    /// Whether `name` is served now, and if so whether it writes.
    fn serves(&self, name: &str) -> Option<bool>;

    /// The definitions served now, in the source's order.
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// Calls a served tool for a caller with `credential` (Keeper's) and,
    /// with OAuth on, `caller` (whose token a remote server may get,
    /// exchanged); `None` when it is no longer served. A tool failure is an
    /// output with `is_error`.
    fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        caller: Option<&OAuthCaller>,
    ) -> impl Future<Output = Option<RenderedOutput>> + Send;
}
