//! The one check of argument names, for every built-in tool: an argument
//! the tool's input schema does not list is refused, before any other check,
//! naming it and the arguments the tool takes.

use serde_json::{Map, Value};

use super::parse::ECHOED_NAME_CHARS;
use crate::error::ToolError;
use crate::keeper::model::{Issue, ProblemCode};
use crate::render::caps::cut_value;

/// Unknown arguments named in the message (the issues list every one).
const NAMED_UNKNOWN: usize = 3;

/// The argument names an input schema lists, in its order.
pub(crate) fn argument_names(input_schema: &Value) -> Vec<String> {
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
    let mut names: Vec<String> = unknown
        .iter()
        .take(NAMED_UNKNOWN)
        .map(|k| format!("`{}`", cut_value(k, ECHOED_NAME_CHARS)))
        .collect();
    if unknown.len() > NAMED_UNKNOWN {
        names.push(format!("{} more", unknown.len() - NAMED_UNKNOWN));
    }
    Err(ToolError {
        code: ProblemCode::ValidationFailed.into(),
        message: format!(
            "unknown argument {}; this tool takes: {}",
            names.join(", "),
            accepted.join(", ")
        ),
        issues: unknown
            .iter()
            .map(|k| Issue {
                path: (*k).clone(),
                message: "unknown argument".into(),
            })
            .collect(),
        head: None,
        retry_after: None,
        next: None,
    })
}
