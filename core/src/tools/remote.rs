//! The tools of remote MCP servers (`mcp.servers`, [`crate::remote`]) as a
//! [`ToolSource`]: served once discovered, as `<server>__<tool>`, writing
//! unless the server declares them read-only.

use serde_json::{Map, Value};

use super::source::ToolSource;
use crate::keeper::Credential;
use crate::remote::{OAuthCaller, RemoteTools};
use crate::tool_interface::{RenderedOutput, ToolDefinition};

impl ToolSource for RemoteTools {
    fn defines(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    fn serves(&self, name: &str) -> Option<bool> {
        self.find(name).map(|tool| tool.definition.writes())
    }

    fn definitions(&self) -> Vec<ToolDefinition> {
        RemoteTools::definitions(self)
    }

    async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        _credential: &Credential,
        caller: Option<&OAuthCaller>,
    ) -> Option<RenderedOutput> {
        // Herald's own token or the OAuth caller's, exchanged
        // (`remote::caller`), never the caller's Keeper credential. Boxed:
        // the MCP client's future is some 10 KB, which every call of every
        // tool would otherwise carry (and copy).
        Box::pin(RemoteTools::call(self, name, arguments, caller)).await
    }
}
