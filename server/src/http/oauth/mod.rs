//! Herald as an OAuth resource server (MCP authorization, 2025-06-18 on),
//! when `http.authorization_servers` is set: which tokens it accepts and
//! which token a call then sends to Keeper. The gate on the MCP path that
//! uses it is [`crate::http::auth`].
//!
//! - [`validate`]: a JWT checked against its issuer's JWKS ([`issuer`]),
//!   or an opaque token introspected (RFC 7662);
//! - [`exchange`]: RFC 8693 token exchange for a token meant for Keeper,
//!   asked only when a call needs one (a `tools/list` or a `ping` exchanges
//!   nothing), one in flight per token and audience, a refusal remembered
//!   [`REFUSED_FOR`];
//! - [`metadata`]: the protected resource metadata (RFC 9728);
//! - [`cache`]: validated and exchanged tokens, briefly and bounded, so a
//!   call costs no round trip to the authorization server;
//! - [`fetch`]: every call to the authorization server, bounded in time and size;
//! - [`limit`]: how many introspections an unauthenticated client can cause
//!   (`http.introspection_*`), and how many exchanges (`http.exchange_*`);
//! - [`error`]: the 401/403/503 answers.
//!
//! A bearer longer than [`MAX_TOKEN_BYTES`] is refused (401) before anything
//! is asked about it. Every lifetime the authorization server gives (`exp`,
//! `expires_in`) is read with saturating arithmetic ([`cache::after`]).

pub(crate) mod cache;
pub(crate) mod error;
pub(crate) mod exchange;
pub(crate) mod fetch;
pub(crate) mod issuer;
pub(crate) mod limit;
pub(crate) mod metadata;
pub(crate) mod validate;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use herald_core::config::SettingKey;
use herald_core::config::{KeeperToken, Secret, Settings};
use herald_core::remote::{CallerExchange, ExchangeFailure};
use reqwest::Client;
use tokio::sync::OnceCell;

use crate::http::oauth::cache::{TokenCache, TokenKey, after};
use crate::http::oauth::error::TokenError;
use crate::http::oauth::issuer::Issuer;
use crate::http::oauth::limit::{CallLimit, CallLimits};
use crate::http::oauth::validate::{ClientCredentials, Grant};
use crate::mcp::credential::KeeperTokenSource;

/// How long a validated token is trusted without being checked again
/// (a revoked opaque token is noticed within this).
const VALIDATED_FOR: Duration = Duration::from_secs(60);
/// How long an introspection's or an exchange's "no" is remembered (the
/// same refused token sent again costs no call).
pub(crate) const REFUSED_FOR: Duration = Duration::from_secs(10);
/// Most tokens remembered, validated, refused and exchanged each.
const CACHED_TOKENS: usize = 4096;
/// The longest bearer token accepted (a JWT with many claims is 1-2 KiB):
/// longer ones are refused before any call.
pub(crate) const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// The resource server's settings and caches.
#[derive(Debug)]
pub(crate) struct ResourceServer {
    client: Client,
    issuers: Vec<Issuer>,
    /// `http.resource_url`: the audience every token must hold.
    pub(crate) resource: String,
    required_scopes: Vec<String>,
    introspection: Option<String>,
    credentials: Option<ClientCredentials>,
    keeper_token: KeeperToken,
    keeper_url: String,
    validated: TokenCache<Grant>,
    refused: TokenCache<TokenError>,
    exchanged: TokenCache<Secret>,
    /// Exchanges the authorization server refused, by audience and token.
    refused_exchanges: TokenCache<TokenError>,
    /// The exchange in flight of each audience and token: every call that
    /// needs it waits for its one answer.
    exchanges_in_flight: Mutex<HashMap<TokenKey, Flight>>,
    introspections: CallLimit,
    exchanges: CallLimit,
}

/// One exchange in flight, shared by the calls waiting for it (if the call
/// that started it goes away, the next waiting one carries it on).
type Flight = Arc<OnceCell<Result<Secret, TokenError>>>;

impl ResourceServer {
    /// From the settings; `None` without `http.authorization_servers`.
    /// The settings' load has checked that `resource_url` (and a client,
    /// where one is needed) are set.
    pub(crate) fn from_settings(settings: &Settings) -> Result<Option<Self>, String> {
        let http = &settings.http;
        if http.authorization_servers.is_empty() {
            return Ok(None);
        }
        let resource = http.resource_url.clone().ok_or_else(|| {
            format!(
                "{} needs {} (the audience tokens must hold)",
                SettingKey::HttpAuthorizationServers,
                SettingKey::HttpResourceUrl
            )
        })?;
        let client = fetch::client()?;
        Ok(Some(Self {
            issuers: http
                .authorization_servers
                .iter()
                .map(|u| Issuer::new(u, client.clone()))
                .collect(),
            client,
            resource,
            required_scopes: http.required_scopes.clone(),
            introspection: http.introspection_endpoint.clone(),
            credentials: http.oauth_client_id.clone().map(|id| ClientCredentials {
                id,
                secret: http.oauth_client_secret.clone(),
            }),
            keeper_token: http.keeper_token,
            keeper_url: settings.keeper.base_url.trim_end_matches('/').to_string(),
            validated: TokenCache::new(CACHED_TOKENS),
            refused: TokenCache::new(CACHED_TOKENS),
            exchanged: TokenCache::new(CACHED_TOKENS),
            refused_exchanges: TokenCache::new(CACHED_TOKENS),
            exchanges_in_flight: Mutex::new(HashMap::new()),
            introspections: CallLimit::new(CallLimits::introspection(http)),
            exchanges: CallLimit::new(CallLimits::exchange(http)),
        }))
    }

