//! Why a token is refused, and the answer each reason gets: 401 with
//! `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750, 3.1), 403
//! `insufficient_scope`, 503 when the authorization server cannot be
//! reached. Every challenge names the protected resource metadata (RFC 9728,
//! 5.1). No message quotes a token.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::http::guard::refusal;

/// Why a bearer token is not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenError {
    /// Not a JWT (and no introspection endpoint is configured), or a JWT
    /// whose parts do not decode.
    #[error("the token is not a JWT Herald can read")]
    Malformed,
    /// A JWT signed with an algorithm Herald does not accept (symmetric
    /// ones, `none`).
    #[error("the token's signing algorithm is not accepted")]
    Algorithm,
    /// A JWT naming no key (`kid`).
    #[error("the token names no signing key (kid)")]
    NoKeyId,
    /// `iss` is none of `http.authorization_servers`.
    #[error("the token's issuer is not an authorization server of this resource")]
    UnknownIssuer,
    /// A `kid` the issuer's JWKS does not hold, even after a refetch.
    #[error("the token is signed with a key its issuer does not publish")]
    UnknownKey,
    /// The signature or a claim does not check out.
    #[error("the token's signature or claims do not verify")]
    Invalid,
    /// `exp` has passed.
    #[error("the token has expired")]
    Expired,
    /// `nbf` is still ahead.
    #[error("the token is not valid yet")]
    NotYetValid,
    /// `aud` does not hold `http.resource_url`.
    #[error("the token was issued for another audience")]
    WrongAudience,
    /// Introspection says the token is not active.
    #[error("the token is not active")]
    Inactive,
    /// The token lacks required scopes (the list, space-separated).
    #[error("the token lacks the scope {0}")]
    InsufficientScope(String),
    /// The authorization server refused to exchange the token for one
    /// meant for Keeper (or a remote MCP server).
    #[error("the authorization server would not exchange the token for the audience Herald needs")]
    ExchangeRefused,
    /// A bearer longer than [`super::MAX_TOKEN_BYTES`].
    #[error("the token is longer than 8 KiB")]
    TooLong,
    /// Too many introspections in flight or this second: not asked.
    #[error("too many new tokens to check right now; retry in a second")]
    Busy,
    /// Keeper refused the token Herald sent for this one.
    #[error("Keeper refused the token")]
    KeeperRefused,
    /// The authorization server could not be asked.
    #[error("the authorization server cannot be reached ({0})")]
    Unavailable(String),
}

impl TokenError {
    /// The answer: status, JSON-RPC error body, and the challenge naming
    /// `metadata` (the protected resource metadata URL).
    pub(crate) fn into_response(self, metadata: &str) -> Response {
        let description = self.to_string().replace(['"', '\\'], "'");
        let (status, challenge) = match &self {
            Self::InsufficientScope(scope) => (
                StatusCode::FORBIDDEN,
                Some(format!(
                    "Bearer error=\"insufficient_scope\", scope=\"{scope}\", error_description=\"{description}\", resource_metadata=\"{metadata}\""
                )),
            ),
            Self::Unavailable(_) | Self::Busy => (StatusCode::SERVICE_UNAVAILABLE, None),
            _ => (
                StatusCode::UNAUTHORIZED,
                Some(format!(
                    "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{metadata}\""
                )),
            ),
        };
        let code = if status == StatusCode::SERVICE_UNAVAILABLE {
            -32603
        } else {
            -32001
        };
        tracing::debug!(status = status.as_u16(), reason = %self, "refused a bearer token");
        let mut response = refusal(status, code, &format!("{}: {self}", reason_phrase(status)));
        if let Some(value) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        if status == StatusCode::SERVICE_UNAVAILABLE {
            let wait = if self == Self::Busy { "1" } else { "5" };
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static(wait));
        }
        response
    }
}

fn reason_phrase(status: StatusCode) -> &'static str {
    status.canonical_reason().unwrap_or("Refused")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_status_and_challenge() {
        let meta = "https://h.example/.well-known/oauth-protected-resource/mcp";
        let r = TokenError::Expired.into_response(meta);
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let challenge = r.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{challenge}"
        );
        assert!(challenge.ends_with(&format!("resource_metadata=\"{meta}\"")));
        let r = TokenError::InsufficientScope("lorebase:read".into()).into_response(meta);
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let challenge = r.headers()[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert!(challenge.contains("error=\"insufficient_scope\", scope=\"lorebase:read\""));
        let r = TokenError::Unavailable("x".into()).into_response(meta);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(r.headers().get(header::WWW_AUTHENTICATE).is_none());
    }
}
