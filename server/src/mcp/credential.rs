//! Which credential a call carries: the configured key (stdio), or the
//! caller's own `Authorization: Bearer` header (Streamable HTTP), forwarded
//! unchanged; header-less HTTP calls are refused unless anonymous calls are
//! allowed.

use axum::http::request::Parts;
use axum::http::{HeaderMap, header::AUTHORIZATION};
use herald_core::config::{OutputSettings, Secret};
use herald_core::error::ToolError;
use herald_core::keeper::Credential;
use herald_core::keeper::model::ProblemCode;
use herald_core::tools::RenderedOutput;
use rmcp::model::Extensions;

/// How this Herald finds the credential of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerAuth {
    /// stdio and in-process: every call carries `keeper.api_key`.
    Configured,
    /// Streamable HTTP: the caller's `Authorization: Bearer` header.
    HttpBearer {
        /// Header-less calls go to Keeper without a credential.
        allow_anonymous: bool,
    },
}

/// Why an HTTP call has no usable credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// No `Authorization` header.
    #[error(
        "this call has no credential: send your Lorebase API key as `Authorization: Bearer <key>`"
    )]
    Missing,
    /// An `Authorization` header that is not `Bearer <token>`.
    #[error("the Authorization header must be `Bearer <api key>`")]
    Malformed,
}

impl CredentialError {
    /// The tool error a model sees (`[unauthorized] ...`, do not retry),
    /// within the output caps.
    pub fn to_output(self, caps: &OutputSettings) -> RenderedOutput {
        ToolError {
            code: ProblemCode::Unauthorized.into(),
            message: self.to_string(),
            issues: Vec::new(),
            head: None,
            retry_after: None,
            next: None,
        }
        .to_output(caps)
    }
}

impl CallerAuth {
    /// The credential of one request; `extensions` carries the HTTP request
    /// parts when the call came over Streamable HTTP.
    pub fn credential(&self, extensions: &Extensions) -> Result<Credential, CredentialError> {
        match self {
            Self::Configured => Ok(Credential::Configured),
            Self::HttpBearer { allow_anonymous } => {
                let headers = extensions.get::<Parts>().map(|p| &p.headers);
                bearer(headers, *allow_anonymous)
            }
        }
    }
}

/// The credential in `headers` (none at all counts as no header).
pub fn bearer(
    headers: Option<&HeaderMap>,
    allow_anonymous: bool,
) -> Result<Credential, CredentialError> {
    let mut values = headers
        .map(|h| h.get_all(AUTHORIZATION).iter().collect::<Vec<_>>())
        .unwrap_or_default();
    if values.is_empty() {
        return if allow_anonymous {
            Ok(Credential::Anonymous)
        } else {
            Err(CredentialError::Missing)
        };
    }
    if values.len() > 1 {
        return Err(CredentialError::Malformed);
    }
    let value = values.pop().and_then(|v| v.to_str().ok());
    let token = value
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|t| !t.is_empty() && !t.contains(char::is_whitespace))
        .ok_or(CredentialError::Malformed)?;
    Ok(Credential::Bearer(Secret::new(token)))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn bearer_is_forwarded_unchanged() {
        let h = headers(&["Bearer lbk_abcdefghij_12345678"]);
        assert_eq!(
            bearer(Some(&h), false),
            Ok(Credential::Bearer(Secret::new("lbk_abcdefghij_12345678")))
        );
        let lower = headers(&["bearer tok"]);
        assert_eq!(
            bearer(Some(&lower), false),
            Ok(Credential::Bearer(Secret::new("tok")))
        );
    }

    #[test]
    fn missing_header_is_refused_unless_anonymous() {
        let empty = HeaderMap::new();
        assert_eq!(bearer(Some(&empty), false), Err(CredentialError::Missing));
        assert_eq!(bearer(None, false), Err(CredentialError::Missing));
        assert_eq!(bearer(Some(&empty), true), Ok(Credential::Anonymous));
    }

    #[test]
    fn a_header_that_is_present_is_always_used() {
        let h = headers(&["Bearer k"]);
        assert_eq!(
            bearer(Some(&h), true),
            Ok(Credential::Bearer(Secret::new("k")))
        );
    }

    #[test]
    fn malformed_headers_are_refused() {
        for bad in [
            &["Basic dXNlcjpwYXNz"][..],
            &["Bearer"],
            &["Bearer "],
            &["Bearer a b"],
            &["Bearer a", "Bearer b"],
        ] {
            assert_eq!(
                bearer(Some(&headers(bad)), true),
                Err(CredentialError::Malformed),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn stdio_uses_the_configured_key() {
        assert_eq!(
            CallerAuth::Configured.credential(&Extensions::default()),
            Ok(Credential::Configured)
        );
        let http = CallerAuth::HttpBearer {
            allow_anonymous: false,
        };
        assert_eq!(
            http.credential(&Extensions::default()),
            Err(CredentialError::Missing)
        );
    }
}
