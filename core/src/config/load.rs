//! Loading the settings: the layers merged ([`super::layers`]), each key
//! applied to its field ([`super::keys`]), then the checks across keys, the
//! API key's secret reference and the remote servers' tokens resolved.

use std::collections::BTreeMap;

use super::error::{ConfigError, SettingSource};
use super::layers::{self, Overrides};
use super::secret::resolve_secret;
use super::{EnvProxy, Settings, keys, mcp};

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
        let source_of = |key: &str| {
            layered
                .get(key)
                .map_or(SettingSource::Default, |(_, s)| s.clone())
        };
        if settings.keeper.trust_env && !settings.keeper.verify_tls {
            return Err(ConfigError::Conflict(format!(
                "herald.keeper.trust_env: true (from {}) cannot go with herald.keeper.verify_tls: false (from {}): \
                 a proxy from the environment could read the traffic unnoticed",
                source_of("keeper.trust_env"),
                source_of("keeper.verify_tls"),
            )));
        }
        if settings.http.allow_anonymous && !settings.http.authorization_servers.is_empty() {
            return Err(ConfigError::Conflict(format!(
                "herald.http.allow_anonymous: true (from {}) cannot go with herald.http.authorization_servers (from {}): \
                 a call without a credential is either let through or sent to authorize, not both",
                source_of("http.allow_anonymous"),
                source_of("http.authorization_servers"),
            )));
        }
        if let Some(pending) = api_key {
            let secret = resolve_secret(&pending.text, env).map_err(|e| ConfigError::Secret {
                key: "keeper.api_key".into(),
                origin: pending.source.clone(),
                reason: e.to_string(),
            })?;
            settings.keeper.api_key = Some(secret);
        }
        if let Some(reference) = settings.metrics.bearer_token.take() {
            let secret =
                resolve_secret(reference.expose(), env).map_err(|e| ConfigError::Secret {
                    key: "metrics.bearer_token".into(),
                    origin: source_of("metrics.bearer_token"),
                    reason: e.to_string(),
                })?;
            settings.metrics.bearer_token = Some(secret);
        }
        if settings.keeper.trust_env {
            settings.keeper.env_proxy = EnvProxy::from_env(env);
        }
        mcp::resolve_tokens(
            &mut settings.mcp,
            env,
            &source_of("mcp.servers"),
            &source_of("mcp.require_allowlist"),
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

/// The process environment as a map (non-UTF-8 variables left out).
pub fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}
