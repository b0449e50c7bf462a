//! The OAuth gate on the MCP path, when `http.authorization_servers` is
//! set (MCP authorization, 2025-06-18 on; Herald is the resource server,
//! [`crate::http::oauth`]). It runs before the guard reads the body, so a
//! request without a usable token costs its headers only:
//!
//! - the Host and Origin rules first (403, as on every route);
//! - no `Authorization` header: 401 with `WWW-Authenticate: Bearer
//!   resource_metadata="<metadata URL>"` (RFC 9728, 5.1); one that is not
//!   `Bearer <token>`: 401 `error="invalid_request"`;
//! - a token longer than 8 KiB ([`crate::http::oauth::MAX_TOKEN_BYTES`]),
//!   or one that is not valid for `http.resource_url` (wrong audience,
//!   expired, unknown key, bad signature, inactive): 401
//!   `error="invalid_token"`; one without the required scopes: 403
//!   `error="insufficient_scope"`;
//! - a valid one: the call gets the token meant for Keeper (exchanged, or
//!   the same where `http.keeper_token: forward`) and the caller (its
//!   scopes, its token for remote servers) in an [`OAuthCall`], and
//!   when Keeper refuses it, the answer is 401 `invalid_token` (not a 200
//!   with a tool error), so the client refreshes its token.
//!
//! Without the setting none of this runs: Lorebase API keys are forwarded,
//! and a call without one is an `[unauthorized]` tool error (herald.md).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::remote::OAuthCaller;

use crate::http::guard::{GuardPolicy, refusal};
use crate::http::oauth::{CallerToken, ResourceServer};
use crate::http::oauth::error::TokenError;
use crate::http::oauth::metadata::ProtectedResource;
use crate::mcp::credential::{CredentialError, OAuthCall, bearer};

/// The gate's state: the resource server and its metadata.
#[derive(Debug)]
pub struct OAuthGate {
    server: Arc<ResourceServer>,
    metadata: Arc<ProtectedResource>,
    policy: Arc<GuardPolicy>,
}

impl OAuthGate {
    /// From the settings; `None` without `http.authorization_servers`.
    pub fn from_settings(
        settings: &Settings,
        policy: Arc<GuardPolicy>,
    ) -> Result<Option<Arc<Self>>, String> {
        let Some(server) = ResourceServer::from_settings(settings)? else {
            return Ok(None);
        };
        let metadata = Arc::new(ProtectedResource::new(
            &server.resource,
            &settings.http.authorization_servers,
            server.required_scopes(),
            policy.clone(),
        )?);
        Ok(Some(Arc::new(Self {
            server: Arc::new(server),
            metadata,
            policy,
        })))
    }

    /// The routes of the protected resource metadata.
    pub fn metadata_router(&self) -> Router {
        self.metadata.router()
    }

    /// 401 for a request without a usable `Authorization` header.
    fn challenge(&self, reason: CredentialError) -> Response {
        let metadata = &self.metadata.url;
        let challenge = match reason {
            CredentialError::Missing => format!("Bearer resource_metadata=\"{metadata}\""),
            CredentialError::Malformed => {
                format!("Bearer error=\"invalid_request\", resource_metadata=\"{metadata}\"")
            }
        };
        tracing::debug!("answered 401 to a request without a bearer token");
        let what = match reason {
            CredentialError::Missing => "this call has no bearer token",
            CredentialError::Malformed => "the Authorization header must be `Bearer <token>`",
        };
        let servers = self.server.issuer_urls().join(", ");
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            -32001,
            &format!(
                "Unauthorized: {what}; sign in at the authorization server ({servers}) for a token for {} (the protected resource metadata: {metadata})",
                self.server.resource
            ),
        );
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// The middleware on the MCP path (see the module documentation).
pub async fn require_token(
    State(gate): State<Arc<OAuthGate>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Err(refusal) = gate.policy.check_headers(request.uri(), request.headers()) {
        return refusal.into_response();
    }
    let token = match bearer(Some(request.headers()), false) {
        Ok(Credential::Bearer(token)) => token,
        Ok(_) => return gate.challenge(CredentialError::Missing),
        Err(reason) => return gate.challenge(reason),
    };
    let refused = |e: TokenError| e.into_response(&gate.metadata.url);
    let grant = match gate.server.validate(token.expose()).await {
        Ok(grant) => grant,
        Err(e) => return refused(e),
    };
    let keeper_token = match gate.server.keeper_token(&token, &grant).await {
        Ok(t) => t,
        Err(e) => return refused(e),
    };
    let caller = OAuthCaller {
        scopes: grant.scopes.clone(),
        exchange: Arc::new(CallerToken {
            server: gate.server.clone(),
            token: token.clone(),
            grant,
        }),
    };
    let call = OAuthCall::new(keeper_token, caller);
    request.extensions_mut().insert(call.clone());
    let response = next.run(request).await;
    if call.keeper_refused() {
        gate.server.forget(token.expose());
        return refused(TokenError::KeeperRefused);
    }
    response
}
