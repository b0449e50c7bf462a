//! The interface behind which the toolbox finds its tools: the Lorebase
//! tools (Keeper), the KB tools (a markdown catalog) and the tools of remote
//! MCP servers are three [`ToolSource`]s, asked in that order, the first that
//! owns a name answering for it.

use std::future::Future;

use serde_json::{Map, Value};

use crate::keeper::Credential;
use crate::tool::{RenderedOutput, ToolDefinition};

/// One source of tools.
pub(crate) trait ToolSource {
    /// Whether `name` is this source's (offered now or not): a name a source
    /// owns is never looked up in a later one.
    fn owns(&self, name: &str) -> bool;

    /// Whether `name` is offered now, and if so whether it writes.
    fn offers(&self, name: &str) -> Option<bool>;

    /// The definitions offered now, in the source's order.
    fn definitions(&self) -> Vec<ToolDefinition>;

    /// Calls an offered tool; `None` when it is no longer offered. A tool
    /// failure is an output with `is_error`.
    fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> impl Future<Output = Option<RenderedOutput>> + Send;
}
