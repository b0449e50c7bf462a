//! Principals, API keys (`lbk_<10 alnum>_<8 alnum>`) and what each may do.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use keeper_wire::ProblemCode;
use serde::Serialize;

use crate::problem::ApiError;

/// How the sandbox authenticates requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthMode {
    /// Every request is the anonymous administrator (headers are ignored).
    #[default]
    None,
    /// Every API call needs `Authorization: Bearer lbk_...` of a minted key.
    ApiKey,
    /// Every API call needs `Authorization: Bearer <JWT>`: signed by a key
    /// of the JWKS file `--oauth-jwks`, `iss` the `--oauth-issuer`, `aud`
    /// holding the sandbox's own URL; `sub` names a sample principal. A
    /// token issued for another audience (an MCP server's) is refused, so
    /// a test sees whether its MCP server passed a client's token through.
    Jwt,
}

/// An auth mode name other than `none` or `api_key`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("auth mode is none, api_key or jwt, got {0:?}")]
pub struct ParseAuthModeError(pub String);

impl AuthMode {
    /// `none`, `api_key` or `jwt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ApiKey => "api_key",
            Self::Jwt => "jwt",
        }
    }
}

impl fmt::Display for AuthMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AuthMode {
    type Err = ParseAuthModeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Self::None),
            "api_key" | "api-key" => Ok(Self::ApiKey),
            "jwt" => Ok(Self::Jwt),
            other => Err(ParseAuthModeError(other.to_string())),
        }
    }
}

/// A minted API key of a sample principal, as printed on the READY line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MintedKey {
    /// The principal (`agt_reader`).
    pub principal: String,
    /// The key, `lbk_<10 alnum>_<8 alnum>`.
    pub key: String,
    /// Its roles (`agent-reader`, `steward`, `admin`).
    pub roles: Vec<String>,
    /// The Operations it may run (`*` for all).
    pub operations: Vec<String>,
}

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Principal {
    pub id: String,
    pub roles: Vec<String>,
    pub operations: Vec<String>,
}

impl Principal {
    /// The caller of every request in auth mode `none`.
    pub(crate) fn anonymous_admin() -> Self {
        Self {
            id: "anonymous".into(),
            roles: vec!["admin".into()],
            operations: vec!["*".into()],
        }
    }

    pub(crate) fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }

    /// Administrators write to protected branches directly.
    pub(crate) fn is_admin(&self) -> bool {
        self.has_role("admin")
    }

    /// Sensitive attributes are masked for everyone else.
    pub(crate) fn sees_sensitive(&self) -> bool {
        self.is_admin() || self.has_role("steward")
    }

    /// Holds the grant of an Operation.
    pub(crate) fn may_run(&self, operation: &str) -> bool {
        self.operations.iter().any(|o| o == "*" || o == operation)
    }
}

/// The sample principals, in the order their keys are minted.
fn sample_principals() -> Vec<Principal> {
    let p = |id: &str, roles: &[&str], ops: &[&str]| Principal {
        id: id.into(),
        roles: roles.iter().map(std::string::ToString::to_string).collect(),
        operations: ops.iter().map(std::string::ToString::to_string).collect(),
    };
    vec![
        p("agt_reader", &["agent-reader"], &[]),
        p(
            "agt_risk_bot",
            &["agent-reader", "agent-writer"],
            &[
                "update_supplier",
                "flag_supplier_risk",
                "update_product",
                "create_product",
            ],
        ),
        p("usr_steward", &["steward"], &["*"]),
        p("usr_admin", &["admin"], &["*"]),
    ]
}

/// Whom auth mode `jwt` trusts: one issuer, its JWKS file (read again
/// when a token names a key it lacks), the sandbox's own URL as audience.
#[derive(Debug, Clone)]
pub(crate) struct JwtTrust {
    /// The `iss` accepted.
    pub issuer: String,
    /// The JWKS file.
    pub jwks: PathBuf,
    /// The `aud` required (the sandbox's URL).
    pub audience: String,
}

impl JwtTrust {
    /// The sample principal named by the `sub` of a valid token.
    fn authenticate(&self, token: &str) -> Result<Principal, ApiError> {
        let unauthorized = |detail: &str| ApiError::new(ProblemCode::Unauthorized, detail);
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| unauthorized("the bearer token is not a JWT"))?;
        let kid = header
            .kid
            .ok_or_else(|| unauthorized("the token names no key"))?;
        let text = std::fs::read_to_string(&self.jwks)
            .map_err(|_| unauthorized("the sandbox cannot read its JWKS file"))?;
        let set: JwkSet = serde_json::from_str(&text)
            .map_err(|_| unauthorized("the sandbox's JWKS file is not a JWKS"))?;
        let jwk = set
            .find(&kid)
            .ok_or_else(|| unauthorized("the token is signed with an unknown key"))?;
        let key = DecodingKey::from_jwk(jwk).map_err(|_| unauthorized("unusable key"))?;
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        let data = jsonwebtoken::decode::<serde_json::Value>(token, &key, &validation).map_err(
            |e| match e.kind() {
                ErrorKind::InvalidAudience => {
                    unauthorized("the token was not issued for this Keeper (its audience)")
                }
                ErrorKind::ExpiredSignature => unauthorized("the token has expired"),
                _ => unauthorized("the token does not verify"),
            },
        )?;
        let sub = data
            .claims
            .get("sub")
            .and_then(|v| v.as_str())
            .unwrap_or("");
        sample_principals()
            .into_iter()
            .find(|p| p.id == sub)
            .ok_or_else(|| unauthorized("the token's subject is no principal of this Keeper"))
    }
}

