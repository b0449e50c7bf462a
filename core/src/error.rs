//! How a tool failure is shown to a model ([`ToolError`]): `[code] message`,
//! one issue per line with its path, and a `next:` line (docs/tools.md, "Results").
//! Every tool error of every source is rendered here, by [`ToolError::render`],
//! within the output caps: an error is never longer than a successful answer
//! could be, and never echoes a large argument back whole.
//!
//! ```text
//! [validation-failed] parameters do not match the Operation
//!   parameters.risk_score: must be at most 100
//! next: fix the issues above (one per line, with its path), then call again
//! ```

use crate::config::OutputSettings;
pub use crate::keeper::KeeperError;
use crate::keeper::model::{Issue, Open, Problem, ProblemCode};
use crate::render::{caps, escape};
use crate::tool_interface::RenderedOutput;

/// The delay a transient error names when Keeper gave none, in seconds.
pub const DEFAULT_RETRY_DELAY_S: u64 = 5;

/// The longest issue path shown: a path names an argument or a field; a
/// longer one echoes a key the caller sent.
const MAX_PATH_CHARS: usize = 128;

/// A tool failure, as the model sees it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("[{code}] {message}")]
pub struct ToolError {
    /// Keeper's problem code, as Keeper wrote it even when this Herald does
    /// not know it (or the closest one for Herald's own checks).
    pub code: Open<ProblemCode>,
    /// What went wrong.
    pub message: String,
    /// The issues, one per path.
    pub issues: Vec<Issue>,
    /// The branch's current head (stale-head).
    pub head: Option<String>,
    /// Seconds to wait (transient codes; u32 keeps the error small, and
    /// Keeper's larger values saturate).
    pub retry_after: Option<u32>,
    /// A `next:` action that replaces the code's default one.
    pub next: Option<String>,
}

impl ToolError {
    /// An error with a code and message, no issues.
    pub fn new(code: impl Into<Open<ProblemCode>>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            issues: Vec::new(),
            head: None,
            retry_after: None,
            next: None,
        }
    }

    /// Adds an issue at `path`.
    pub fn with_issue(mut self, path: impl Into<String>, message: impl Into<String>) -> Self {
        self.issues.push(Issue {
            path: path.into(),
            message: message.into(),
        });
        self
    }

    /// Replaces the code's default `next:` action.
    pub fn with_next(mut self, next: impl Into<String>) -> Self {
        self.next = Some(next.into());
        self
    }

    /// The text a model sees, within the output caps: `[code] message`, as
    /// many issue lines (`  path: message`) as fit in `caps.max_chars`, then
    /// `  ... N more issues` when some did not, and always the `next:` line.
    /// Each field (the message, an issue's path and message, the next action)
    /// is at most `caps.max_value_chars` characters: a longer one, typically
    /// an echoed argument, keeps its start and end around a marked cut, so
    /// no input comes back whole, however large.
    pub fn render(&self, caps: &OutputSettings) -> String {
        let field = caps.max_value_chars;
        let code = self.code.to_string();
        let head = format!("[{}] {}", escape::line(&code), shown(&self.message, field));
        let next = match &self.next {
            Some(next) => shown(next, field),
            None => shown(&self.default_next(), field),
        };
        let next = format!("next: {next}");
        let mut out = head;
        let mut used = out.chars().count() + 1 + next.chars().count();
        let total = self.issues.len();
        let mut kept = 0;
        for issue in &self.issues {
            let line = format!(
                "\n  {}: {}",
                shown(&issue.path, field.min(MAX_PATH_CHARS)),
                shown(&issue.message, field)
            );
            let len = line.chars().count();
            let left = total - kept - 1;
            let more = if left > 0 {
                more_issues(left).chars().count()
            } else {
                0
            };
            if used + len + more > caps.max_chars {
                break;
            }
            out.push_str(&line);
            used += len;
            kept += 1;
        }
        if kept < total {
            out.push_str(&more_issues(total - kept));
        }
        out.push('\n');
        out.push_str(&next);
        out
    }

    /// The next step documented for this code; for a code this Herald
    /// does not know, [`unknown_code_next`] (never "retry").
    fn default_next(&self) -> String {
        use ProblemCode::*;
        let code = match &self.code {
            Open::Known(code) => *code,
            Open::Other(_) => return unknown_code_next(None, None),
        };
        match code {
            StaleHead => match &self.head {
                Some(head) => format!(
                    "the branch head is now {head}; re-read what you are changing, then retry with expected_head: {head}"
                ),
                None => "the branch moved; re-read it (lorebase_branches gives the current head), then retry with that head as expected_head".into(),
            },
            ReviewRequired | ProtectedBranch => "repeat with task and intent to open a Proposal, or run it on a work branch and open a Proposal".into(),
            AgentBranchLimit | AlreadyExists => {
                "merge or close one of your Proposals, or use another task".into()
            }
            ValidationFailed if self.issues.is_empty() => {
                "fix the arguments named in the message, then call again".into()
            }
            ValidationFailed => {
                "fix the issues above (one per line, with its path), then call again".into()
            }
            NotFound => "check refs with lorebase_search or lorebase_schema".into(),
            Forbidden => {
                "do not retry: the agent's key lacks the grant for this; ask an administrator for it".into()
            }
            Unauthorized => {
                "do not retry: the API key is missing or invalid; the key in the host's configuration must be fixed".into()
            }
            RateLimited | BranchBusy | KeeperUnavailable => format!(
                "retry after {} s",
                self.retry_after.map_or(DEFAULT_RETRY_DELAY_S, u64::from)
            ),
        }
    }

    /// The tool result of this error (`is_error`, no structured content),
    /// rendered within `caps` (see [`ToolError::render`]).
    pub fn to_output(&self, caps: &OutputSettings) -> RenderedOutput {
        RenderedOutput {
            text: self.render(caps),
            is_error: true,
            structured: None,
        }
    }
}

