//! The one check of argument names, for every built-in tool: an argument
//! the tool's input schema does not list is refused, before any other check,
//! naming it and the arguments the tool takes.

use serde_json::{Map, Value};

use super::failure;
use crate::error::ToolError;

/// The argument names an input schema lists, in its order.
pub(crate) fn declared_names(input_schema: &Value) -> Vec<String> {
    input_schema["properties"]
        .as_object()
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
}

/// Rejects arguments the tool does not take, naming them and the ones it does.
pub(crate) fn check_names(
    accepted: &[String],
    arguments: &Map<String, Value>,
) -> Result<(), ToolError> {
    let unknown: Vec<&String> = arguments.keys().filter(|k| !accepted.contains(k)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(failure::unknown(&unknown, accepted))
}
