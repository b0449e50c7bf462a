//! Settings: the `herald` section of the Lorebase settings, layered, lowest first:
//!
//! 1. the YAML file named by `LOREBASE_CONFIG` (its `herald` section; other
//!    sections are ignored; a named file that is missing or invalid fails);
//! 2. `LOREBASE__HERALD__...` variables, a double underscore going one level
//!    down (`LOREBASE__HERALD__KEEPER__MAX_RETRIES=0`);
//! 3. the short variables `LOREBASE_URL`, `LOREBASE_API_KEY`,
//!    `LOREBASE_DOMAIN`, `LOREBASE_BRANCH` (ignored when empty);
//! 4. [`Overrides`]: flags or binding options, each labelled with its source
//!    (`--port`, `options`).
//!
//! Every key is declared once, in the settings table of `table.rs` (its type,
//! bound, comment, default and other spellings); the key list ([`keys`]), the
//! typed keys ([`SettingKey`], the only way code names a key), the checks, the
//! short variables, flags, Node options and Python keywords ([`aliases`]),
//! `config/lorebase.example.yaml` ([`example_yaml`]) and `docs/settings.md`
//! ([`settings_reference`]) come from it.
//! Text values (variables, text flags) are parsed by the key's type: booleans
//! as `true`/`false` (or `1`/`0`, `yes`/`no`), lists as a JSON array or
//! comma-separated; an empty text unsets an optional key. An unknown key, a
//! wrong type or an impossible value fails with one [`ConfigError`] line naming
//! the key and its source. `keeper.api_key` is a literal, `secret://env/NAME`
//! or `secret://file/PATH`, resolved after the layers are merged.
//!
//! ```no_run
//! use herald_core::config::{Overrides, SettingKey, Settings};
//! let mut flags = Overrides::new();
//! flags.set(SettingKey::HttpPort, 8091, "--port");
//! let settings = Settings::load(flags)?;
//! # Ok::<(), herald_core::config::ConfigError>(())
//! ```

pub mod aliases;
mod defaults;
mod entry;
mod error;
mod field;
pub mod host;
mod ip_range;
mod keys;
mod layers;
mod load;
mod mcp;
mod operations;
mod raw;
mod reference;
mod secret;
mod settings;
mod table;
#[cfg(test)]
mod table_checks;

pub use error::{ConfigError, SettingSource};
pub use ip_range::{IpRange, IpRangeError};
pub use keys::{SettingKey, keys};
pub use layers::{CONFIG_FILE_VAR, ENV_PREFIX, Overrides};
pub use load::process_env;
pub use mcp::{
    MAX_SERVER_NAME_CHARS, MAX_SERVERS, McpServerSettings, McpSettings, RemoteCredential,
    RemoteGrant,
};
pub use operations::{LogFormat, LogSettings, MetricsSettings, TracesSettings, otlp_traces_url};
pub use reference::{
    example_yaml, node_option_declarations, node_options_table, python_settings_table,
    settings_reference,
};
pub use secret::{SECRET_REF_PREFIX, Secret, SecretRefError, resolve_secret};
pub use settings::{
    ChangesSettings, EnvProxy, HttpSettings, KbSettings, KeeperSettings, KeeperToken,
    MIN_MAX_CHARS, OutputSettings, Settings, ToolSelection, Transport, UiSettings,
};
