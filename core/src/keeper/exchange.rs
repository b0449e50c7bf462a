//! One Keeper call on the wire: the credential header, the resends, the
//! bounded body, and Keeper's problems turned into [`KeeperError`]s.

use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use reqwest::{RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::body::{CappedReadError, read_capped};
use super::error::KeeperError;
use super::retry::{is_retryable_status, retry_after, retry_delay};
use super::{Credential, KeeperClient};
use crate::config::Secret;
use crate::telemetry::{KeeperAttempt, keeper_attempt};
use keeper_wire::{Issue, Open, Problem, ProblemCode};

/// The W3C trace context header.
const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// The W3C trace state header.
const TRACESTATE: HeaderName = HeaderName::from_static("tracestate");
/// The request id header Keeper logs.
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Why one attempt got no complete answer.
enum AttemptFailure {
    /// No answer (refused, reset, timed out, closed mid-answer).
    Unreachable(String),
    /// The answer was larger than `max_response_bytes`.
    TooLarge,
}

/// A complete answer.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl KeeperClient {
    /// Sends `builder` with the credential, resending when allowed (`resend`
    /// is false for writes without an idempotency key), and decodes a 2xx
    /// answer as `R`.
    pub(super) async fn send<R: DeserializeOwned>(
        &self,
        credential: &Credential,
        endpoint: &'static str,
        builder: RequestBuilder,
        resend: bool,
    ) -> Result<R, KeeperError> {
        let key = self.credential_key(credential);
        let builder = match key {
            Some(secret) => {
                let mut value = HeaderValue::from_str(&format!("Bearer {}", secret.expose()))
                    .map_err(|_| {
                        KeeperError::local(
                            ProblemCode::Unauthorized,
                            "the API key holds characters an HTTP header cannot carry",
                        )
                    })?;
                value.set_sensitive(true);
                builder.header(AUTHORIZATION, value)
            }
            None => builder,
        };
        let request = builder
            .build()
            .map_err(|e| KeeperError::Setup(format!("cannot build the request {endpoint}: {e}")))?;
        let settings = &self.inner.settings;
        let max_retries = if resend { settings.max_retries } else { 0 };
        let max_wait = Duration::from_secs(settings.retry_max_wait_s);
        let write_note = if resend || settings.max_retries == 0 {
            ""
        } else {
            "; a write without idempotency_key is never resent"
        };
        let mut retry = 0u32;
        loop {
            let mut attempt = request.try_clone().ok_or_else(|| {
                KeeperError::Setup(format!("cannot repeat the request {endpoint}"))
            })?;
            let trace = keeper_attempt();
            carry_trace(attempt.headers_mut(), &trace);
            let started = Instant::now();
            let outcome = self.attempt(attempt).await;
            let elapsed_ms = started.elapsed().as_millis() as u64;
            let status = outcome.as_ref().ok().map(|a| a.status.as_u16());
            self.inner.metrics.attempt(endpoint, status);
            trace.finish(endpoint, status, retry);
            if let Ok(answer) = &outcome {
                tracing::debug!(
                    endpoint,
                    status = answer.status.as_u16(),
                    elapsed_ms,
                    attempt = retry + 1,
                    "Keeper call"
                );
            }
            let (delay, reason) = match outcome {
                Ok(answer) if answer.status.is_success() => {
                    return serde_json::from_slice(&answer.body).map_err(|e| {
                        KeeperError::Protocol(format!("cannot read the answer of {endpoint}: {e}"))
                    });
                }
                Ok(answer) => {
                    let mut problem = problem_of(&answer);
                    redact(&mut problem, key);
                    if !(is_retryable_status(answer.status) && retry < max_retries) {
                        if is_retryable_status(answer.status) && !write_note.is_empty() {
                            problem.detail.push_str(write_note);
                        }
                        return Err(KeeperError::Problem(Box::new(problem)));
                    }
                    let hint = retry_after(&answer.headers)
                        .or(problem.retry_after.map(Duration::from_secs));
                    let reason = format!("Keeper answered {}", answer.status.as_u16());
                    (retry_delay(retry, hint, max_wait), reason)
                }
                Err(AttemptFailure::TooLarge) => {
                    return Err(KeeperError::TooLarge {
                        endpoint,
                        limit: settings.max_response_bytes,
                    });
                }
                Err(AttemptFailure::Unreachable(reason)) => {
                    tracing::debug!(endpoint, elapsed_ms, attempt = retry + 1, reason = %reason, "Keeper call failed");
                    if retry >= max_retries {
                        let attempts = retry + 1;
                        let plural = if attempts == 1 { "" } else { "s" };
                        return Err(KeeperError::Unavailable(format!(
                            "cannot reach Keeper at {}: {reason} ({attempts} attempt{plural}{write_note})",
                            settings.base_url
                        )));
                    }
                    (retry_delay(retry, None, max_wait), reason)
                }
            };
            retry += 1;
            self.inner.metrics.resend(endpoint, status);
            tracing::warn!(
                endpoint,
                retry,
                max_retries,
                delay_ms = delay.as_millis() as u64,
                "{reason}; resending in {:.3} s",
                delay.as_secs_f64()
            );
            tokio::time::sleep(delay).await;
        }
    }

    /// The key a call carries, if any.
    fn credential_key<'a>(&'a self, credential: &'a Credential) -> Option<&'a Secret> {
        credential.key(self.inner.settings.api_key.as_ref())
    }

    /// One request and its whole answer, read in chunks up to the bound.
    async fn attempt(&self, request: reqwest::Request) -> Result<Answer, AttemptFailure> {
        let limit = self.inner.settings.max_response_bytes;
        let unreachable = |e: reqwest::Error| AttemptFailure::Unreachable(self.describe(&e));
        // Built already: the request was made from it.
        let http =
            self.inner.http.ready().ok_or_else(|| {
                AttemptFailure::Unreachable("the HTTP client is not built".into())
            })?;
        let mut response = match http.execute(request).await {
            Ok(response) => response,
            Err(e) => {
                self.inner.health.failed();
                return Err(unreachable(e));
            }
        };
        self.inner.health.answered(response.status().as_u16());
        let body = read_capped(&mut response, limit)
            .await
            .map_err(|e| match e {
                CappedReadError::TooLarge => AttemptFailure::TooLarge,
                CappedReadError::Transport(e) => unreachable(e),
            })?;
        Ok(Answer {
            status: response.status(),
            headers: response.headers().clone(),
            body,
        })
    }

    /// A short reason for a transport failure: its root cause, without URL.
    fn describe(&self, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            return format!("no answer within {} s", self.inner.settings.timeout_s);
        }
        let mut root: &dyn std::error::Error = e;
        while let Some(source) = root.source() {
            root = source;
        }
        let what = if e.is_connect() {
            "cannot connect"
        } else {
            "the connection failed"
        };
        format!("{what}: {root}")
    }
}

