//! A failed Keeper call ([`KeeperError`]): what the client returns, with the
//! problem code a model will see it under ([`KeeperError::code`]). How it is
//! shown to a model is [`crate::error::ToolError`]'s concern.

use keeper_wire::{Issue, Open, Problem, ProblemCode};

/// A failed Keeper call.
#[derive(Debug, thiserror::Error)]
pub enum KeeperError {
    /// Keeper answered with a problem.
    #[error("[{}] {}", .0.code, .0.detail)]
    Problem(Box<Problem>),
    /// Keeper could not be reached after the retries.
    #[error("[keeper-unavailable] {0}")]
    Unavailable(String),
    /// Keeper's answer was not what the contract says.
    #[error("[keeper-unavailable] unexpected answer from Keeper: {0}")]
    Protocol(String),
    /// Keeper's answer was larger than `keeper.max_response_bytes`.
    #[error(
        "[validation-failed] Keeper's answer to {endpoint} is larger than herald.{key} ({limit} bytes)",
        key = crate::config::SettingKey::KeeperMaxResponseBytes
    )]
    TooLarge {
        /// The endpoint called (`POST /neighborhood`).
        endpoint: &'static str,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The client or a request could not be set up (settings that bypassed
    /// validation, an invalid proxy URL).
    #[error("[keeper-unavailable] cannot set up the call to Keeper: {0}")]
    Setup(String),
}

impl KeeperError {
    /// A problem built by Herald itself (for checks before a call).
    pub fn problem(code: ProblemCode, detail: impl Into<String>, issues: Vec<Issue>) -> Problem {
        Problem {
            type_uri: format!("https://lorebase.dev/problems/{code}"),
            title: code.as_str().replace('-', " "),
            status: code.http_status(),
            detail: detail.into(),
            code: code.into(),
            issues,
            head: None,
            retry_after: None,
        }
    }

    /// [`KeeperError::Problem`] built by Herald itself.
    pub fn local(code: ProblemCode, detail: impl Into<String>) -> Self {
        Self::Problem(Box::new(Self::problem(code, detail, Vec::new())))
    }

    /// [`KeeperError::Problem`] built by Herald itself, with one issue.
    pub fn local_issue(
        code: ProblemCode,
        detail: impl Into<String>,
        path: &str,
        message: &str,
    ) -> Self {
        let issue = Issue {
            path: path.into(),
            message: message.into(),
        };
        Self::Problem(Box::new(Self::problem(code, detail, vec![issue])))
    }

    /// The problem code this failure is shown with (Keeper's own, for a
    /// problem, even one this Herald does not know).
    pub fn code(&self) -> Open<ProblemCode> {
        match self {
            Self::Problem(p) => p.code.clone(),
            Self::TooLarge { .. } => ProblemCode::ValidationFailed.into(),
            Self::Unavailable(_) | Self::Protocol(_) | Self::Setup(_) => {
                ProblemCode::KeeperUnavailable.into()
            }
        }
    }
}
