//! Failed calls as `application/problem+json` (RFC 9457) with Keeper's codes.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use keeper_wire::{Issue, Problem, ProblemCode};

/// A failed API call: a problem code, a message, and its details.
#[derive(Debug, Clone, thiserror::Error)]
#[error("[{code}] {detail}")]
pub(crate) struct ApiError {
    pub code: ProblemCode,
    pub detail: String,
    pub issues: Vec<Issue>,
    pub head: Option<String>,
    pub retry_after: Option<u64>,
    /// An HTTP status other than the code's usual one (injected faults).
    pub status: Option<u16>,
}

/// The result of an engine call.
pub(crate) type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub(crate) fn new(code: ProblemCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: detail.into(),
            issues: Vec::new(),
            head: None,
            retry_after: None,
            status: None,
        }
    }

    pub(crate) fn not_found(detail: impl Into<String>) -> Self {
        Self::new(ProblemCode::NotFound, detail)
    }

    pub(crate) fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(ProblemCode::Forbidden, detail)
    }

    /// validation-failed with one issue.
    pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        let message = message.into();
        Self::new(ProblemCode::ValidationFailed, message.clone()).with_issue(path, message)
    }

    /// validation-failed with these issues (one per path).
    pub(crate) fn invalid_all(detail: impl Into<String>, issues: Vec<Issue>) -> Self {
        let mut e = Self::new(ProblemCode::ValidationFailed, detail);
        e.issues = issues;
        e
    }

    pub(crate) fn with_issue(
        mut self,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        self.issues.push(Issue {
            path: path.into(),
            message: message.into(),
        });
        self
    }

    pub(crate) fn with_head(mut self, head: impl Into<String>) -> Self {
        self.head = Some(head.into());
        self
    }

    pub(crate) fn with_retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }

    /// The HTTP status answered.
    pub(crate) fn http_status(&self) -> u16 {
        self.status.unwrap_or_else(|| self.code.http_status())
    }

    /// The body.
    pub(crate) fn to_problem(&self) -> Problem {
        Problem {
            type_uri: format!("https://lorebase.dev/problems/{}", self.code),
            title: title(self.code).into(),
            status: self.http_status(),
            detail: self.detail.clone(),
            code: self.code.into(),
            issues: self.issues.clone(),
            head: self.head.clone(),
            retry_after: self.retry_after,
        }
    }
}

/// The short summary of each problem type.
pub(crate) fn title(code: ProblemCode) -> &'static str {
    match code {
        ProblemCode::StaleHead => "The branch moved",
        ProblemCode::ReviewRequired => "Review required",
        ProblemCode::ProtectedBranch => "Protected branch",
        ProblemCode::AgentBranchLimit => "Too many task branches",
        ProblemCode::AlreadyExists => "Already exists",
        ProblemCode::ValidationFailed => "Validation failed",
        ProblemCode::NotFound => "Not found",
        ProblemCode::Forbidden => "Forbidden",
        ProblemCode::Unauthorized => "Unauthorized",
        ProblemCode::RateLimited => "Rate limited",
        ProblemCode::BranchBusy => "Branch busy",
        ProblemCode::KeeperUnavailable => "Keeper unavailable",
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self.to_problem()).unwrap_or_default();
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(secs) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.code == ProblemCode::Unauthorized {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"lorebase\""),
            );
        }
        response
    }
}
