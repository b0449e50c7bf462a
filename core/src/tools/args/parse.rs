//! Parsing a call's arguments into a tool's typed arguments, and the
//! `[validation-failed]` errors that name the argument (`query.where`,
//! `seeds[2]`), all before any Keeper call.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::failure::invalid;
use crate::error::ToolError;

/// An argument whose type declares its bounds (the same bounds its JSON
/// Schema shows): parsed first, then checked (by [`Arguments::check`], in
/// the order of its struct's fields), a failure naming the argument.
pub(crate) trait Arg: Sized {
    /// The checked value.
    type Checked;

    /// Checks the value, naming `arg` in the error.
    fn check(self, arg: &str) -> Result<Self::Checked, ToolError>;
}

impl<T: Arg> Arg for Option<T> {
    type Checked = Option<T::Checked>;

    fn check(self, arg: &str) -> Result<Self::Checked, ToolError> {
        self.map(|value| value.check(arg)).transpose()
    }
}

/// A tool's own arguments (declared with `tool_arguments!`): parsed, then
/// each checked by its type, every failure of a call in one error.
pub(crate) trait Arguments {
    /// The arguments, each checked.
    type Checked;

    /// Checks every argument, naming each failure by its field.
    fn check(self) -> Result<Self::Checked, ToolError>;
}

/// An argument's name from its field's (`r#ref` is `ref`, as serde names it).
pub(crate) fn field_name(field: &'static str) -> &'static str {
    field.strip_prefix("r#").unwrap_or(field)
}

/// Removes one argument and parses it (`null` counts as absent).
pub(crate) fn take<T: DeserializeOwned>(
    args: &mut Map<String, Value>,
    arg: &str,
) -> Result<Option<T>, ToolError> {
    match args.remove(arg) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => parse_value::<T>(v, arg).map(Some),
    }
}

/// Parses the remaining arguments into a tool's typed arguments (their names
/// checked already, by [`super::check_names`]); an error names the argument
/// (`query.where`).
pub(crate) fn parse<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, ToolError> {
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(Value::Object(args), &mut track);
    T::deserialize(de).map_err(|e| {
        let path = track.path().to_string();
        let message = e.to_string();
        let arg = if path.is_empty() || path == "." {
            argument_in_message(&message).unwrap_or_else(|| "arguments".into())
        } else {
            path
        };
        invalid(&arg, explain_serde(&message))
    })
}

fn parse_value<T: DeserializeOwned>(value: Value, arg: &str) -> Result<T, ToolError> {
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(value, &mut track);
    T::deserialize(de).map_err(|e| {
        let inner = track.path().to_string();
        let path = if inner.is_empty() || inner == "." {
            arg.to_string()
        } else if inner.starts_with('[') {
            format!("{arg}{inner}")
        } else {
            format!("{arg}.{inner}")
        };
        invalid(&path, explain_serde(&e.to_string()))
    })
}

/// The field a serde message names (`missing field `ref``, `unknown field `x``).
fn argument_in_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

fn explain_serde(message: &str) -> String {
    if message.contains("untagged enum Predicate") {
        return "not a predicate: use {\"attr\": ..., \"op\": ..., \"value\": ...}, {\"and\": [...]}, {\"or\": [...]} or {\"not\": {...}}; op is one of eq, ne, in, lt, lte, gt, gte, contains, exists".into();
    }
    message.to_string()
}

/// A comma-joined list, as Keeper's query parameters take them.
pub(crate) fn joined(values: Option<Vec<String>>) -> Option<String> {
    values.map(|v| v.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keeper::model::ProblemCode;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        #[serde(rename = "ref")]
        record: String,
        limit: Option<u32>,
        query: Option<crate::keeper::model::Query>,
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn errors_name_the_argument() {
        let e = parse::<Sample>(map(json!({"ref": "A/b", "limit": "x"}))).unwrap_err();
        assert_eq!(e.code, ProblemCode::ValidationFailed);
        assert_eq!(e.issues[0].path, "limit");
        let e = parse::<Sample>(map(json!({"limit": 1}))).unwrap_err();
        assert_eq!(e.issues[0].path, "ref");
        let e = parse::<Sample>(map(json!({"ref": "A/b", "bogus": 1}))).unwrap_err();
        assert_eq!(e.issues[0].path, "bogus");
        let e = parse::<Sample>(map(
            json!({"ref": "A/b", "query": {"kind": "P", "where": {"and": [{"attr": "a", "op": "like"}]}}}),
        ))
        .unwrap_err();
        assert!(
            e.issues[0].path.starts_with("query.where"),
            "{:?}",
            e.issues
        );
    }
}
