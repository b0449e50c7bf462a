//! Whether an access token was issued for this resource: a JWT checked
//! locally (signature from its issuer's JWKS, `iss`, `exp`/`nbf` with a
//! small leeway, `aud` holding `http.resource_url`), or an opaque token
//! asked about at the introspection endpoint (RFC 7662).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use herald_core::config::Secret;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use reqwest::Client;
use serde::Deserialize;
use serde_json::Value;

use crate::http::oauth::cache;
use crate::http::oauth::error::TokenError;
use crate::http::oauth::fetch;
use crate::http::oauth::issuer::Issuer;

/// Clock skew allowed on `exp` and `nbf`, in seconds.
const LEEWAY_S: u64 = 30;

/// Asymmetric algorithms only: a symmetric one would let anyone holding a
/// public key sign (algorithm confusion).
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// What a valid token grants.
#[derive(Debug, Clone)]
pub(crate) struct Grant {
    /// Which configured server issued it (an index into the issuers).
    pub(crate) issuer: usize,
    /// Its scopes.
    pub(crate) scopes: Vec<String>,
    /// Whom it was issued to (`sub`), when it says.
    pub(crate) subject: Option<String>,
    /// When it expires.
    pub(crate) expires: Instant,
}

/// The `Instant` of a Unix time (the past is now; one past
/// [`cache::MAX_LIFETIME`] is that far: `exp` 10^19 panics nothing).
fn instant_of(unix_s: u64) -> Instant {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    cache::after(Duration::from_secs(unix_s.saturating_sub(now)))
}

/// Scopes from `scope` (space-separated) or `scp` (a list). The list is
/// split on U+0020 alone and a token holding any character outside
/// RFC 6749 §3.3's `scope-token` (`%x21 / %x23-5B / %x5D-7E`) is no scope:
/// "lorebase:read" + U+00A0 + "herald:remote:x" grants neither, where a
/// split on any whitespace would grant both.
fn scopes_of(claims: &Value) -> Vec<String> {
    let listed = |s: &str| -> Vec<String> {
        s.split(' ')
            .filter(|t| is_scope_token(t))
            .map(String::from)
            .collect()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) => listed(s),
        (_, Some(Value::Array(a))) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| is_scope_token(t))
            .map(String::from)
            .collect(),
        (_, Some(Value::String(s))) => listed(s),
        _ => Vec::new(),
    }
}

/// Whether `token` is an RFC 6749 §3.3 `scope-token`: one or more of
/// `%x21 / %x23-5B / %x5D-7E` (printable ASCII but space, `"` and `\`).
fn is_scope_token(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// The `sub` of verified claims (or of an introspection answer).
fn subject_of(claims: &Value) -> Option<String> {
    claims.get("sub").and_then(Value::as_str).map(String::from)
}

/// Whether `token` has a JWT's three parts.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// The unverified `iss` of a JWT (only to pick the issuer whose keys then
/// verify it).
fn claimed_issuer(token: &str) -> Result<String, TokenError> {
    let payload = token.split('.').nth(1).ok_or(TokenError::Malformed)?;
    let bytes = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| TokenError::Malformed)?;
    #[derive(Deserialize)]
    struct Iss {
        iss: Option<String>,
    }
    let claims: Iss = serde_json::from_slice(&bytes).map_err(|_| TokenError::Malformed)?;
    claims.iss.ok_or(TokenError::UnknownIssuer)
}

/// Checks a JWT against `issuers`, for `audience`.
pub(crate) async fn jwt(
    issuers: &[Issuer],
    audience: &str,
    token: &str,
) -> Result<Grant, TokenError> {
    let header = decode_header(token).map_err(|_| TokenError::Malformed)?;
    if !ACCEPTED.contains(&header.alg) {
        return Err(TokenError::Algorithm);
    }
    let kid = header.kid.ok_or(TokenError::NoKeyId)?;
    let iss = claimed_issuer(token)?;
    let index = issuers
        .iter()
        .position(|i| i.is(&iss))
        .ok_or(TokenError::UnknownIssuer)?;
    let keys = issuers[index].keys(&kid).await?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = LEEWAY_S;
    validation.validate_nbf = true;
    validation.set_issuer(&[iss.as_str()]);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    // Every key listed under the kid (two share one while a key rotates):
    // the first whose signature checks decides.
    let mut refusal = TokenError::UnknownKey;
    let mut verified = None;
    for jwk in &keys {
        let Ok(key) = DecodingKey::from_jwk(jwk) else {
            continue;
        };
        match decode::<Value>(token, &key, &validation) {
            Ok(data) => {
                verified = Some(data);
                break;
            }
            Err(e) => match e.kind() {
                ErrorKind::InvalidSignature
                | ErrorKind::InvalidAlgorithm
                | ErrorKind::InvalidKeyFormat
                | ErrorKind::InvalidRsaKey(_)
                | ErrorKind::InvalidEcdsaKey => refusal = TokenError::Invalid,
                ErrorKind::ExpiredSignature => return Err(TokenError::Expired),
                ErrorKind::ImmatureSignature => return Err(TokenError::NotYetValid),
                ErrorKind::InvalidAudience => return Err(TokenError::WrongAudience),
                ErrorKind::InvalidIssuer => return Err(TokenError::UnknownIssuer),
                _ => return Err(TokenError::Invalid),
            },
        }
    }
    let data = verified.ok_or(refusal)?;
    let exp = data.claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
    Ok(Grant {
        issuer: index,
        scopes: scopes_of(&data.claims),
        subject: subject_of(&data.claims),
        expires: instant_of(exp.saturating_add(LEEWAY_S)),
    })
}