/// Puts the attempt's `traceparent`, `tracestate` (the caller's, when it
/// sent one) and `X-Request-Id` on a request.
fn carry_trace(headers: &mut HeaderMap, trace: &KeeperAttempt) {
    if let Ok(value) = HeaderValue::from_str(trace.traceparent().as_str()) {
        headers.insert(TRACEPARENT, value);
    }
    if let Some(state) = trace.tracestate() {
        headers.insert(TRACESTATE, state.clone());
    }
    if let Ok(value) = HeaderValue::from_str(trace.request_id().as_str()) {
        headers.insert(X_REQUEST_ID, value);
    }
}

/// Keeper's problem from an error answer (any 4xx or 5xx). A problem body is
/// read as one whatever the status, with the code Keeper wrote, known or not
/// ([`problem_body`]); an answer without one gets the code its status stands
/// for ([`status_code`]).
fn problem_of(answer: &Answer) -> Problem {
    let header_wait = retry_after(&answer.headers).map(|d| d.as_secs());
    let status = answer.status.as_u16();
    if let Some(mut problem) = problem_body(&answer.body, answer.status) {
        problem.retry_after = problem.retry_after.or(header_wait);
        if problem.status == 0 {
            problem.status = status;
        }
        return problem;
    }
    let reason = answer.status.canonical_reason().unwrap_or("error");
    let mut problem = KeeperError::problem(
        ProblemCode::KeeperUnavailable,
        format!("Keeper answered {status} {reason} without a problem body"),
        Vec::new(),
    );
    problem.code = status_code(answer.status);
    problem.title = reason.into();
    problem.status = status;
    problem.retry_after = header_wait;
    problem
}

