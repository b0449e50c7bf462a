//! One authorization server: its RFC 8414 metadata (where its keys and
//! token endpoint are) and its JWKS, fetched when first needed and cached.
//! A token signed with a key id the cached set lacks (the server rotated
//! its keys) refetches the set, at most once per [`REFETCH_FLOOR`], so
//! forged key ids cannot make Herald hammer the server.

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use reqwest::Client;
use serde::Deserialize;
use tokio::sync::Mutex;

use crate::http::oauth::error::TokenError;
use crate::http::oauth::fetch::{self, FetchError};

/// Least time between two fetches of one server's metadata and keys.
pub(crate) const REFETCH_FLOOR: Duration = Duration::from_secs(5);
/// Keys older than this are refetched on their next use.
const MAX_KEYS_AGE: Duration = Duration::from_secs(3600);

/// What Herald uses of the authorization server metadata (RFC 8414).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    /// Must equal the issuer the metadata was fetched for (RFC 8414, 3.3).
    issuer: String,
    /// The JWKS.
    jwks_uri: Option<String>,
    /// Where token exchange (RFC 8693) is asked for.
    pub(crate) token_endpoint: Option<String>,
}

#[derive(Debug, Default)]
struct Fetched {
    metadata: Option<ServerMetadata>,
    keys: Option<JwkSet>,
    at: Option<Instant>,
}

/// One configured authorization server.
#[derive(Debug)]
pub(crate) struct Issuer {
    /// The issuer URL as configured.
    pub(crate) url: String,
    fetched: Mutex<Fetched>,
}

impl Issuer {
    /// Nothing fetched yet.
    pub(crate) fn new(url: &str) -> Self {
        Self {
            url: url.to_string(),
            fetched: Mutex::new(Fetched::default()),
        }
    }

    /// Whether a token's `iss` names this server (a trailing `/` aside).
    pub(crate) fn is(&self, iss: &str) -> bool {
        iss.trim_end_matches('/') == self.url.trim_end_matches('/')
    }

    /// The metadata URLs to try: RFC 8414's (the well-known path inserted
    /// before the issuer's path), then OpenID Connect's.
    fn metadata_urls(&self) -> Vec<String> {
        let Ok(url) = url::Url::parse(&self.url) else {
            return Vec::new();
        };
        let origin = url.origin().ascii_serialization();
        let path = url.path().trim_end_matches('/');
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                self.url.trim_end_matches('/')
            ),
        ]
    }

    async fn fetch_metadata(&self, client: &Client) -> Result<ServerMetadata, FetchError> {
        let mut last = FetchError::Status(404);
        for url in self.metadata_urls() {
            match fetch::json::<ServerMetadata>(client.get(&url)).await {
                Ok(m) if self.is(&m.issuer) => return Ok(m),
                Ok(_) => last = FetchError::Invalid("its issuer is another server".into()),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Refetches the metadata (when missing) and the keys, unless the last
    /// fetch is more recent than [`REFETCH_FLOOR`].
    async fn refresh(&self, client: &Client, fetched: &mut Fetched) -> Result<(), TokenError> {
        if fetched.at.is_some_and(|at| at.elapsed() < REFETCH_FLOOR) {
            return Ok(());
        }
        fetched.at = Some(Instant::now());
        let unavailable = |what: &str, e: FetchError| {
            tracing::warn!(issuer = %self.url, error = %e, "cannot fetch the authorization server's {what}");
            TokenError::Unavailable(format!("its {what}: {e}"))
        };
        if fetched.metadata.is_none() {
            fetched.metadata = Some(
                self.fetch_metadata(client)
                    .await
                    .map_err(|e| unavailable("metadata", e))?,
            );
        }
        let Some(jwks_uri) = fetched.metadata.as_ref().and_then(|m| m.jwks_uri.clone()) else {
            return Ok(());
        };
        let keys = fetch::json::<JwkSet>(client.get(&jwks_uri))
            .await
            .map_err(|e| unavailable("JWKS", e))?;
        tracing::debug!(issuer = %self.url, keys = keys.keys.len(), "fetched the authorization server's JWKS");
        fetched.keys = Some(keys);
        Ok(())
    }

    /// The key `kid` of this server, from the cache or, when the cache
    /// lacks it or is old, from a refetch.
    pub(crate) async fn key(&self, client: &Client, kid: &str) -> Result<Jwk, TokenError> {
        let mut fetched = self.fetched.lock().await;
        let find = |f: &Fetched| f.keys.as_ref().and_then(|k| k.find(kid)).cloned();
        let fresh = fetched.at.is_some_and(|at| at.elapsed() < MAX_KEYS_AGE);
        if let Some(key) = find(&fetched).filter(|_| fresh) {
            return Ok(key);
        }
        self.refresh(client, &mut fetched).await?;
        match (&fetched.keys, find(&fetched)) {
            (_, Some(key)) => Ok(key),
            // Nothing fetched yet (the last try failed, within the floor).
            (None, None) => Err(TokenError::Unavailable("its JWKS".into())),
            (Some(_), None) => Err(TokenError::UnknownKey),
        }
    }

    /// The token endpoint (for token exchange).
    pub(crate) async fn token_endpoint(&self, client: &Client) -> Result<String, TokenError> {
        let mut fetched = self.fetched.lock().await;
        if fetched.metadata.is_none() {
            self.refresh(client, &mut fetched).await?;
        }
        fetched
            .metadata
            .as_ref()
            .and_then(|m| m.token_endpoint.clone())
            .ok_or_else(|| TokenError::Unavailable("its metadata names no token_endpoint".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            Issuer::new("https://auth.example.com/tenant/1").metadata_urls()[0],
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant/1"
        );
        assert_eq!(
            Issuer::new("https://auth.example.com/").metadata_urls(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert!(Issuer::new("https://a.example/").is("https://a.example"));
    }
}