    /// The scopes every token must hold.
    pub(crate) fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// The authorization server `index` (of a [`Grant`]), as configured.
    pub(crate) fn issuer_url(&self, index: usize) -> &str {
        self.issuers.get(index).map_or("", |i| i.url.as_str())
    }

    /// The authorization servers, as configured.
    pub(crate) fn issuer_urls(&self) -> Vec<&str> {
        self.issuers.iter().map(|i| i.url.as_str()).collect()
    }

    /// Checks `token`: its length, then cached, else validated (a JWT) or
    /// introspected; then the required scopes.
    pub(crate) async fn validate(&self, token: &str) -> Result<Grant, TokenError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenError::TooLong);
        }
        let key = TokenKey::of(token);
        let grant = match self.validated.get(&key) {
            Some(grant) => grant,
            None => {
                if let Some(refused) = self.refused.get(&key) {
                    return Err(refused);
                }
                let grant = self.validate_uncached(&key, token).await?;
                let until = grant.expires.min(after(VALIDATED_FOR));
                self.validated.insert(key, until, grant.clone());
                grant
            }
        };
        if grant.expires <= Instant::now() {
            return Err(TokenError::Expired);
        }
        let missing: Vec<&str> = self
            .required_scopes
            .iter()
            .filter(|s| !grant.scopes.contains(s))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(TokenError::InsufficientScope(
                self.required_scopes.join(" "),
            ));
        }
        Ok(grant)
    }

    async fn validate_uncached(&self, key: &TokenKey, token: &str) -> Result<Grant, TokenError> {
        if validate::looks_like_jwt(token) {
            return validate::jwt(&self.issuers, &self.resource, token).await;
        }
        let (Some(endpoint), Some(credentials)) = (&self.introspection, &self.credentials) else {
            return Err(TokenError::Malformed);
        };
        let Some(_admitted) = self.introspections.admit() else {
            tracing::debug!("introspection bound reached: answered 503 without a call");
            return Err(TokenError::Busy);
        };
        let answer = validate::introspect(
            &self.client,
            endpoint,
            credentials,
            &self.issuers,
            &self.resource,
            token,
        )
        .await;
        if let Err(e) = &answer
            && !matches!(e, TokenError::Unavailable(_))
        {
            self.refused.insert(*key, after(REFUSED_FOR), e.clone());
        }
        answer
    }

    /// The token a call with `token` (granted as `grant`) sends to Keeper:
    /// the exchanged one (cached), or `token` itself where the operator set
    /// `http.keeper_token: forward`.
    pub(crate) async fn keeper_token(
        &self,
        token: &Secret,
        grant: &Grant,
    ) -> Result<Secret, TokenError> {
        if self.keeper_token == KeeperToken::Forward {
            return Ok(token.clone());
        }
        self.exchanged_for(token, grant, &self.keeper_url).await
    }

    /// `token` exchanged (RFC 8693) for one whose audience is `audience`
    /// (Keeper, or a remote MCP server), cached per audience and token
    /// until shortly before it expires; a refusal is remembered
    /// [`REFUSED_FOR`], and the calls that need the same exchange at once
    /// share one call to the authorization server.
    pub(crate) async fn exchanged_for(
        &self,
        token: &Secret,
        grant: &Grant,
        audience: &str,
    ) -> Result<Secret, TokenError> {
        let key = TokenKey::of_parts(&[audience, token.expose()]);
        if let Some(exchanged) = self.exchanged.get(&key) {
            return Ok(exchanged);
        }
        if let Some(refused) = self.refused_exchanges.get(&key) {
            return Err(refused);
        }
        let flight = self
            .flights()
            .entry(key)
            .or_insert_with(|| Arc::new(OnceCell::new()))
            .clone();
        let answer = flight
            .get_or_init(|| self.exchange_uncached(key, token, grant, audience))
            .await
            .clone();
        let mut flights = self.flights();
        if flights.get(&key).is_some_and(|f| Arc::ptr_eq(f, &flight)) {
            flights.remove(&key);
        }
        answer
    }

    fn flights(&self) -> std::sync::MutexGuard<'_, HashMap<TokenKey, Flight>> {
        self.exchanges_in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// One exchange at the authorization server, within the exchange
    /// bound; its answer cached (a token) or remembered (a refusal).
    async fn exchange_uncached(
        &self,
        key: TokenKey,
        token: &Secret,
        grant: &Grant,
        audience: &str,
    ) -> Result<Secret, TokenError> {
        // Asked again by a call that found no flight: it may have just ended.
        if let Some(exchanged) = self.exchanged.get(&key) {
            return Ok(exchanged);
        }
        if let Some(refused) = self.refused_exchanges.get(&key) {
            return Err(refused);
        }
        let credentials = self
            .credentials
            .as_ref()
            .ok_or(TokenError::ExchangeRefused)?;
        let issuer = &self.issuers[grant.issuer];
        let endpoint = issuer.token_endpoint().await?;
        let Some(_admitted) = self.exchanges.admit() else {
            tracing::debug!("exchange bound reached: answered 503 without a call");
            return Err(TokenError::Busy);
        };
        let answer = exchange::exchange(
            &self.client,
            &endpoint,
            credentials,
            audience,
            token.expose(),
        )
        .await;
        match answer {
            Ok((exchanged, until)) => {
                self.exchanged
                    .insert(key, until.min(grant.expires), exchanged.clone());
                Ok(exchanged)
            }
            Err(e) => {
                if e == TokenError::ExchangeRefused {
                    let until = after(REFUSED_FOR).min(grant.expires);
                    self.refused_exchanges.insert(key, until, e.clone());
                }
                Err(e)
            }
        }
    }

    /// Forgets what was learned about `token` (Keeper refused it, or what
    /// it was exchanged for).
    pub(crate) fn forget(&self, token: &str) {
        self.validated.remove(&TokenKey::of(token));
        self.exchanged
            .remove(&TokenKey::of_parts(&[&self.keeper_url, token]));
    }
}

