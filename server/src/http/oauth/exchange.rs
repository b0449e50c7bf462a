//! RFC 8693 token exchange: a validated client token traded at its
//! authorization server for one whose audience is Keeper (or a remote MCP
//! server with `credential: exchange`), so that the client's own token never
//! reaches them (MCP authorization: no token passthrough). The exchanged token is cached per client token until
//! shortly before it expires.

use std::time::{Duration, Instant};

use crate::http::oauth::cache::after;

use herald_core::config::Secret;
use reqwest::Client;
use serde::Deserialize;

use crate::http::oauth::error::TokenError;
use crate::http::oauth::fetch::{self, FetchError};
use crate::http::oauth::validate::ClientCredentials;

const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";
/// An exchanged token is used until this long before it expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);
/// Its lifetime when the answer gives none.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

#[derive(Deserialize)]
struct Exchanged {
    access_token: String,
    expires_in: Option<u64>,
}

/// Exchanges `subject` at `endpoint` for a token with audience `audience`
/// (Keeper's URL, or a remote MCP server's); the token and how long to use
/// it (`expires_in` read saturating: 2^63 is a long time, not a panic).
pub(crate) async fn exchange(
    client: &Client,
    endpoint: &str,
    credentials: &ClientCredentials,
    audience: &str,
    subject: &str,
) -> Result<(Secret, Instant), TokenError> {
    let request = fetch::form(
        client.post(endpoint).basic_auth(
            &credentials.id,
            credentials.secret.as_ref().map(Secret::expose),
        ),
        &[
            ("grant_type", GRANT_TYPE),
            ("subject_token", subject),
            ("subject_token_type", ACCESS_TOKEN),
            ("requested_token_type", ACCESS_TOKEN),
            ("audience", audience),
        ],
    );
    let answer: Exchanged = fetch::json(request).await.map_err(|e| match e {
        FetchError::Status(s) if (400..500).contains(&s) => {
            tracing::info!(
                status = s,
                "the authorization server refused a token exchange"
            );
            TokenError::ExchangeRefused
        }
        // The fixed reason only: the answer's body may hold a token.
        e => {
            tracing::warn!(reason = %e, "token exchange failed");
            TokenError::Unavailable(format!("token exchange: {e}"))
        }
    })?;
    let lifetime = answer
        .expires_in
        .map_or(DEFAULT_LIFETIME, Duration::from_secs);
    let usable = lifetime.checked_sub(EXPIRY_MARGIN).unwrap_or(lifetime / 2);
    Ok((Secret::new(answer.access_token), after(usable)))
}
