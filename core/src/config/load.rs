//! Loading the settings: the layers merged ([`super::layers`]), each key
//! applied to its field ([`super::keys`]), then the checks across keys, the
//! API key's secret reference and the remote servers' tokens resolved.

use std::collections::BTreeMap;

use super::error::{ConfigError, SettingSource};
use super::keys::SettingKey;
use super::layers::{self, Overrides};
use super::secret::resolve_secret;
use super::settings::{EnvProxy, HttpSettings, KeeperToken, Settings};
use super::{keys, mcp};

impl Settings {
    /// Loads the settings from the process environment (and the file named by
    /// `LOREBASE_CONFIG`), with `overrides` on top. Variables that are not
    /// valid UTF-8 are ignored.
    pub fn load(overrides: Overrides) -> Result<Self, ConfigError> {
        Self::load_with_env(&process_env(), &overrides)
    }

    /// [`Settings::load`] with an explicit environment instead of the process's
    /// (for tests and embedders). `secret://env/NAME` and the proxy variables
    /// are read from `env` too.
    pub fn load_with_env(
        env: &BTreeMap<String, String>,
        overrides: &Overrides,
    ) -> Result<Self, ConfigError> {
        let layered = layers::collect(env, overrides)?;
        let mut settings = Settings::default();
        let mut api_key = None;
        for (key, (raw, source)) in &layered {
            keys::apply(&mut settings, &mut api_key, key, raw, source)?;
        }
        let source_of = |key: SettingKey| {
            layered
                .get(key.name())
                .map_or(SettingSource::Default, |(_, s)| s.clone())
        };
        if settings.keeper.trust_env && !settings.keeper.verify_tls {
            let (trust, verify) = (SettingKey::KeeperTrustEnv, SettingKey::KeeperVerifyTls);
            return Err(ConfigError::Conflict(format!(
                "herald.{trust}: true (from {}) cannot go with herald.{verify}: false (from {}): \
                 a proxy from the environment could read the traffic unnoticed",
                source_of(trust),
                source_of(verify),
            )));
        }
        if settings.http.allow_anonymous && !settings.http.authorization_servers.is_empty() {
            let (anonymous, servers) = (
                SettingKey::HttpAllowAnonymous,
                SettingKey::HttpAuthorizationServers,
            );
            return Err(ConfigError::Conflict(format!(
                "herald.{anonymous}: true (from {}) cannot go with herald.{servers} (from {}): \
                 a call without a credential is either let through or sent to authorize, not both",
                source_of(anonymous),
                source_of(servers),
            )));
        }
        if !settings.http.authorization_servers.is_empty() {
            check_oauth(&settings.http, &source_of)?;
        }
        if let Some(text) = settings.http.oauth_client_secret.take() {
            let key = SettingKey::HttpOauthClientSecret;
            let secret = resolve_secret(text.expose(), env).map_err(|e| ConfigError::Secret {
                key: key.to_string(),
                origin: source_of(key),
                reason: e.to_string(),
            })?;
            settings.http.oauth_client_secret = Some(secret);
        }
        if let Some(pending) = api_key {
            let secret = resolve_secret(&pending.text, env).map_err(|e| ConfigError::Secret {
                key: SettingKey::KeeperApiKey.to_string(),
                origin: pending.source.clone(),
                reason: e.to_string(),
            })?;
            settings.keeper.api_key = Some(secret);
        }
        if let Some(reference) = settings.metrics.bearer_token.take() {
            let key = SettingKey::MetricsBearerToken;
            let secret =
                resolve_secret(reference.expose(), env).map_err(|e| ConfigError::Secret {
                    key: key.to_string(),
                    origin: source_of(key),
                    reason: e.to_string(),
                })?;
            settings.metrics.bearer_token = Some(secret);
        }
        if settings.keeper.trust_env {
            settings.keeper.env_proxy = EnvProxy::from_env(env);
        }
        let (servers, allowlist) = (SettingKey::McpServers, SettingKey::McpRequireAllowlist);
        mcp::resolve_tokens(
            &mut settings.mcp,
            env,
            (servers.name(), &source_of(servers)),
            (allowlist.name(), &source_of(allowlist)),
        )?;
        Ok(settings)
    }

    /// Settings for bindings: the process environment and file as in
    /// [`Settings::load`], then `options`, a JSON object shaped like the YAML
    /// `herald` section (`{"keeper": {"base_url": "..."}, "domain": "supply"}`),
    /// labelled `options` in error messages.
    pub fn from_json(options: &serde_json::Value) -> Result<Self, ConfigError> {
        Self::load(Overrides::from_json(options, "options")?)
    }

    /// [`Settings::from_json`] from JSON text (an empty text means no options).
    pub fn from_json_str(options: &str) -> Result<Self, ConfigError> {
        if options.trim().is_empty() {
            return Self::load(Overrides::new());
        }
        let value: serde_json::Value =
            serde_json::from_str(options).map_err(|e| ConfigError::Invalid {
                key: "*".into(),
                origin: SettingSource::Override("options".into()),
                reason: format!("invalid JSON: {e}"),
            })?;
        Self::from_json(&value)
    }
}

/// With OAuth on: the audience tokens must carry, and the client Herald
/// authenticates as where it calls the authorization server.
fn check_oauth(
    http: &HttpSettings,
    source_of: &dyn Fn(SettingKey) -> SettingSource,
) -> Result<(), ConfigError> {
    let servers = SettingKey::HttpAuthorizationServers;
    let (resource, client) = (SettingKey::HttpResourceUrl, SettingKey::HttpOauthClientId);
    let from = source_of(servers);
    if http.resource_url.is_none() {
        return Err(ConfigError::Conflict(format!(
            "herald.{servers} (from {from}) needs herald.{resource}: \
             the URL callers use, which every token's audience must hold (it is never taken from Host)"
        )));
    }
    let needs_client = match (http.keeper_token, &http.introspection_endpoint) {
        (KeeperToken::Exchange, _) => {
            Some(format!("herald.{}: exchange", SettingKey::HttpKeeperToken))
        }
        (_, Some(_)) => Some(format!("herald.{}", SettingKey::HttpIntrospectionEndpoint)),
        _ => None,
    };
    if let (Some(what), None) = (needs_client, &http.oauth_client_id) {
        return Err(ConfigError::Conflict(format!(
            "{what} (with authorization_servers from {from}) needs herald.{client}: \
             Herald's client at the authorization server; or set keeper_token: forward where \
             Keeper accepts tokens issued for resource_url"
        )));
    }
    Ok(())
}

/// The process environment as a map (non-UTF-8 variables left out).
pub fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}