/// One caller's validated token, exchanged on demand: for Keeper when a
/// call first needs Keeper ([`KeeperTokenSource`]), for the audience of a
/// remote MCP server (`credential: exchange`) when a call of it does.
#[derive(Debug)]
pub(crate) struct CallerToken {
    pub(crate) server: Arc<ResourceServer>,
    pub(crate) token: Secret,
    pub(crate) grant: Grant,
    /// Why no token for Keeper could be had, once a call asked (the gate
    /// answers 401 or 503 with it).
    keeper_failure: Mutex<Option<TokenError>>,
}

impl CallerToken {
    /// `token`, granted as `grant`, of a caller of `server`.
    pub(crate) fn new(server: Arc<ResourceServer>, token: Secret, grant: Grant) -> Self {
        Self {
            server,
            token,
            grant,
            keeper_failure: Mutex::new(None),
        }
    }

    /// Why a call of this request got no token for Keeper, if one did not.
    pub(crate) fn keeper_failure(&self) -> Option<TokenError> {
        self.keeper_failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl KeeperTokenSource for CallerToken {
    fn keeper_token(&self) -> Pin<Box<dyn Future<Output = Result<Secret, String>> + Send + '_>> {
        Box::pin(async move {
            match self.server.keeper_token(&self.token, &self.grant).await {
                Ok(token) => Ok(token),
                Err(e) => {
                    let message = e.to_string();
                    *self
                        .keeper_failure
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Some(e);
                    Err(message)
                }
            }
        })
    }
}

impl CallerExchange for CallerToken {
    fn token_for<'a>(
        &'a self,
        audience: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Secret, ExchangeFailure>> + Send + 'a>> {
        Box::pin(async move {
            self.server
                .exchanged_for(&self.token, &self.grant, audience)
                .await
                .map_err(|e| ExchangeFailure(e.to_string()))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use herald_core::config::{CONFIG_FILE_VAR, Overrides};

    use super::*;

    /// The three introspection keys of a settings file are the bound the
    /// resource server keeps: two in flight admit exactly two, and a new
    /// opaque token past them is `Busy` (503 `Retry-After: 1`) without a call.
    #[tokio::test]
    async fn the_settings_files_introspection_bound_reaches_the_call_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lorebase.yaml");
        std::fs::write(
            &path,
            "herald:\n  http:\n    authorization_servers: [https://auth.example.com]\n    \
             resource_url: https://herald.example.com/mcp\n    \
             introspection_endpoint: https://auth.example.com/introspect\n    \
             oauth_client_id: herald\n    oauth_client_secret: s3cret\n    \
             introspection_max_in_flight: 2\n    introspection_per_second: 3\n    \
             introspection_burst: 50\n",
        )
        .unwrap();
        let env = BTreeMap::from([(
            CONFIG_FILE_VAR.to_string(),
            path.to_str().unwrap().to_string(),
        )]);
        let settings = Settings::load_with_env(&env, &Overrides::new()).unwrap();
        let server = ResourceServer::from_settings(&settings).unwrap().unwrap();
        assert_eq!(
            server.introspections.limits(),
            CallLimits {
                in_flight: 2,
                per_second: 3.0,
                burst: 50.0,
            }
        );
        let held: Vec<_> = (0..10)
            .filter_map(|_| server.introspections.admit())
            .collect();
        assert_eq!(held.len(), 2);
        let busy = server.validate("an-opaque-token").await.unwrap_err();
        assert_eq!(busy, TokenError::Busy);
        drop(held);
        assert!(server.introspections.admit().is_some());
    }
}
