//! Argument parsing: the arguments every tool shares (`domain`, `branch`, `at`,
//! `format`), typed parsing of the rest, and the `[validation-failed]` errors
//! that name the argument, all before any Keeper call.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::model::{Issue, ProblemCode, ReadAt, RecordRef};
use crate::render::OutputFormat;

/// The arguments every tool shares, resolved against the settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Common {
    /// The Domain (the argument, else `settings.domain`).
    pub domain: String,
    /// `text` or `json`.
    pub format: OutputFormat,
    /// Branch (the argument, else `settings.branch`) and Revision.
    pub read: ReadAt,
}

/// Which of the shared arguments a tool takes besides `domain` and `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scope {
    /// It takes `branch`.
    pub branch: bool,
    /// It takes `at`.
    pub at: bool,
}

/// A `[validation-failed]` error naming the argument.
pub(crate) fn invalid(arg: &str, message: impl Into<String>) -> ToolError {
    let message = message.into();
    ToolError {
        code: ProblemCode::ValidationFailed,
        message: format!("invalid argument `{arg}`: {message}"),
        issues: vec![Issue {
            path: arg.to_string(),
            message,
        }],
        head: None,
        retry_after: None,
        next: None,
    }
}

/// Removes the shared arguments from `args` and resolves them.
pub(crate) fn take_common(
    args: &mut Map<String, Value>,
    settings: &Settings,
    scope: Scope,
) -> Result<Common, ToolError> {
    let format: Option<OutputFormat> = take(args, "format")?;
    let domain: Option<String> = take(args, "domain")?;
    let branch: Option<String> = if scope.branch {
        take(args, "branch")?
    } else {
        None
    };
    let at: Option<String> = if scope.at { take(args, "at")? } else { None };
    let domain = match domain.or_else(|| settings.domain.clone()) {
        Some(d) => name("domain", d, 128)?,
        None => {
            return Err(ToolError {
                next: Some(
                    "pass `domain`, or configure a default (LOREBASE_DOMAIN, herald.domain)".into(),
                ),
                ..invalid("domain", "no Domain given and no default Domain configured")
            });
        }
    };
    let branch = match branch {
        Some(b) => Some(name("branch", b, 256)?),
        None => settings.branch.clone(),
    };
    let at = at.map(|a| name("at", a, 128)).transpose()?;
    Ok(Common {
        domain,
        format: format.unwrap_or_default(),
        read: ReadAt { branch, at },
    })
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

/// Parses the remaining arguments into a tool's typed arguments (a struct
/// with `deny_unknown_fields`); an error names the argument (`query.where`).
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

/// A name sent to Keeper (a Domain, a branch, a tag): non-empty, at most `max`
/// characters, no control characters.
pub(crate) fn name(arg: &str, value: String, max: usize) -> Result<String, ToolError> {
    if value.trim().is_empty() {
        return Err(invalid(arg, "must not be empty"));
    }
    if value.chars().count() > max {
        return Err(invalid(arg, format!("must be at most {max} characters")));
    }
    if value.chars().any(char::is_control) {
        return Err(invalid(arg, "must not contain control characters"));
    }
    Ok(value)
}

/// A required non-empty text of at most `max` characters.
pub(crate) fn text(arg: &str, value: String, max: usize) -> Result<String, ToolError> {
    if value.trim().is_empty() {
        return Err(invalid(arg, "must not be empty"));
    }
    if value.chars().count() > max {
        return Err(invalid(arg, format!("must be at most {max} characters")));
    }
    Ok(value)
}

/// A `Kind/key` ref.
pub(crate) fn record_ref(arg: &str, value: &str) -> Result<RecordRef, ToolError> {
    value
        .parse()
        .map_err(|e: crate::keeper::model::RefParseError| invalid(arg, e.to_string()))
}

/// A list of refs, each checked (`seeds[2]` names a bad one).
pub(crate) fn record_refs(
    arg: &str,
    values: &[String],
    max: usize,
) -> Result<Vec<RecordRef>, ToolError> {
    if values.is_empty() {
        return Err(invalid(arg, "must name at least one Record"));
    }
    if values.len() > max {
        return Err(invalid(arg, format!("at most {max} Records")));
    }
    values
        .iter()
        .enumerate()
        .map(|(i, v)| record_ref(&format!("{arg}[{i}]"), v))
        .collect()
}

/// An optional `cursor` argument: an opaque page token of at most 1024
/// characters, without control characters.
pub(crate) fn cursor(value: Option<String>) -> Result<Option<String>, ToolError> {
    value.map(|cur| name("cursor", cur, 1024)).transpose()
}

/// A list of names (Kinds, Relations, Traits, attributes).
pub(crate) fn names(
    arg: &str,
    values: Option<Vec<String>>,
    max: usize,
) -> Result<Option<Vec<String>>, ToolError> {
    let Some(values) = values else {
        return Ok(None);
    };
    if values.len() > max {
        return Err(invalid(arg, format!("at most {max} names")));
    }
    for (i, v) in values.iter().enumerate() {
        name(&format!("{arg}[{i}]"), v.clone(), 128)?;
    }
    Ok(Some(values))
}

/// An optional number within `min..=max`.
pub(crate) fn range(
    arg: &str,
    value: Option<u32>,
    min: u32,
    max: u32,
) -> Result<Option<u32>, ToolError> {
    match value {
        Some(v) if v < min || v > max => {
            Err(invalid(arg, format!("must be between {min} and {max}")))
        }
        other => Ok(other),
    }
}

/// An optional query embedding: 1 to 4096 finite numbers.
pub(crate) fn query_vector(value: Option<Vec<f32>>) -> Result<Option<Vec<f32>>, ToolError> {
    let Some(v) = value else { return Ok(None) };
    if v.is_empty() || v.len() > 4096 {
        return Err(invalid("query_vector", "must have 1 to 4096 numbers"));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(invalid("query_vector", "numbers must be finite"));
    }
    Ok(Some(v))
}

/// A Revision id, full (64 hex digits) or a prefix of 8 or more hex digits.
pub(crate) fn revision_prefix(arg: &str, value: &str) -> Result<String, ToolError> {
    let ok = (8..=64).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_hexdigit());
    if ok {
        Ok(value.to_ascii_lowercase())
    } else {
        Err(invalid(
            arg,
            "must be a Revision id: 64 hex digits, or a prefix of 8 or more",
        ))
    }
}

