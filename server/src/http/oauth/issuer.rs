//! One authorization server: its RFC 8414 metadata (where its keys and
//! token endpoint are) and its JWKS, fetched when first needed and cached.
//!
//! A fetch runs in a task of its own, outside any lock: a token whose key is
//! cached never waits for it (a stale key is used while the refetch runs),
//! and only the tokens that need the fetch's answer (a key id the cached set
//! lacks, nothing fetched yet) wait for it, all on the one fetch in flight.
//! A key id the cached set lacks (the server rotated its keys) starts a
//! refetch at most once per [`REFETCH_FLOOR`]; within the floor it is
//! refused at once, so forged key ids cannot make Herald hammer the server
//! nor queue behind it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use reqwest::Client;
use serde::Deserialize;
use tokio::sync::watch;

use crate::http::oauth::error::TokenError;
use crate::http::oauth::fetch::{self, FetchError};

/// Least time between two fetches of one server's metadata and keys.
pub(crate) const REFETCH_FLOOR: Duration = Duration::from_secs(5);
/// Keys older than this are refetched on their next use (and still used
/// until the refetch answers).
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
    /// When the keys were last fetched.
    keys_at: Option<Instant>,
    /// When the last fetch started (the floor counts from here).
    started_at: Option<Instant>,
    /// A fetch is in flight.
    in_flight: bool,
    /// Why the last fetch failed, if it did.
    failure: Option<TokenError>,
}

#[derive(Debug)]
struct Shared {
    url: String,
    client: Client,
    fetched: Mutex<Fetched>,
    /// Bumped when a fetch ends.
    done: watch::Sender<u64>,
}