/// The minted keys and who they belong to.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyRing {
    by_key: HashMap<String, Principal>,
    minted: Vec<MintedKey>,
    /// Auth mode `jwt`'s trust.
    pub jwt: Option<JwtTrust>,
}

const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn random_alnum(rng: &mut fastrand::Rng, n: usize) -> String {
    (0..n)
        .map(|_| ALNUM[rng.usize(..ALNUM.len())] as char)
        .collect()
}

impl KeyRing {
    /// Mints one key per sample principal (none in auth mode `none`).
    pub(crate) fn mint(mode: AuthMode, seed: Option<u64>) -> Self {
        if mode != AuthMode::ApiKey {
            return Self::default();
        }
        let mut rng = match seed {
            Some(s) => fastrand::Rng::with_seed(s),
            None => fastrand::Rng::new(),
        };
        let mut ring = Self::default();
        for principal in sample_principals() {
            let key = format!(
                "lbk_{}_{}",
                random_alnum(&mut rng, 10),
                random_alnum(&mut rng, 8)
            );
            ring.minted.push(MintedKey {
                principal: principal.id.clone(),
                key: key.clone(),
                roles: principal.roles.clone(),
                operations: principal.operations.clone(),
            });
            ring.by_key.insert(key, principal);
        }
        ring
    }

    pub(crate) fn minted(&self) -> &[MintedKey] {
        &self.minted
    }

    /// The caller of a request, from its `Authorization` header.
    pub(crate) fn authenticate(
        &self,
        mode: AuthMode,
        authorization: Option<&str>,
    ) -> Result<Principal, ApiError> {
        if mode == AuthMode::None {
            return Ok(Principal::anonymous_admin());
        }
        let unauthorized = |detail: &str| ApiError::new(ProblemCode::Unauthorized, detail);
        let header = authorization.ok_or_else(|| {
            unauthorized("an API key is required: send Authorization: Bearer lbk_...")
        })?;
        let (scheme, key) = header
            .trim()
            .split_once(' ')
            .ok_or_else(|| unauthorized("the Authorization header is not Bearer <api key>"))?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(unauthorized(
                "the Authorization header is not Bearer <api key>",
            ));
        }
        if mode == AuthMode::Jwt {
            let trust = self
                .jwt
                .as_ref()
                .ok_or_else(|| unauthorized("auth mode jwt without a trusted issuer"))?;
            return trust.authenticate(key.trim());
        }
        self.by_key
            .get(key.trim())
            .cloned()
            .ok_or_else(|| unauthorized("the API key is not valid"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn well_formed(key: &str) -> bool {
        let parts: Vec<&str> = key.split('_').collect();
        parts.len() == 3
            && parts[0] == "lbk"
            && parts[1].len() == 10
            && parts[2].len() == 8
            && parts[1..]
                .iter()
                .all(|p| p.chars().all(|c| c.is_ascii_alphanumeric()))
    }

    #[test]
    fn seeded_keys_repeat_and_random_ones_differ() {
        let a = KeyRing::mint(AuthMode::ApiKey, Some(7));
        let b = KeyRing::mint(AuthMode::ApiKey, Some(7));
        let c = KeyRing::mint(AuthMode::ApiKey, None);
        assert_eq!(a.minted(), b.minted());
        assert_ne!(a.minted()[0].key, c.minted()[0].key);
        assert!(a.minted().iter().all(|k| well_formed(&k.key)));
        assert_eq!(a.minted().len(), 4);
    }

    #[test]
    fn authentication_checks_the_header() {
        let ring = KeyRing::mint(AuthMode::ApiKey, Some(1));
        let key = ring.minted()[0].key.clone();
        let ok = ring
            .authenticate(AuthMode::ApiKey, Some(&format!("Bearer {key}")))
            .unwrap();
        assert_eq!(ok.id, "agt_reader");
        for bad in [None, Some("Bearer nope"), Some("Basic abc"), Some("")] {
            let err = ring.authenticate(AuthMode::ApiKey, bad).unwrap_err();
            assert_eq!(err.code, ProblemCode::Unauthorized);
            assert!(!err.detail.contains(&key));
        }
        let anon = ring.authenticate(AuthMode::None, Some("junk")).unwrap();
        assert!(anon.is_admin());
    }
}