/// The `next:` action for a problem code this Herald does not know (a newer
/// Keeper's). Only what is transient by its status (429, 503: Herald has
/// already resent it `keeper.max_retries` times) is worth retrying; anything
/// else would fail again the same way.
pub fn unknown_code_next(status: Option<u16>, retry_after: Option<u64>) -> String {
    match status {
        Some(429 | 503) => format!(
            "retry after {} s",
            retry_after.unwrap_or(DEFAULT_RETRY_DELAY_S)
        ),
        Some(status @ 500..) => format!(
            "do not repeat the same call: Keeper failed (HTTP {status}); report Keeper's message above"
        ),
        _ => "do not repeat the same call: act on Keeper's message above (its code is newer than this Herald)".into(),
    }
}

/// The line that counts the issues left out.
fn more_issues(n: usize) -> String {
    format!("\n  ... {n} more issue{}", if n == 1 { "" } else { "s" })
}

/// A field as rendered: on one line, every hidden character escaped
/// ([`escape::line`]: Keeper's detail or issue cannot start a line of its
/// own), and at most `max_chars` characters (a longer one keeps its start
/// and its end around a marked cut).
fn shown(text: &str, max_chars: usize) -> String {
    caps::cut_middle(&escape::line(&one_line(text)), max_chars)
}

/// Keeps a rendered field on its line.
fn one_line(text: &str) -> String {
    if text.contains(['\n', '\r']) {
        text.split(['\n', '\r'])
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        text.to_string()
    }
}

impl From<Problem> for ToolError {
    fn from(p: Problem) -> Self {
        let message = if p.detail.trim().is_empty() {
            p.title
        } else {
            p.detail
        };
        let next = match &p.code {
            Open::Known(_) => None,
            Open::Other(_) => Some(unknown_code_next(Some(p.status), p.retry_after)),
        };
        Self {
            code: p.code,
            message,
            issues: p.issues,
            head: p.head,
            retry_after: p.retry_after.map(|s| u32::try_from(s).unwrap_or(u32::MAX)),
            next,
        }
    }
}

impl From<KeeperError> for ToolError {
    fn from(e: KeeperError) -> Self {
        let code = e.code();
        match e {
            KeeperError::Problem(p) => (*p).into(),
            KeeperError::Unavailable(message) | KeeperError::Setup(message) => {
                Self::new(code, message)
            }
            // An answer Herald cannot read reads the same the next time.
            KeeperError::Protocol(message) => {
                Self::new(code, format!("unexpected answer from Keeper: {message}")).with_next(
                    "do not repeat the same call: Keeper's answer does not match the contract this Herald reads; report the message above",
                )
            }
            KeeperError::TooLarge { endpoint, limit } => Self::new(
                code,
                format!(
                    "Keeper's answer to {endpoint} is larger than the {limit} bytes Herald accepts (herald.{})",
                    crate::config::SettingKey::KeeperMaxResponseBytes
                ),
            )
            .with_next(
                "ask for less: a smaller limit, fewer Kinds, Relations or attributes, or values: false",
            ),
        }
    }
}
