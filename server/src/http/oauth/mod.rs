//! Herald as an OAuth resource server (MCP authorization, 2025-06-18 on),
//! when `http.authorization_servers` is set: which tokens it accepts and
//! which token a call then sends to Keeper. The gate on the MCP path that
//! uses it is [`crate::http::auth`].
//!
//! - [`validate`]: a JWT checked against its issuer's JWKS ([`issuer`]),
//!   or an opaque token introspected (RFC 7662);
//! - [`exchange`]: RFC 8693 token exchange for a token meant for Keeper;
//! - [`metadata`]: the protected resource metadata (RFC 9728);
//! - [`cache`]: validated and exchanged tokens, briefly and bounded, so a
//!   call costs no round trip to the authorization server;
//! - [`fetch`]: every call to the authorization server, bounded in time and size;
//! - [`error`]: the 401/403 answers.

pub(crate) mod cache;
pub(crate) mod error;
pub(crate) mod exchange;
pub(crate) mod fetch;
pub(crate) mod issuer;
pub(crate) mod metadata;
pub(crate) mod validate;

use std::time::{Duration, Instant};

use herald_core::config::SettingKey;
use herald_core::config::{KeeperToken, Secret, Settings};
use reqwest::Client;

use crate::http::oauth::cache::TokenCache;
use crate::http::oauth::error::TokenError;
use crate::http::oauth::issuer::Issuer;
use crate::http::oauth::validate::{ClientCredentials, Grant};

/// How long a validated token is trusted without being checked again
/// (a revoked opaque token is noticed within this).
const VALIDATED_FOR: Duration = Duration::from_secs(60);
/// Most tokens remembered, validated and exchanged each.
const CACHED_TOKENS: usize = 4096;

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
    exchanged: TokenCache<Secret>,
}

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
        Ok(Some(Self {
            client: fetch::client()?,
            issuers: http
                .authorization_servers
                .iter()
                .map(|u| Issuer::new(u))
                .collect(),
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
            exchanged: TokenCache::new(CACHED_TOKENS),
        }))
    }

    /// The scopes every token must hold.
    pub(crate) fn required_scopes(&self) -> &[String] {
        &self.required_scopes
    }

    /// Checks `token`: cached, else validated (a JWT) or introspected;
    /// then the required scopes.
    pub(crate) async fn validate(&self, token: &str) -> Result<Grant, TokenError> {
        let grant = match self.validated.get(token) {
            Some(grant) => grant,
            None => {
                let grant = self.validate_uncached(token).await?;
                let until = grant.expires.min(Instant::now() + VALIDATED_FOR);
                self.validated.insert(token, until, grant.clone());
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

    async fn validate_uncached(&self, token: &str) -> Result<Grant, TokenError> {
        if validate::looks_like_jwt(token) {
            return validate::jwt(&self.client, &self.issuers, &self.resource, token).await;
        }
        match (&self.introspection, &self.credentials) {
            (Some(endpoint), Some(credentials)) => {
                validate::introspect(
                    &self.client,
                    endpoint,
                    credentials,
                    &self.issuers,
                    &self.resource,
                    token,
                )
                .await
            }
            _ => Err(TokenError::Malformed),
        }
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
        if let Some(exchanged) = self.exchanged.get(token.expose()) {
            return Ok(exchanged);
        }
        let credentials = self
            .credentials
            .as_ref()
            .ok_or(TokenError::ExchangeRefused)?;
        let issuer = &self.issuers[grant.issuer];
        let endpoint = issuer.token_endpoint(&self.client).await?;
        let (exchanged, until) = exchange::exchange(
            &self.client,
            &endpoint,
            credentials,
            &self.keeper_url,
            token.expose(),
        )
        .await?;
        self.exchanged
            .insert(token.expose(), until.min(grant.expires), exchanged.clone());
        Ok(exchanged)
    }

    /// Forgets what was learned about `token` (Keeper refused it, or what
    /// it was exchanged for).
    pub(crate) fn forget(&self, token: &str) {
        self.validated.remove(token);
        self.exchanged.remove(token);
    }
}
