//! The tools of remote MCP servers (`mcp.servers`, [`crate::remote`]) as a
//! [`ToolSource`]: served once discovered, as `<server>__<tool>`, writing
//! unless the server declares them read-only.

use serde_json::{Map, Value};

use super::source::ToolSource;
use crate::keeper::Credential;
use crate::remote::RemoteTools;
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
    ) -> Option<RenderedOutput> {
        // With no OAuth caller (the toolbox's dispatch passes it, see
        // `Toolbox::dispatch`): Herald's own token (`token_env`) or none,
        // never the caller's key.
        Box::pin(RemoteTools::call(self, name, arguments, None)).await
    }
}
