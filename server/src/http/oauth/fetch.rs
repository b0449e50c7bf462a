//! Calls to the authorization server: each bounded in time (the client's
//! timeout) and in size (the answer is read up to a limit), without
//! redirects, the answer parsed as JSON.

use std::time::Duration;

use herald_core::keeper::{CappedReadError, read_capped};
use reqwest::{Client, RequestBuilder, redirect};
use serde::de::DeserializeOwned;

/// Largest answer read from an authorization server (metadata, JWKS, a
/// token or an introspection answer are a few KiB).
const MAX_ANSWER_BYTES: usize = 256 * 1024;
/// How long one call may take, connecting included.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Why a call to the authorization server gave nothing usable. Every
/// message is fixed text and a status: never the answer's body (a token
/// endpoint's error page, or a serde message quoting a field, can hold a
/// token), never a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FetchError {
    /// No answer in time.
    #[error("no answer within {} s", TIMEOUT.as_secs())]
    TimedOut,
    /// No connection, or the connection broke.
    #[error("no answer (the connection failed)")]
    Unreachable,
    /// An answer with a status other than 2xx.
    #[error("answered HTTP {0}")]
    Status(u16),
    /// An answer past the size limit.
    #[error("the answer exceeds {MAX_ANSWER_BYTES} bytes")]
    TooLarge,
    /// An answer that is not the JSON expected.
    #[error("the answer is not the JSON expected")]
    Invalid,
    /// Metadata naming another issuer (RFC 8414, 3.3).
    #[error("its metadata names another issuer")]
    OtherIssuer,
}

impl FetchError {
    fn of_transport(e: &reqwest::Error) -> Self {
        if e.is_timeout() {
            Self::TimedOut
        } else {
            Self::Unreachable
        }
    }
}

/// The HTTP client for the authorization server.
pub(crate) fn client() -> Result<Client, String> {
    Client::builder()
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .redirect(redirect::Policy::none())
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())
}

/// `request` with `pairs` as an `application/x-www-form-urlencoded` body.
pub(crate) fn form(request: RequestBuilder, pairs: &[(&str, &str)]) -> RequestBuilder {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    request
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
}

/// Sends `request` and parses a 2xx answer of at most [`MAX_ANSWER_BYTES`].
pub(crate) async fn json<T: DeserializeOwned>(request: RequestBuilder) -> Result<T, FetchError> {
    let mut response = request
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| FetchError::of_transport(&e))?;
    let status = response.status();
    if !status.is_success() {
        return Err(FetchError::Status(status.as_u16()));
    }
    let body = read_capped(&mut response, MAX_ANSWER_BYTES as u64)
        .await
        .map_err(|e| match e {
            CappedReadError::TooLarge => FetchError::TooLarge,
            CappedReadError::Transport(e) => FetchError::of_transport(&e),
        })?;
    serde_json::from_slice(&body).map_err(|_| FetchError::Invalid)
}