/// An `application/problem+json` body (RFC 9457), read leniently: a JSON
/// object with a `code`, `type`, `title` or `detail` is a problem, fields of
/// the wrong type count as absent, fields Herald does not know are ignored.
/// The code is `code`, else the last segment of `type`
/// (`https://lorebase.dev/problems/stale-head`), else the status's.
fn problem_body(body: &[u8], status: StatusCode) -> Option<Problem> {
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_string);
    let (code, type_uri, title, detail) =
        (text("code"), text("type"), text("title"), text("detail"));
    if code.is_none() && type_uri.is_none() && title.is_none() && detail.is_none() {
        return None;
    }
    let from_type = type_uri
        .as_deref()
        .filter(|t| *t != "about:blank")
        .and_then(|t| t.trim_end_matches('/').rsplit('/').next())
        .filter(|segment| !segment.is_empty());
    let code = match code.as_deref().or(from_type) {
        Some(name) => Open::from_wire(name),
        None => status_code(status),
    };
    let issues = obj
        .get("issues")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(issue_of).collect())
        .unwrap_or_default();
    Some(Problem {
        type_uri: type_uri.unwrap_or_default(),
        title: title.unwrap_or_default(),
        status: obj
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .unwrap_or(0),
        detail: detail.unwrap_or_default(),
        code,
        issues,
        head: text("head"),
        retry_after: obj.get("retry_after").and_then(Value::as_u64),
    })
}

/// One issue of a problem body: an object with a `message` (and a `path`).
fn issue_of(value: &Value) -> Option<Issue> {
    let message = value.get("message").and_then(Value::as_str)?;
    let path = value
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(Issue {
        path: path.into(),
        message: message.into(),
    })
}

/// The code an error status stands for when Keeper sent no problem body:
/// the contract's where one fits; otherwise HTTP's own name for the status
/// (`conflict` for 409, `internal-server-error` for 500), which a model
/// reads as it is and which is never shown as worth retrying.
fn status_code(status: StatusCode) -> Open<ProblemCode> {
    let known = match status.as_u16() {
        400 | 422 => ProblemCode::ValidationFailed,
        401 => ProblemCode::Unauthorized,
        403 => ProblemCode::Forbidden,
        404 => ProblemCode::NotFound,
        423 => ProblemCode::BranchBusy,
        429 => ProblemCode::RateLimited,
        502..=504 => ProblemCode::KeeperUnavailable,
        other => {
            let name = status
                .canonical_reason()
                .map(|r| r.to_ascii_lowercase().replace([' ', '\''], "-"))
                .unwrap_or_else(|| format!("http-{other}"));
            return Open::Other(name.into());
        }
    };
    Open::Known(known)
}

/// Replaces the key a call carried wherever Keeper's problem text echoes it.
fn redact(problem: &mut Problem, key: Option<&Secret>) {
    let Some(key) = key.map(Secret::expose).filter(|k| k.len() >= 4) else {
        return;
    };
    let scrub = |text: &mut String| {
        if text.contains(key) {
            *text = text.replace(key, "***");
        }
    };
    scrub(&mut problem.detail);
    scrub(&mut problem.title);
    for Issue { path, message } in &mut problem.issues {
        scrub(path);
        scrub(message);
    }
}
