//! `Settings::default()`: the settings as [`unset`] leaves them, then each
//! entry of the settings table ([`super::keys`]) given its default text
//! through its own setter. So a default is written once, in the table (and
//! shown by `config/lorebase.example.yaml`), and the example file and the
//! behaviour cannot differ.

use std::sync::OnceLock;

use serde_json::Value;

use super::entry::Key;
use super::error::{ConfigError, SettingSource};
use super::field::PendingSecret;
use super::keys::{apply_entry, entries};
use super::mcp::McpSettings;
use super::operations::{LogFormat, LogSettings, MetricsSettings, TracesSettings};
use super::raw::RawValue;
use super::settings::{
    ChangesSettings, EnvProxy, HttpSettings, KbSettings, KeeperSettings, KeeperToken,
    OutputSettings, Settings, ToolSelection, Transport, UiSettings,
};

/// Every key's default, as `config/lorebase.example.yaml` shows it: the
/// settings as [`unset`] leaves them, then each entry's default text (YAML)
/// applied through that key's own setter, computed once per process; so the
/// example file and the behaviour cannot differ, and there is no other place
/// a default is written. `keeper.api_key`'s default is null (no key), so
/// there is no pending secret to resolve.
impl Default for Settings {
    fn default() -> Self {
        static DEFAULTS: OnceLock<Settings> = OnceLock::new();
        DEFAULTS
            .get_or_init(|| {
                let mut settings = unset();
                let mut pending = None;
                for entry in entries() {
                    // The table's defaults are checked by the tests of this
                    // module: a wrong one fails them, never an operator's start.
                    apply_default(entry, &mut settings, &mut pending)
                        .unwrap_or_else(|e| panic!("the default of {}: {e}", entry.key()));
                }
                settings
            })
            .clone()
    }
}

/// Applies `entry`'s default text through its setter.
pub(super) fn apply_default(
    entry: &Key,
    settings: &mut Settings,
    pending: &mut Option<PendingSecret>,
) -> Result<(), ConfigError> {
    let source = SettingSource::Default;
    let value: Value = serde_norway::from_str(entry.default).map_err(|e| ConfigError::Invalid {
        key: entry.key().to_string(),
        origin: source.clone(),
        reason: format!("invalid YAML default: {e}"),
    })?;
    apply_entry(entry, settings, pending, &RawValue::Json(value), &source)
}

/// The settings before the table's defaults are applied: placeholders
/// (empty, zero, off), each overwritten by its key's default in
/// `Settings::default()`; never a value Herald runs with. `keeper.api_key` and
/// `keeper.env_proxy` are not keys of the table: [`Settings::load`] resolves
/// them after the layers.
pub(super) fn unset() -> Settings {
    Settings {
        keeper: KeeperSettings {
            base_url: String::new(),
            api_key: None,
            max_retries: 0,
            retry_max_wait_s: 0,
            trust_env: false,
            verify_tls: false,
            ca_file: None,
            timeout_s: 0,
            max_response_bytes: 0,
            env_proxy: EnvProxy::default(),
        },
        domain: None,
        branch: None,
        transport: Transport::Stdio,
        http: HttpSettings {
            host: String::new(),
            port: 0,
            path: String::new(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            stateless: false,
            json_response: false,
            allow_anonymous: false,
            max_body_bytes: 0,
            max_connections: 0,
            max_connections_per_peer: 0,
            trusted_proxies: Vec::new(),
            header_timeout_s: 0,
            body_timeout_s: 0,
            idle_timeout_s: 0,
            send_timeout_s: 0,
            drain_delay_s: 0,
            drain_timeout_s: 0,
            authorization_servers: Vec::new(),
            resource_url: None,
            required_scopes: Vec::new(),
            introspection_endpoint: None,
            introspection_max_in_flight: 0,
            introspection_per_second: 0,
            introspection_burst: 0,
            exchange_max_in_flight: 0,
            exchange_per_second: 0,
            exchange_burst: 0,
            oauth_client_id: None,
            oauth_client_secret: None,
            keeper_token: KeeperToken::Exchange,
            tool_headers: false,
        },
        output: OutputSettings {
            max_chars: 0,
            max_items: 0,
            max_value_chars: 0,
            schemas: false,
        },
        changes: ChangesSettings { max_pages: 0 },
        kb: KbSettings {
            dir: None,
            index_wait_s: 0,
        },
        tools: ToolSelection {
            read_only: false,
            allow: None,
            deny: Vec::new(),
            always_load_context: false,
        },
        mcp: McpSettings {
            servers: Vec::new(),
            require_allowlist: false,
            discovery_timeout_s: 0,
            call_timeout_s: 0,
            refresh_interval_s: 0,
            max_tools_per_server: 0,
            max_tool_bytes_per_server: 0,
            max_answer_bytes: 0,
        },
        log: LogSettings {
            format: LogFormat::Text,
            audit_arguments: false,
            audit_file: None,
        },
        ui: UiSettings { enabled: false },
        metrics: MetricsSettings {
            enabled: false,
            host: String::new(),
            port: None,
            bearer_token: None,
        },
        traces: TracesSettings {
            otlp_endpoint: None,
            service_name: String::new(),
        },
    }
}
