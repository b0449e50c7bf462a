//! One Keeper call on the wire: the credential header, the resends, the
//! bounded body, and Keeper's problems turned into [`KeeperError`]s.

use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{RequestBuilder, StatusCode};
use serde::de::DeserializeOwned;

use super::error::KeeperError;
use super::retry::{is_retryable_status, retry_after, retry_delay};
use super::{Credential, KeeperClient};
use crate::config::Secret;
use crate::keeper::model::{Issue, Problem, ProblemCode};

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
            let attempt = request.try_clone().ok_or_else(|| {
                KeeperError::Setup(format!("cannot repeat the request {endpoint}"))
            })?;
            let started = Instant::now();
            let outcome = self.attempt(attempt).await;
            let elapsed_ms = started.elapsed().as_millis() as u64;
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
                    let mut problem = problem_of(&answer)?;
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
        match credential {
            Credential::Configured => self.inner.settings.api_key.as_ref(),
            Credential::Bearer(secret) => Some(secret),
            Credential::Anonymous => None,
        }
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
        if response.content_length().is_some_and(|len| len > limit) {
            return Err(AttemptFailure::TooLarge);
        }
        let capacity = response
            .content_length()
            .unwrap_or(0)
            .min(limit)
            .min(1 << 20);
        let mut body = Vec::with_capacity(capacity as usize);
        while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
            if (body.len() + chunk.len()) as u64 > limit {
                return Err(AttemptFailure::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
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

/// Keeper's problem from an error answer; a body that is not a problem gets
/// the code its status stands for.
fn problem_of(answer: &Answer) -> Result<Problem, KeeperError> {
    let header_wait = retry_after(&answer.headers).map(|d| d.as_secs());
    if let Ok(mut problem) = serde_json::from_slice::<Problem>(&answer.body) {
        problem.retry_after = problem.retry_after.or(header_wait);
        if problem.status == 0 {
            problem.status = answer.status.as_u16();
        }
        return Ok(problem);
    }
    let code = match answer.status.as_u16() {
        400 | 422 => ProblemCode::ValidationFailed,
        401 => ProblemCode::Unauthorized,
        403 => ProblemCode::Forbidden,
        404 => ProblemCode::NotFound,
        423 => ProblemCode::BranchBusy,
        429 => ProblemCode::RateLimited,
        502..=504 => ProblemCode::KeeperUnavailable,
        other => {
            return Err(KeeperError::Protocol(format!(
                "HTTP {other} without a problem body"
            )));
        }
    };
    let reason = answer.status.canonical_reason().unwrap_or("error");
    let mut problem = KeeperError::problem(
        code,
        format!("Keeper answered {} {reason}", answer.status.as_u16()),
        Vec::new(),
    );
    problem.status = answer.status.as_u16();
    problem.retry_after = header_wait;
    Ok(problem)
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
