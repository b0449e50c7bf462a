//! The JavaScript shapes of tool definitions and tool results.

use napi_derive::napi;
use serde_json::Value;

/// MCP tool annotations: hints for the host, not guarantees.
#[napi(object)]
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// What a model sees of one tool: hand `name`, `description` and `inputSchema`
/// to any function-calling model.
#[napi(object)]
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// Unique name (`lorebase_get`).
    pub name: String,
    /// A human title.
    pub title: String,
    /// What the tool is for, when to use it instead of another one, an example.
    pub description: String,
    /// JSON Schema (2020-12) of the arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub input_schema: Value,
    /// JSON Schema of `structured` (the answers of `format: "json"`).
    #[napi(ts_type = "Record<string, unknown>")]
    pub output_schema: Option<Value>,
    /// Hints for the host.
    pub annotations: ToolAnnotations,
}

impl From<herald_core::tools::ToolDefinition> for ToolDefinition {
    fn from(definition: herald_core::tools::ToolDefinition) -> Self {
        let a = definition.annotations;
        Self {
            name: definition.name,
            title: definition.title,
            description: definition.description,
            input_schema: definition.input_schema,
            output_schema: definition.output_schema,
            annotations: ToolAnnotations {
                read_only_hint: a.read_only_hint,
                destructive_hint: a.destructive_hint,
                idempotent_hint: a.idempotent_hint,
                open_world_hint: a.open_world_hint,
            },
        }
    }
}

/// The answer of one tool call. A tool failure (`[code] message`, its
/// issues and a `next:` line) is a result with `isError: true`, for the model
/// to read; it is never thrown.
#[napi(object)]
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The text block, as the model should see it.
    pub text: String,
    /// Whether this is a tool error.
    pub is_error: bool,
    /// The structured answer (`format: "json"`), never on errors.
    #[napi(ts_type = "Record<string, unknown>")]
    pub structured: Option<Value>,
}

impl From<herald_core::tools::RenderedOutput> for ToolResult {
    fn from(output: herald_core::tools::RenderedOutput) -> Self {
        Self {
            text: output.text,
            is_error: output.is_error,
            structured: output.structured,
        }
    }
}