/// One configured authorization server.
#[derive(Debug)]
pub(crate) struct Issuer {
    /// The issuer URL as configured.
    pub(crate) url: String,
    shared: Arc<Shared>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Fetched> {
        self.fetched.lock().unwrap_or_else(PoisonError::into_inner)
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

    fn is(&self, iss: &str) -> bool {
        iss.trim_end_matches('/') == self.url.trim_end_matches('/')
    }

    async fn fetch_metadata(&self) -> Result<ServerMetadata, FetchError> {
        let mut last = FetchError::Status(404);
        for url in self.metadata_urls() {
            match fetch::json::<ServerMetadata>(self.client.get(&url)).await {
                Ok(m) if self.is(&m.issuer) => return Ok(m),
                Ok(_) => last = FetchError::OtherIssuer,
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Starts a fetch unless one is in flight or the last one started
    /// within the floor; whether one is in flight now.
    fn start_fetch(self: &Arc<Self>, fetched: &mut Fetched) -> bool {
        if fetched.in_flight {
            return true;
        }
        if fetched
            .started_at
            .is_some_and(|at| at.elapsed() < REFETCH_FLOOR)
        {
            return false;
        }
        fetched.in_flight = true;
        fetched.started_at = Some(Instant::now());
        let metadata = fetched.metadata.clone();
        let shared = self.clone();
        tokio::spawn(async move {
            let outcome = shared.fetch(metadata.clone()).await;
            {
                let mut fetched = shared.lock();
                fetched.in_flight = false;
                match outcome {
                    Ok((metadata, keys)) => {
                        fetched.metadata = Some(metadata);
                        if let Some(keys) = keys {
                            fetched.keys = Some(keys);
                            fetched.keys_at = Some(Instant::now());
                        }
                        fetched.failure = None;
                    }
                    Err(e) => fetched.failure = Some(e),
                }
            }
            shared.done.send_modify(|n| *n = n.wrapping_add(1));
        });
        true
    }

    /// The metadata (fetched when `known` is none) and the keys.
    async fn fetch(
        &self,
        known: Option<ServerMetadata>,
    ) -> Result<(ServerMetadata, Option<JwkSet>), TokenError> {
        let unavailable = |what: &str, e: FetchError| {
            tracing::warn!(issuer = %self.url, error = %e, "cannot fetch the authorization server's {what}");
            TokenError::Unavailable(format!("its {what}: {e}"))
        };
        let metadata = match known {
            Some(m) => m,
            None => self
                .fetch_metadata()
                .await
                .map_err(|e| unavailable("metadata", e))?,
        };
        let Some(jwks_uri) = metadata.jwks_uri.clone() else {
            return Ok((metadata, None));
        };
        let keys = fetch::json::<JwkSet>(self.client.get(&jwks_uri))
            .await
            .map_err(|e| unavailable("JWKS", e))?;
        tracing::debug!(issuer = %self.url, keys = keys.keys.len(), "fetched the authorization server's JWKS");
        Ok((metadata, Some(keys)))
    }

    /// Waits for the fetch in flight (if one is) to end, then reads the
    /// state with `read`.
    async fn after_fetch<T>(
        self: &Arc<Self>,
        mut read: impl FnMut(&mut Fetched, &Arc<Self>) -> Step<T>,
    ) -> T {
        loop {
            let mut done = self.done.subscribe();
            let step = {
                let mut fetched = self.lock();
                read(&mut fetched, self)
            };
            match step {
                Step::Answer(answer) => return answer,
                // The fetch's own timeouts bound this wait.
                Step::Wait => {
                    let _ = done.changed().await;
                }
            }
        }
    }
}

/// Most keys of one `kid` a token is tried against (a JWKS may list a key
/// id twice while a key is rotated; many more is a broken or hostile set,
/// and each try costs a signature check).
pub(crate) const MAX_KEYS_PER_KID: usize = 8;

/// The keys of `set` listed under `kid`, in its order, at most
/// [`MAX_KEYS_PER_KID`].
fn with_kid(set: &JwkSet, kid: &str) -> Vec<Jwk> {
    set.keys
        .iter()
        .filter(|k| k.common.key_id.as_deref() == Some(kid))
        .take(MAX_KEYS_PER_KID)
        .cloned()
        .collect()
}

/// What a reader of the state does next.
enum Step<T> {
    Answer(T),
    Wait,
}

impl Issuer {
    /// Nothing fetched yet; fetches go through `client`.
    pub(crate) fn new(url: &str, client: Client) -> Self {
        Self {
            url: url.to_string(),
            shared: Arc::new(Shared {
                url: url.to_string(),
                client,
                fetched: Mutex::new(Fetched::default()),
                done: watch::Sender::new(0),
            }),
        }
    }

    /// Whether a token's `iss` names this server (a trailing `/` aside).
    pub(crate) fn is(&self, iss: &str) -> bool {
        self.shared.is(iss)
    }

    /// The keys `kid` of this server (every one the JWKS lists under it, at
    /// most [`MAX_KEYS_PER_KID`]): from the cache at once (stale ones
    /// starting a refetch), else from the fetch in flight or a new one
    /// (outside the floor), else refused at once: `UnknownKey` (401) when
    /// the server answered without it, the fetch's failure (503) when it
    /// could not be asked, cached older keys or not.
    pub(crate) async fn keys(&self, kid: &str) -> Result<Vec<Jwk>, TokenError> {
        let mut waited = false;
        self.shared
            .after_fetch(|fetched, shared| {
                let keys = fetched
                    .keys
                    .as_ref()
                    .map(|set| with_kid(set, kid))
                    .unwrap_or_default();
                if !keys.is_empty() {
                    if fetched
                        .keys_at
                        .is_none_or(|at| at.elapsed() >= MAX_KEYS_AGE)
                    {
                        shared.start_fetch(fetched);
                    }
                    return Step::Answer(Ok(keys));
                }
                // Wait once, for the fetch in flight or a new one.
                if !waited && shared.start_fetch(fetched) {
                    waited = true;
                    return Step::Wait;
                }
                Step::Answer(Err(match (&fetched.keys, &fetched.failure) {
                    (_, Some(e)) => e.clone(),
                    // Nothing fetched yet (the last try failed, within the floor).
                    (None, None) => TokenError::Unavailable("its JWKS".into()),
                    (Some(_), None) => TokenError::UnknownKey,
                }))
            })
            .await
    }

    /// The token endpoint (for token exchange).
    pub(crate) async fn token_endpoint(&self) -> Result<String, TokenError> {
        let mut waited = false;
        let metadata = self
            .shared
            .after_fetch(|fetched, shared| {
                if let Some(m) = &fetched.metadata {
                    return Step::Answer(Ok(m.clone()));
                }
                if !waited && shared.start_fetch(fetched) {
                    waited = true;
                    return Step::Wait;
                }
                Step::Answer(Err(fetched
                    .failure
                    .clone()
                    .unwrap_or_else(|| TokenError::Unavailable("its metadata".into()))))
            })
            .await?;
        metadata
            .token_endpoint
            .ok_or_else(|| TokenError::Unavailable("its metadata names no token_endpoint".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issuer(url: &str) -> Issuer {
        Issuer::new(url, Client::new())
    }

    #[test]
    fn the_metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            issuer("https://auth.example.com/tenant/1")
                .shared
                .metadata_urls()[0],
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant/1"
        );
        assert_eq!(
            issuer("https://auth.example.com/").shared.metadata_urls(),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert!(issuer("https://a.example/").is("https://a.example"));
    }
}