/// Herald's client at the authorization server.
#[derive(Debug, Clone)]
pub(crate) struct ClientCredentials {
    /// `http.oauth_client_id`.
    pub(crate) id: String,
    /// `http.oauth_client_secret`.
    pub(crate) secret: Option<Secret>,
}

/// Asks `endpoint` about an opaque token (RFC 7662): active, for
/// `audience`, unexpired, from one of `issuers` when it says.
pub(crate) async fn introspect(
    client: &Client,
    endpoint: &str,
    credentials: &ClientCredentials,
    issuers: &[Issuer],
    audience: &str,
    token: &str,
) -> Result<Grant, TokenError> {
    let request = fetch::form(
        client.post(endpoint).basic_auth(
            &credentials.id,
            credentials.secret.as_ref().map(Secret::expose),
        ),
        &[("token", token), ("token_type_hint", "access_token")],
    );
    let answer: Value = fetch::json(request).await.map_err(|e| {
        tracing::warn!(error = %e, "token introspection failed");
        TokenError::Unavailable(format!("introspection: {e}"))
    })?;
    if answer.get("active") != Some(&Value::Bool(true)) {
        return Err(TokenError::Inactive);
    }
    let audience_matches = match answer.get("aud") {
        Some(Value::String(a)) => a == audience,
        Some(Value::Array(a)) => a.iter().any(|v| v.as_str() == Some(audience)),
        _ => false,
    };
    if !audience_matches {
        return Err(TokenError::WrongAudience);
    }
    let issuer = match answer.get("iss").and_then(Value::as_str) {
        Some(iss) => issuers
            .iter()
            .position(|i| i.is(iss))
            .ok_or(TokenError::UnknownIssuer)?,
        None => 0,
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let exp = answer.get("exp").and_then(Value::as_u64);
    if exp.is_some_and(|exp| exp.saturating_add(LEEWAY_S) < now) {
        return Err(TokenError::Expired);
    }
    Ok(Grant {
        issuer,
        scopes: scopes_of(&answer),
        subject: subject_of(&answer),
        // No exp: asked again within the validation cache's own limit.
        expires: instant_of(exp.unwrap_or(now.saturating_add(3600))),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn scopes_come_from_scope_or_scp() {
        assert_eq!(scopes_of(&json!({"scope": "a b"})), ["a", "b"]);
        assert_eq!(scopes_of(&json!({"scp": ["c"]})), ["c"]);
        assert!(scopes_of(&json!({})).is_empty());
    }

    #[test]
    fn scopes_split_on_the_space_alone_and_odd_tokens_are_no_scope() {
        let nbsp = json!({"scope": "lorebase:read\u{a0}herald:remote:x"});
        assert!(scopes_of(&nbsp).is_empty(), "{:?}", scopes_of(&nbsp));
        for sep in ['\t', '\n', '\u{2003}', '\u{3000}', '\u{85}'] {
            let claims = json!({"scope": format!("a{sep}b c")});
            assert_eq!(scopes_of(&claims), ["c"], "{sep:?}");
        }
        // Two spaces leave an empty token, which is no scope either.
        assert_eq!(scopes_of(&json!({"scope": "a  b"})), ["a", "b"]);
        for bad in [
            "a\"b",
            "a\\b",
            "\u{7f}x",
            "caf\u{e9}",
            "a\u{0}b",
            "\u{1b}[0m",
        ] {
            assert!(scopes_of(&json!({"scope": bad})).is_empty(), "{bad:?}");
            assert!(scopes_of(&json!({"scp": [bad, "ok"]})) == ["ok"], "{bad:?}");
        }
        assert_eq!(scopes_of(&json!({"scp": ["a b"]})), Vec::<String>::new());
        assert_eq!(scopes_of(&json!({"scp": "x y"})), ["x", "y"]);
    }

    #[test]
    fn the_claimed_issuer_is_read_without_trusting_it() {
        let payload = URL_SAFE_NO_PAD.encode(br#"{"iss":"https://as.example"}"#);
        assert_eq!(
            claimed_issuer(&format!("e30.{payload}.sig")).unwrap(),
            "https://as.example"
        );
        assert_eq!(claimed_issuer("e30.!!.x"), Err(TokenError::Malformed));
        assert!(looks_like_jwt("a.b.c") && !looks_like_jwt("opaque-token"));
    }

    #[test]
    fn far_expiries_saturate() {
        assert!(instant_of(u64::MAX) > Instant::now());
        assert!(instant_of(10u64.pow(19)) > Instant::now());
        assert!(instant_of(0) <= Instant::now());
    }
}
