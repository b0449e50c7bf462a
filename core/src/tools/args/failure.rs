//! The `[validation-failed]` errors of Herald's own argument checks, built
//! here only: one argument's ([`invalid`]), several gathered in one answer
//! ([`merged`]), arguments a tool does not take ([`unknown`]), and the KB
//! tools' lenient issues with their usage as `next:` ([`listed`]).

use crate::error::ToolError;
use crate::keeper::model::{Issue, ProblemCode};
use crate::render::caps::cut_value;

/// The longest argument name or path repeated in a message (the issue line
/// carries it too, cut to `output.max_value_chars`).
const ECHOED_NAME_CHARS: usize = 64;

/// Unknown arguments named in the message (the issues list every one).
const NAMED_UNKNOWN: usize = 3;

/// `` `name` ``, cut to [`ECHOED_NAME_CHARS`].
fn quoted(name: &str) -> String {
    format!("`{}`", cut_value(name, ECHOED_NAME_CHARS))
}

/// A `[validation-failed]` error with `message` and `issues`.
fn failed(message: String, issues: Vec<Issue>, next: Option<String>) -> ToolError {
    ToolError {
        issues,
        next,
        ..ToolError::new(ProblemCode::ValidationFailed, message)
    }
}

/// A `[validation-failed]` error naming the argument: the message names it,
/// its one issue says what is wrong (so what is wrong, which may quote the
/// value sent, is said once).
pub(crate) fn invalid(arg: &str, message: impl Into<String>) -> ToolError {
    let issue = Issue {
        path: arg.to_string(),
        message: message.into(),
    };
    failed(
        format!("invalid argument {}", quoted(arg)),
        vec![issue],
        None,
    )
}

/// One error for several: the first alone as it is; several as one
/// `[validation-failed] invalid arguments `a`, `b`` with every issue, and
/// the default `next:` (fix the issues above, then call again).
pub(crate) fn merged(mut errors: Vec<ToolError>) -> Option<ToolError> {
    if errors.len() <= 1 {
        return errors.pop();
    }
    let issues: Vec<_> = errors.into_iter().flat_map(|e| e.issues).collect();
    let mut names: Vec<String> = Vec::new();
    for issue in &issues {
        let name = quoted(&issue.path);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Some(failed(
        format!("invalid arguments {}", names.join(", ")),
        issues,
        None,
    ))
}

/// The arguments a tool does not take (`unknown`), named with the ones it
/// does (`accepted`).
pub(crate) fn unknown(unknown: &[&String], accepted: &[String]) -> ToolError {
    let mut names: Vec<String> = unknown
        .iter()
        .take(NAMED_UNKNOWN)
        .map(|k| quoted(k))
        .collect();
    if unknown.len() > NAMED_UNKNOWN {
        names.push(format!("{} more", unknown.len() - NAMED_UNKNOWN));
    }
    let issues = unknown
        .iter()
        .map(|k| Issue {
            path: (*k).clone(),
            message: "unknown argument".into(),
        })
        .collect();
    failed(
        format!(
            "unknown argument {}; this tool takes: {}",
            names.join(", "),
            accepted.join(", ")
        ),
        issues,
        None,
    )
}

/// The issues of a KB tool's lenient check: one named in
/// the message (`path is required`), several counted; `next` says how to
/// call the tool.
pub(crate) fn listed(issues: Vec<Issue>, next: &str) -> ToolError {
    let message = if issues.len() == 1 {
        format!("{} {}", issues[0].path, issues[0].message)
    } else {
        format!("{} invalid arguments", issues.len())
    };
    failed(message, issues, Some(next.into()))
}
