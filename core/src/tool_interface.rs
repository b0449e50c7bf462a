//! What every front end (the MCP server, the Node addon, the Python module,
//! the C ABI) sees of a tool, at the bottom of the crate (it depends on no
//! other module): its definition ([`ToolDefinition`], what `tools/list`
//! shows), the answer of a call ([`RenderedOutput`]), and the caller's own
//! mistakes ([`ToolCallError`], [`ErrorCode`]), including the one parser of
//! a call's arguments ([`arguments_from_json`]); and which characters never
//! reach a model raw ([`is_hidden_or_control`]).

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// Whether `c` would break or disguise text shown to a model: a control
/// character (a line break forges a `next:` line), a line or paragraph
/// separator, a format character (general category Cf: bidi controls,
/// zero-width characters, the soft hyphen, tag characters) or any other
/// default-ignorable one (variation selectors, Hangul fillers), which a
/// model reads through and a reader does not see.
pub fn is_hidden_or_control(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    if c.is_control()
        || matches!(
            get_general_category(c),
            GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        )
    {
        return true;
    }
    // Default-ignorable code points are the ones UTS #39 skeletons drop.
    let mut buf = [0u8; 4];
    unicode_security::skeleton(c.encode_utf8(&mut buf))
        .next()
        .is_none()
}

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

impl ToolAnnotations {
    /// The annotations of a tool that only reads (`writes: false`) or that
    /// writes (`writes: true`, destructive and not idempotent).
    pub const fn reads_or_writes(writes: bool) -> Self {
        Self {
            read_only_hint: !writes,
            destructive_hint: writes,
            idempotent_hint: !writes,
            open_world_hint: false,
        }
    }
}

/// The `_meta` key with which Claude Code keeps a tool loaded when it defers
/// the others behind its tool search (the model sees this tool's schema from
/// the first turn).
pub const ALWAYS_LOAD_META: &str = "anthropic/alwaysLoad";

/// The `_meta` key of the words Claude Code's tool search matches besides a
/// tool's name and description.
pub const SEARCH_HINT_META: &str = "anthropic/searchHint";

/// Arguments that hosts add to every tool's schema and send with the call,
/// meant for the host, not the server: accepted and dropped before a tool
/// checks its arguments (in every front end: [`crate::tools::Toolbox`] strips
/// them), unless the tool itself declares an argument of that name (a remote
/// tool may). Any other unknown argument is still refused. Keep this list
/// short and documented (docs/hosts.md):
///
/// - `wait_for_previous`: Gemini CLI (and Qwen Code, opencode, Copilot CLI,
///   which forward it) tells its models to set it when a call depends on an
///   earlier one in the same turn.
pub const HOST_ADDED_ARGUMENTS: &[&str] = &["wait_for_previous"];

/// Drops the [`HOST_ADDED_ARGUMENTS`] from a call's arguments, except those
/// the tool declares (`declares(name)` is true).
pub fn strip_host_arguments(arguments: &mut Map<String, Value>, declares: impl Fn(&str) -> bool) {
    for name in HOST_ADDED_ARGUMENTS {
        if arguments.contains_key(*name) && !declares(name) {
            arguments.remove(*name);
        }
    }
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
    /// The tool's `_meta` (for example `anthropic/alwaysLoad`: hosts that
    /// defer tools behind a search keep this one loaded), when it has any.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ToolDefinition {
    /// Whether its input schema declares an argument named `argument`.
    pub fn declares(&self, argument: &str) -> bool {
        self.input_schema["properties"].get(argument).is_some()
    }

    /// Whether the tool writes (it is not annotated read-only).
    pub fn writes(&self) -> bool {
        !self.annotations.read_only_hint
    }
}

/// The rendered answer of one tool call: the text block, whether it is a tool
/// error, and the structured content of the `json` format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderedOutput {
    /// The text block.
    pub text: String,
    /// A tool error (`[code] message ... next: ...`).
    pub is_error: bool,
    /// `structuredContent` (every successful answer, in both formats; never on errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
}