/// A comma-joined list, as Keeper's query parameters take them.
pub(crate) fn joined(values: Option<Vec<String>>) -> Option<String> {
    values.map(|v| v.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn common_arguments_fall_back_to_settings() {
        let settings = Settings {
            domain: Some("supply".into()),
            branch: Some("main".into()),
            ..Settings::default()
        };
        let scope = Scope {
            branch: true,
            at: true,
        };
        let mut args = map(json!({"format": "json", "at": "abc12345"}));
        let c = take_common(&mut args, &settings, scope).unwrap();
        assert_eq!(c.domain, "supply");
        assert_eq!(c.format, OutputFormat::Json);
        assert_eq!(c.read.branch.as_deref(), Some("main"));
        assert!(args.is_empty());
        let e = take_common(&mut map(json!({})), &Settings::default(), scope).unwrap_err();
        assert_eq!(e.issues[0].path, "domain");
        assert!(e.next.is_some());
        let e = take_common(&mut map(json!({"format": "xml"})), &settings, scope).unwrap_err();
        assert_eq!(e.issues[0].path, "format");
        let e = take_common(&mut map(json!({"domain": ""})), &settings, scope).unwrap_err();
        assert_eq!(e.issues[0].path, "domain");
    }

    #[test]
    fn refs_and_revisions_are_checked() {
        assert!(record_ref("ref", "Supplier/S-1001").is_ok());
        assert_eq!(
            record_ref("ref", "S-1001").unwrap_err().issues[0].path,
            "ref"
        );
        let e = record_refs("seeds", &["A/1".into(), "bad".into()], 5).unwrap_err();
        assert_eq!(e.issues[0].path, "seeds[1]");
        assert!(revision_prefix("since", "97ce9a2c").is_ok());
        assert!(revision_prefix("since", "97ce9a2").is_err());
        assert!(revision_prefix("since", "zzzzzzzzzz").is_err());
    }
}
