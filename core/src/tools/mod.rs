//! The tools: one table of definitions (name, description, input and output
//! schemas, annotations) and one handler each, served by the MCP server, the
//! Node addon, the Python module and the C API alike through [`Toolbox`].
//!
//! (Issue 4 fills in the table and the handlers; issue 6 adds `kb_search` and
//! `kb_get`.)

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::keeper::{Credential, KeeperClient};

/// MCP tool annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    pub read_only_hint: bool,
    /// The tool may perform destructive updates.
    pub destructive_hint: bool,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent_hint: bool,
    /// The tool reaches an open world of external entities.
    pub open_world_hint: bool,
}

/// What a model sees of one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Unique name (`lorebase_get`).
    pub name: String,
    /// A human title.
    pub title: String,
    /// What it is for, when to use it instead of another tool, one example.
    pub description: String,
    /// JSON Schema 2020-12 of the arguments.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` (the `json` format).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints for the host.
    pub annotations: ToolAnnotations,
}

/// The rendered answer of one tool call: the text block, whether it is a tool
/// error, and the structured content of the `json` format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderedOutput {
    /// The text block.
    pub text: String,
    /// A tool error (`[code] message ... next: ...`).
    pub is_error: bool,
    /// `structuredContent` (the `json` format, never on errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
}

/// A programming error of a caller: not a tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// No tool has that name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("tool arguments must be a JSON object: {0}")]
    BadArguments(String),
}

impl ToolCallError {
    /// A stable code for bindings (`unknown-tool`, `bad-arguments`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool(_) => "unknown-tool",
            Self::BadArguments(_) => "bad-arguments",
        }
    }
}

/// The tools of one Herald, ready to list and call.
#[derive(Debug, Clone)]
pub struct Toolbox {
    settings: std::sync::Arc<Settings>,
    keeper: KeeperClient,
}

impl Toolbox {
    /// Builds the toolbox from resolved settings.
    pub fn new(settings: Settings) -> Result<Self, crate::error::KeeperError> {
        let keeper = KeeperClient::new(&settings.keeper)?;
        Ok(Self {
            settings: std::sync::Arc::new(settings),
            keeper,
        })
    }

    /// The settings it serves with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The Keeper client (for resources and completions).
    pub fn keeper(&self) -> &KeeperClient {
        &self.keeper
    }

    /// The definitions of the tools served, in table order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        todo!("issue 4")
    }

    /// Calls one tool. Tool failures are `Ok` with `is_error: true`; only a
    /// caller's programming error is `Err`.
    pub async fn call(
        &self,
        _name: &str,
        _arguments: Map<String, Value>,
        _credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        todo!("issue 4")
    }
}