/// The stable codes of a caller's errors (not tool failures, which are
/// results): the same in every front end (`err.code` in Node, the exception's
/// `code` in Python, the C ABI's error enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Settings or options that do not load or validate.
    InvalidSettings,
    /// No tool has that name (or it is not served with these settings).
    UnknownTool,
    /// A call's arguments or options are unusable (not a JSON object, an
    /// empty per-call key).
    BadArguments,
    /// The call was cancelled before it finished.
    Cancelled,
    /// A failure inside Herald itself (a bug).
    Internal,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 5] = [
        Self::InvalidSettings,
        Self::UnknownTool,
        Self::BadArguments,
        Self::Cancelled,
        Self::Internal,
    ];

    /// The code as front ends show it (`unknown-tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidSettings => "invalid-settings",
            Self::UnknownTool => "unknown-tool",
            Self::BadArguments => "bad-arguments",
            Self::Cancelled => "cancelled",
            Self::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
    /// A per-call API key that is empty (an absent key means the configured one).
    #[error("the per-call API key must not be empty (leave it out to use the configured key)")]
    EmptyApiKey,
}

impl ToolCallError {
    /// Its stable code (`unknown-tool`, `bad-arguments`).
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::UnknownTool(_) => ErrorCode::UnknownTool,
            Self::BadArguments(_) | Self::EmptyApiKey => ErrorCode::BadArguments,
        }
    }
}

/// Why a call's arguments, given as JSON text, are not an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentsError {
    /// The text is not JSON (the reason gives line and column, never the text).
    #[error("not valid JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object (`an array`, `a number`).
    #[error("got {0}")]
    NotAnObject(&'static str),
}

impl From<ArgumentsError> for ToolCallError {
    fn from(error: ArgumentsError) -> Self {
        Self::BadArguments(error.to_string())
    }
}

/// A call's arguments from JSON text: an object; no text, or only
/// whitespace, is no arguments (`{}`). Every in-process front end parses
/// arguments given as text with it.
pub fn arguments_from_json(text: Option<&str>) -> Result<Map<String, Value>, ArgumentsError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(value) => arguments_from_value(value),
        Err(error) => Err(ArgumentsError::NotJson(error.to_string())),
    }
}

/// A call's arguments from a JSON value: an object.
pub fn arguments_from_value(value: Value) -> Result<Map<String, Value>, ArgumentsError> {
    match value {
        Value::Object(arguments) => Ok(arguments),
        other => Err(ArgumentsError::NotAnObject(json_type_name(&other))),
    }
}

/// The JSON type of a value (`an array`), for messages that must not quote
/// the value (it may hold a secret).
pub fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_an_object_or_nothing() {
        assert_eq!(arguments_from_json(None), Ok(Map::new()));
        assert_eq!(arguments_from_json(Some("  \n")), Ok(Map::new()));
        assert_eq!(
            arguments_from_json(Some("null")),
            Err(ArgumentsError::NotAnObject("null"))
        );
        assert_eq!(
            arguments_from_json(Some(r#"{"ref": "Supplier/S-1001"}"#))
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            arguments_from_json(Some("[1]")),
            Err(ArgumentsError::NotAnObject("an array"))
        );
        assert_eq!(
            arguments_from_json(Some("3")),
            Err(ArgumentsError::NotAnObject("a number"))
        );
        let Err(ArgumentsError::NotJson(reason)) = arguments_from_json(Some(r#"{"k": "lbk_x"#))
        else {
            panic!("truncated JSON must not parse");
        };
        assert!(!reason.contains("lbk_x"), "{reason}");
    }

    #[test]
    fn caller_errors_have_stable_codes() {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "invalid-settings",
                "unknown-tool",
                "bad-arguments",
                "cancelled",
                "internal"
            ]
        );
        let e = ToolCallError::from(ArgumentsError::NotAnObject("an array"));
        assert_eq!(
            e.to_string(),
            "tool arguments must be a JSON object: got an array"
        );
        assert_eq!(e.code(), ErrorCode::BadArguments);
        assert_eq!(ToolCallError::EmptyApiKey.code(), ErrorCode::BadArguments);
    }
}
