//! How a tool failure is shown to a model ([`ToolError`]): `[code] message`,
//! one issue per line with its path, and a `next:` line (herald.md, Errors).
//! Every tool error of every source is rendered here, by [`ToolError::render`].
//!
//! ```text
//! [validation-failed] parameters do not match the Operation
//!   parameters.risk_score: must be at most 100
//! next: fix the issues above (one per line, with its path), then call again
//! ```

pub use crate::keeper::KeeperError;
use crate::keeper::model::{Issue, Problem, ProblemCode};
use crate::tool::RenderedOutput;

/// The delay a transient error names when Keeper gave none, in seconds.
pub const DEFAULT_RETRY_DELAY_S: u64 = 5;

/// A tool failure, as the model sees it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("[{code}] {message}")]
pub struct ToolError {
    /// Keeper's problem code (or the closest one for Herald's own checks).
    pub code: ProblemCode,
    /// What went wrong.
    pub message: String,
    /// The issues, one per path.
    pub issues: Vec<Issue>,
    /// The branch's current head (stale-head).
    pub head: Option<String>,
    /// Seconds to wait (transient codes).
    pub retry_after: Option<u64>,
    /// A `next:` action that replaces the code's default one.
    pub next: Option<String>,
}

impl ToolError {
    /// An error with a code and message, no issues.
    pub fn new(code: ProblemCode, message: impl Into<String>) -> Self {
        Self {
            code,
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

    /// The text a model sees: `[code] message`, one issue per line with its
    /// path (`  path: message`), then the `next:` line.
    pub fn render(&self) -> String {
        let mut out = format!("[{}] {}", self.code, one_line(&self.message));
        for issue in &self.issues {
            out.push_str(&format!(
                "\n  {}: {}",
                one_line(&issue.path),
                one_line(&issue.message)
            ));
        }
        out.push_str("\nnext: ");
        match &self.next {
            Some(next) => out.push_str(&one_line(next)),
            None => out.push_str(&self.default_next()),
        }
        out
    }

    /// The action of herald.md's table for this code.
    fn default_next(&self) -> String {
        use ProblemCode::*;
        match self.code {
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
                self.retry_after.unwrap_or(DEFAULT_RETRY_DELAY_S)
            ),
        }
    }

    /// The tool result of this error (`is_error`, no structured content).
    pub fn to_output(&self) -> RenderedOutput {
        RenderedOutput {
            text: self.render(),
            is_error: true,
            structured: None,
        }
    }
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
        Self {
            code: p.code,
            message,
            issues: p.issues,
            head: p.head,
            retry_after: p.retry_after,
            next: None,
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
            KeeperError::Protocol(message) => {
                Self::new(code, format!("unexpected answer from Keeper: {message}"))
            }
            KeeperError::TooLarge { endpoint, limit } => Self::new(
                code,
                format!(
                    "Keeper's answer to {endpoint} is larger than the {limit} bytes Herald accepts (herald.keeper.max_response_bytes)"
                ),
            )
            .with_next(
                "ask for less: a smaller limit, fewer Kinds, Relations or attributes, or values: false",
            ),
        }
    }
}
