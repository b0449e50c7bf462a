//! The KB tools' argument types, read leniently: any JSON
//! value parses (a missing one too), and the check adds an issue instead of
//! failing, so a call hears of every bad argument at once; a count out of
//! range is clamped, not refused. Each type's schema is what a model sees.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value;

use crate::keeper::model::Issue;

/// One issue of a lenient check.
pub(crate) fn issue(path: &str, message: &str) -> Issue {
    Issue {
        path: path.into(),
        message: message.into(),
    }
}

/// A required text that is not blank. A missing value (or `null`) parses,
/// and is refused by the check (`is required`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(crate) struct LenientText(Option<Value>);

argument_schema!(LenientText, "LenientText", |_generator| json_schema!({
    "type": "string", "minLength": 1
}));

impl LenientText {
    /// The text, or an issue about `arg` (the empty text in its place).
    pub(crate) fn check(self, arg: &str, issues: &mut Vec<Issue>) -> String {
        match self.0 {
            Some(Value::String(s)) if !s.trim().is_empty() => return s,
            Some(Value::String(_)) => issues.push(issue(arg, "must not be empty")),
            None | Some(Value::Null) => issues.push(issue(arg, "is required")),
            Some(_) => issues.push(issue(arg, "must be a string")),
        }
        String::new()
    }
}

/// A count of `1..=MAX`, `DEFAULT` when absent: below 1 gives `DEFAULT`,
/// above `MAX` gives `MAX`; only a value that is not an integer is refused.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(crate) struct LenientCount<const DEFAULT: usize, const MAX: usize>(Value);

argument_schema!(
    impl<const DEFAULT: usize, const MAX: usize> LenientCount<DEFAULT, MAX>,
    format!("LenientCount_{DEFAULT}_{MAX}"),
    |_generator| {
        json_schema!({"type": "integer", "default": DEFAULT})
    }
);

impl<const DEFAULT: usize, const MAX: usize> LenientCount<DEFAULT, MAX> {
    /// The count, clamped, or an issue about `arg` (`DEFAULT` in its place).
    pub(crate) fn check(self, arg: &str, issues: &mut Vec<Issue>) -> usize {
        match integer(&self.0) {
            Some(k) if k < 1 => DEFAULT,
            Some(k) => usize::try_from(k).unwrap_or(MAX).min(MAX),
            None => {
                issues.push(issue(arg, "must be an integer"));
                DEFAULT
            }
        }
    }
}

/// An integer, also written as a float with no fraction; a larger one than
/// `i64` holds is `i64::MAX`.
fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_u64().map(|_| i64::MAX).or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.is_finite())
                    .map(|f| f as i64)
            })
        }),
        _ => None,
    }
}
