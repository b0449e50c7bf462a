//! Typed errors, and how a failure is shown to a model: `[code] message`, one
//! issue per line with its path, and a `next:` line (herald.md, Errors).
//!
//! (Issue 3 fills in the Keeper side; issue 4 the tool side.)

use crate::keeper::model::{Issue, ProblemCode};

/// A failed Keeper call.
#[derive(Debug, thiserror::Error)]
pub enum KeeperError {
    /// Keeper answered with a problem.
    #[error("[{}] {}", .0.code, .0.detail)]
    Problem(Box<crate::keeper::model::Problem>),
    /// Keeper could not be reached after the retries.
    #[error("[keeper-unavailable] {0}")]
    Unavailable(String),
    /// Keeper's answer was not what the contract says.
    #[error("[keeper-unavailable] unexpected answer from Keeper: {0}")]
    Protocol(String),
}

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
    /// The text a model sees: `[code] message`, one issue per line with its
    /// path, then the `next:` line.
    pub fn render(&self) -> String {
        todo!("issue 3")
    }

    /// The tool result of this error (`is_error`, no structured content).
    pub fn to_output(&self) -> crate::tools::RenderedOutput {
        crate::tools::RenderedOutput {
            text: self.render(),
            is_error: true,
            structured: None,
        }
    }
}
