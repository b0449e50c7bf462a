//! The protected resource metadata (RFC 9728): `resource` is
//! `http.resource_url`, never the request's `Host`; the document is served
//! at the one well-known URL built from it (section 3.1: the well-known
//! path inserted before the resource's path), 404 at any other suffix
//! (section 3.3); the Host and Origin rules of the MCP path apply.

use herald_core::config::SettingKey;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::http::guard::GuardPolicy;

/// Where the protected resource metadata is served (RFC 9728, section 3).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document and where it is served.
#[derive(Debug)]
pub(crate) struct ProtectedResource {
    /// The path the document is served at.
    path: String,
    /// Its full URL, as challenges name it.
    pub(crate) url: String,
    document: String,
    policy: Arc<GuardPolicy>,
}

impl ProtectedResource {
    /// The document of `resource` (an http(s) URL) and its authorization
    /// `servers`, with the scopes tokens must hold.
    pub(crate) fn new(
        resource: &str,
        servers: &[String],
        scopes: &[String],
        policy: Arc<GuardPolicy>,
    ) -> Result<Self, String> {
        let parsed = url::Url::parse(resource).map_err(|e| {
            let key = SettingKey::HttpResourceUrl;
            format!("{key}: {resource:?} is not a URL ({e})")
        })?;
        let origin = parsed.origin().ascii_serialization();
        let path = format!("{WELL_KNOWN}{}", parsed.path().trim_end_matches('/'));
        let mut document = json!({
            "resource": resource,
            "authorization_servers": servers,
            "bearer_methods_supported": ["header"],
            "resource_name": "Lorebase Herald",
        });
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        Ok(Self {
            url: format!("{origin}{path}"),
            path,
            document: document.to_string(),
            policy,
        })
    }

    /// The routes: the well-known path and every suffix of it (the others
    /// answered 404).
    pub(crate) fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route(WELL_KNOWN, get(serve))
            .route(&format!("{WELL_KNOWN}/{{*rest}}"), get(serve))
            .with_state(self.clone())
    }
}

/// `GET /.well-known/oauth-protected-resource[/...]`: public metadata,
/// readable from any origin, under the Host rules.
async fn serve(State(resource): State<Arc<ProtectedResource>>, request: Request) -> Response {
    if let Err(refusal) = resource
        .policy
        .check_headers(request.uri(), request.headers())
    {
        return refusal.into_response();
    }
    if request.uri().path().trim_end_matches('/') != resource.path {
        return StatusCode::NOT_FOUND.into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        resource.document.clone(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_inserts_the_well_known_path_before_the_resource_path() {
        let policy = Arc::new(GuardPolicy::new(&[], &[], 1024).unwrap());
        let r = ProtectedResource::new(
            "https://herald.example.com/tools/mcp",
            &["https://as.example".into()],
            &[],
            policy.clone(),
        )
        .unwrap();
        assert_eq!(
            r.url,
            "https://herald.example.com/.well-known/oauth-protected-resource/tools/mcp"
        );
        let root = ProtectedResource::new("https://herald.example.com/", &[], &[], policy).unwrap();
        assert_eq!(
            root.url,
            "https://herald.example.com/.well-known/oauth-protected-resource"
        );
    }
}
