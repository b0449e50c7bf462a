//! Authorization discovery for MCP hosts that implement the MCP
//! authorization flow (2025-06-18 and later; RFC 9728, protected resource
//! metadata), when `http.authorization_servers` names the servers that
//! issue Lorebase credentials.
//!
//! - A request to the MCP path without an `Authorization` header (or with
//!   one that is not `Bearer <token>`) is answered 401 with
//!   `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource<path>"`.
//! - `GET /.well-known/oauth-protected-resource` (with or without the MCP
//!   path after it) serves the metadata: the resource, its authorization
//!   servers, `bearer_methods_supported: ["header"]`.
//!
//! Herald does not check tokens itself: Keeper does, and refuses a bad one
//! with `[unauthorized]`, as without this setting. Without it, a call
//! without a credential stays an `[unauthorized]` tool error (herald.md).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use herald_core::config::HttpSettings;
use serde_json::{Value, json};

use crate::http::guard::refusal;
use crate::mcp::credential::{CredentialError, bearer};

/// Where the protected resource metadata is served (RFC 9728, section 3).
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What the discovery answers with.
#[derive(Debug, Clone)]
pub struct AuthDiscovery {
    servers: Vec<String>,
    resource_url: Option<String>,
    path: String,
}

impl AuthDiscovery {
    /// From the settings; `None` when no authorization server is named.
    pub fn from_settings(http: &HttpSettings, path: &str) -> Option<Arc<Self>> {
        if http.authorization_servers.is_empty() {
            return None;
        }
        Some(Arc::new(Self {
            servers: http.authorization_servers.clone(),
            resource_url: http.resource_url.clone(),
            path: path.to_string(),
        }))
    }

    /// The resource identifier: `http.resource_url`, else
    /// `http://<Host><path>` of the request (the guard accepted that Host).
    fn resource(&self, headers: &HeaderMap) -> String {
        if let Some(url) = &self.resource_url {
            return url.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("127.0.0.1");
        format!("http://{host}{}", self.path)
    }

    /// The metadata URL of `resource`: its origin, the well-known path,
    /// then its own path.
    fn metadata_url(resource: &str) -> String {
        match url::Url::parse(resource) {
            Ok(url) => {
                let origin = url.origin().ascii_serialization();
                let path = url.path().trim_end_matches('/');
                format!("{origin}{WELL_KNOWN}{path}")
            }
            Err(_) => WELL_KNOWN.to_string(),
        }
    }

    /// The protected resource metadata document.
    fn document(&self, headers: &HeaderMap) -> Value {
        json!({
            "resource": self.resource(headers),
            "authorization_servers": self.servers,
            "bearer_methods_supported": ["header"],
            "resource_name": "Lorebase Herald",
        })
    }

    /// The routes of the metadata document.
    pub fn router(self: &Arc<Self>) -> Router {
        Router::new()
            .route(WELL_KNOWN, get(protected_resource))
            .route(&format!("{WELL_KNOWN}/{{*rest}}"), get(protected_resource))
            .with_state(self.clone())
    }
}

/// `GET /.well-known/oauth-protected-resource[/...]`: public metadata,
/// readable from any origin.
async fn protected_resource(
    State(discovery): State<Arc<AuthDiscovery>>,
    headers: HeaderMap,
) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        discovery.document(&headers).to_string(),
    )
        .into_response()
}

/// The middleware on the MCP path: a request without a usable bearer gets
/// 401 and the `WWW-Authenticate` challenge naming the metadata.
pub async fn require_bearer(
    State(discovery): State<Arc<AuthDiscovery>>,
    request: Request,
    next: Next,
) -> Response {
    let reason = match bearer(Some(request.headers()), false) {
        Ok(_) => return next.run(request).await,
        Err(reason) => reason,
    };
    let metadata = AuthDiscovery::metadata_url(&discovery.resource(request.headers()));
    let challenge = match reason {
        CredentialError::Missing => format!("Bearer resource_metadata=\"{metadata}\""),
        CredentialError::Malformed => {
            format!("Bearer error=\"invalid_request\", resource_metadata=\"{metadata}\"")
        }
    };
    tracing::debug!("answered 401 to a request without a bearer token");
    let mut response = refusal(
        StatusCode::UNAUTHORIZED,
        -32001,
        &format!("Unauthorized: {reason}; the authorization servers are listed at {metadata}"),
    );
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery(resource_url: Option<&str>) -> AuthDiscovery {
        AuthDiscovery {
            servers: vec!["https://auth.example.com".into()],
            resource_url: resource_url.map(String::from),
            path: "/mcp".into(),
        }
    }

    #[test]
    fn the_resource_comes_from_the_host_unless_configured() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8090"));
        let d = discovery(None);
        assert_eq!(d.resource(&headers), "http://127.0.0.1:8090/mcp");
        let doc = d.document(&headers);
        assert_eq!(
            doc["authorization_servers"],
            json!(["https://auth.example.com"])
        );
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        let d = discovery(Some("https://herald.example.com/tools/mcp"));
        assert_eq!(d.resource(&headers), "https://herald.example.com/tools/mcp");
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            AuthDiscovery::metadata_url("http://127.0.0.1:8090/mcp"),
            "http://127.0.0.1:8090/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            AuthDiscovery::metadata_url("https://herald.example.com/"),
            "https://herald.example.com/.well-known/oauth-protected-resource"
        );
    }
}
