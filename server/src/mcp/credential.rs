//! Which credential a call carries: the configured key (stdio); the
//! caller's own `Authorization: Bearer` header (Streamable HTTP, a Lorebase
//! API key), forwarded unchanged, header-less calls refused unless anonymous
//! calls are allowed; or, with OAuth on, the token the gate
//! ([`crate::http::auth`]) obtains for Keeper, never the client's header,
//! and only when a call needs Keeper ([`CallerAuth::keeper_credential`]):
//! a `tools/list` or a `ping` costs no token exchange.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::request::Parts;
use axum::http::{HeaderMap, header::AUTHORIZATION};
use herald_core::config::{OutputSettings, Secret};
use herald_core::error::ToolError;
use herald_core::keeper::Credential;
use herald_core::keeper::model::ProblemCode;
use herald_core::remote::OAuthCaller;
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
    /// Streamable HTTP with OAuth on: the token in the request's
    /// [`OAuthCall`], put there by the gate.
    OAuth,
}

/// Where the token an OAuth call sends to Keeper comes from: asked when a
/// call first needs Keeper, never before.
pub trait KeeperTokenSource: Send + Sync + std::fmt::Debug {
    /// The token for Keeper, or why there is none (a message quoting no
    /// token; the source keeps the refusal for the gate's answer).
    fn keeper_token(&self) -> Pin<Box<dyn Future<Output = Result<Secret, String>> + Send + '_>>;
}

/// What the OAuth gate hands one request: where its token for Keeper comes
/// from, the caller (its scopes, its token for remote servers), and whether
/// Keeper refused the token (the gate then answers 401).
#[derive(Debug, Clone)]
pub struct OAuthCall {
    keeper: Arc<dyn KeeperTokenSource>,
    caller: OAuthCaller,
    refused: Arc<AtomicBool>,
}

impl OAuthCall {
    /// A call whose token for Keeper comes from `keeper`, for `caller`.
    pub fn new(keeper: Arc<dyn KeeperTokenSource>, caller: OAuthCaller) -> Self {
        Self {
            keeper,
            caller,
            refused: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether a tool call of this request got Keeper's `[unauthorized]`.
    pub fn keeper_refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }
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
    /// With OAuth on: no token for Keeper could be had for this call (the
    /// HTTP answer, 401 or 503, says why).
    #[error(
        "the authorization server gave no token for Keeper for this call; sign in again, or retry shortly"
    )]
    NoKeeperToken,
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
    /// The credential of one request for what does not reach Keeper (an
    /// audit line, a KB or remote tool); `extensions` carries the HTTP
    /// request parts when the call came over Streamable HTTP. With OAuth on
    /// it holds no token ([`Credential::Anonymous`]): a call that reaches
    /// Keeper takes [`Self::keeper_credential`].
    pub fn credential(&self, extensions: &Extensions) -> Result<Credential, CredentialError> {
        match self {
            Self::Configured => Ok(Credential::Configured),
            Self::HttpBearer { allow_anonymous } => {
                let headers = extensions.get::<Parts>().map(|p| &p.headers);
                bearer(headers, *allow_anonymous)
            }
            Self::OAuth => oauth_call(extensions)
                .map(|_| Credential::Anonymous)
                .ok_or(CredentialError::Missing),
        }
    }

    /// The credential of a call that reaches Keeper: with OAuth on, the
    /// token for Keeper, obtained now (exchanged, or cached); otherwise
    /// [`Self::credential`].
    pub async fn keeper_credential(
        &self,
        extensions: &Extensions,
    ) -> Result<Credential, CredentialError> {
        if *self != Self::OAuth {
            return self.credential(extensions);
        }
        let call = oauth_call(extensions).ok_or(CredentialError::Missing)?;
        match call.keeper.keeper_token().await {
            Ok(token) => Ok(Credential::Bearer(token)),
            Err(reason) => {
                tracing::debug!(%reason, "no token for Keeper");
                Err(CredentialError::NoKeeperToken)
            }
        }
    }

    /// Notes an answer that reached the caller (a tool's result, or a
    /// resource read's error message): with OAuth on, Keeper's
    /// `[unauthorized]` marks the request, so that the gate answers HTTP 401.
    pub fn note_answer(&self, extensions: &Extensions, is_error: bool, text: &str) {
        if *self == Self::OAuth
            && is_error
            && text
                .strip_prefix('[')
                .and_then(|rest| rest.strip_prefix(ProblemCode::Unauthorized.as_str()))
                .is_some_and(|rest| rest.starts_with(']'))
            && let Some(call) = oauth_call(extensions)
        {
            call.refused.store(true, Ordering::Release);
        }
    }
}

fn oauth_call(extensions: &Extensions) -> Option<&OAuthCall> {
    extensions
        .get::<Parts>()
        .and_then(|p| p.extensions.get::<OAuthCall>())
}

/// The OAuth caller of a request, put there by the gate.
pub fn oauth_caller(extensions: &Extensions) -> Option<&OAuthCaller> {
    oauth_call(extensions).map(|call| &call.caller)
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

    #[test]
    fn oauth_calls_send_the_gates_token_never_the_header() {
        let (mut parts, ()) = axum::http::Request::builder()
            .header(AUTHORIZATION, "Bearer the-clients-token")
            .body(())
            .unwrap()
            .into_parts();
        let mut extensions = Extensions::default();
        extensions.insert(parts.clone());
        assert_eq!(
            CallerAuth::OAuth.credential(&extensions),
            Err(CredentialError::Missing)
        );
        #[derive(Debug)]
        struct NoExchange;
        impl herald_core::remote::CallerExchange for NoExchange {
            fn token_for<'a>(
                &'a self,
                _audience: &'a str,
            ) -> std::pin::Pin<
                Box<
                    dyn std::future::Future<
                            Output = Result<Secret, herald_core::remote::ExchangeFailure>,
                        > + Send
                        + 'a,
                >,
            > {
                Box::pin(async { Err(herald_core::remote::ExchangeFailure("none".into())) })
            }
        }
        let caller = OAuthCaller {
            scopes: vec!["s".into()],
            exchange: Arc::new(NoExchange),
        };
        #[derive(Debug, Default)]
        struct Counted(std::sync::atomic::AtomicUsize);
        impl KeeperTokenSource for Counted {
            fn keeper_token(
                &self,
            ) -> Pin<Box<dyn Future<Output = Result<Secret, String>> + Send + '_>> {
                self.0.fetch_add(1, Ordering::SeqCst);
                Box::pin(async { Ok(Secret::new("for-keeper")) })
            }
        }
        let source = Arc::new(Counted::default());
        let call = OAuthCall::new(source.clone(), caller);
        parts.extensions.insert(call.clone());
        extensions.insert(parts);
        // What does not reach Keeper holds no token and asks for none.
        assert_eq!(
            CallerAuth::OAuth.credential(&extensions),
            Ok(Credential::Anonymous)
        );
        assert_eq!(source.0.load(Ordering::SeqCst), 0);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(
            rt.block_on(CallerAuth::OAuth.keeper_credential(&extensions)),
            Ok(Credential::Bearer(Secret::new("for-keeper")))
        );
        assert_eq!(source.0.load(Ordering::SeqCst), 1);
        CallerAuth::OAuth.note_answer(&extensions, false, "[unauthorized] in a text");
        assert!(!call.keeper_refused());
        CallerAuth::OAuth.note_answer(&extensions, true, "[unauthorized] not valid");
        assert!(call.keeper_refused());
    }
}
