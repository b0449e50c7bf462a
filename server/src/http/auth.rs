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
//! - a valid one: the call gets where its token meant for Keeper comes
//!   from (exchanged when a call first needs Keeper, or the same where
//!   `http.keeper_token: forward`) and the caller (its scopes, its token
//!   for remote servers) in an [`OAuthCall`]. When the exchange fails the
//!   answer is its refusal (401 `invalid_token`, or 503 with
//!   `Retry-After`), and when Keeper refuses the token, 401
//!   `invalid_token` (not a 200 with a tool error), so the client
//!   refreshes its token. A request that never reaches Keeper (`tools/list`,
//!   `ping`, `initialize`) exchanges nothing.
//!
//! Without the setting none of this runs: Lorebase API keys are forwarded,
//! and a call without one is an `[unauthorized]` tool error (docs/tools.md, "Results").

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::remote::OAuthCaller;

use crate::http::cancel_notice::CallerIdentity;
use crate::http::guard::{GuardPolicy, refusal};
use crate::http::oauth::error::TokenError;
use crate::http::oauth::metadata::ProtectedResource;
use crate::http::oauth::{CallerToken, ResourceServer};
use crate::mcp::credential::{CredentialError, OAuthCall, bearer};

/// The gate's state: the resource server and its metadata.
#[derive(Debug)]
pub(crate) struct OAuthGate {
    server: Arc<ResourceServer>,
    metadata: Arc<ProtectedResource>,
    policy: Arc<GuardPolicy>,
}

impl OAuthGate {
    /// From the settings; `None` without `http.authorization_servers`.
    pub(crate) fn from_settings(
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
    pub(crate) fn metadata_router(&self) -> Router {
        self.metadata.router()
    }

    /// 401 for a request without a usable `Authorization` header.
    fn challenge(&self, reason: CredentialError) -> Response {
        let metadata = &self.metadata.url;
        let malformed = reason == CredentialError::Malformed;
        let challenge = if malformed {
            format!("Bearer error=\"invalid_request\", resource_metadata=\"{metadata}\"")
        } else {
            format!("Bearer resource_metadata=\"{metadata}\"")
        };
        tracing::debug!("answered 401 to a request without a bearer token");
        let what = if malformed {
            "the Authorization header must be `Bearer <token>`"
        } else {
            "this call has no bearer token"
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
pub(crate) async fn require_token(
    State(gate): State<Arc<OAuthGate>>,
    mut request: Request,
    next: Next,
) -> Response {
    let (caller, call) = match admit(&gate, request.uri(), request.headers()).await {
        Ok(admitted) => admitted,
        Err(refusal) => return before_the_body(request, refusal).await,
    };
    request.extensions_mut().insert(call.clone());
    request.extensions_mut().insert(CallerIdentity::of(
        gate.server.issuer_url(caller.grant.issuer),
        caller.grant.subject.as_deref(),
        caller.token.expose(),
    ));
    let response = next.run(request).await;
    let token = &caller.token;
    if let Some(failure) = caller.keeper_failure() {
        return failure.into_response(&gate.metadata.url);
    }
    if call.keeper_refused() {
        gate.server.forget(token.expose());
        return TokenError::KeeperRefused.into_response(&gate.metadata.url);
    }
    response
}

/// The request's caller and what the call carries, or the refusal.
async fn admit(
    gate: &Arc<OAuthGate>,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<(Arc<CallerToken>, OAuthCall), Response> {
    gate.policy
        .check_headers(uri, headers)
        .map_err(IntoResponse::into_response)?;
    let token = match bearer(Some(headers), false) {
        Ok(Credential::Bearer(token)) => token,
        Ok(_) => return Err(gate.challenge(CredentialError::Missing)),
        Err(reason) => return Err(gate.challenge(reason)),
    };
    let refused = |e: TokenError| e.into_response(&gate.metadata.url);
    let grant = gate
        .server
        .validate(token.expose())
        .await
        .map_err(refused)?;
    let scopes = grant.scopes.clone();
    let caller_token = Arc::new(CallerToken::new(gate.server.clone(), token, grant));
    let caller = OAuthCaller {
        scopes,
        exchange: caller_token.clone(),
    };
    let call = OAuthCall::new(caller_token.clone(), caller);
    Ok((caller_token, call))
}

/// Bodies up to this size are read (and dropped) before a refusal, so the
/// connection stays usable for the client's next request.
const DRAINED_BODY_BYTES: u64 = 64 * 1024;

/// A refusal answered before the body was read: a small body (declared by
/// `Content-Length`) is read first and dropped, so the kept-alive connection
/// can carry the client's next request; any other is never read, and the
/// answer says `Connection: close` (a client that reused the connection
/// would otherwise meet it closed under its next request).
async fn before_the_body(request: Request, mut refusal: Response) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let body = request.into_body();
    if http_body::Body::is_end_stream(&body) {
        return refusal;
    }
    if declared.is_some_and(|n| n <= DRAINED_BODY_BYTES)
        && axum::body::to_bytes(body, DRAINED_BODY_BYTES as usize)
            .await
            .is_ok()
    {
        return refusal;
    }
    refusal
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    refusal
}
