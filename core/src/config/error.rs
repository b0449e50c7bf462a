//! Why settings could not be loaded: always one line naming the key and where
//! its value came from.

use std::fmt;
use std::path::PathBuf;

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingSource {
    /// The built-in default.
    Default,
    /// The YAML file named by `LOREBASE_CONFIG`.
    File(PathBuf),
    /// An environment variable (its name).
    Env(String),
    /// A flag or binding option (its label, such as `--port` or `options`).
    Override(String),
}

impl fmt::Display for SettingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("the default"),
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Env(name) => f.write_str(name),
            Self::Override(label) => f.write_str(label),
        }
    }
}

/// A settings failure. Every variant displays as one line that names the key
/// (`herald.http.port`) and its source (a file path, a variable name, a flag),
/// and never a secret value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The settings file could not be read or is not valid YAML.
    #[error("cannot load the settings file {path} (LOREBASE_CONFIG): {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A key that Herald does not know.
    #[error(
        "unknown setting herald.{key} (from {origin}); every key is listed in config/lorebase.example.yaml"
    )]
    UnknownKey {
        /// The key, dotted, below `herald` (`http.prot`).
        key: String,
        /// Where it came from.
        origin: SettingSource,
    },
    /// A value of the wrong type or an impossible one.
    #[error("invalid setting herald.{key} (from {origin}): {reason}")]
    Invalid {
        /// The key, dotted, below `herald`.
        key: String,
        /// Where it came from.
        origin: SettingSource,
        /// What is wrong (secret values are never quoted).
        reason: String,
    },
    /// A secret reference that does not resolve.
    #[error("cannot resolve the secret herald.{key} (from {origin}): {reason}")]
    Secret {
        /// The key, dotted, below `herald`.
        key: String,
        /// Where the reference came from.
        origin: SettingSource,
        /// The reference and what went wrong (never the value).
        reason: String,
    },
    /// Options that are not a JSON object.
    #[error("the settings from {origin} must be a JSON object shaped like the herald section")]
    NotAnObject {
        /// Where they came from.
        origin: SettingSource,
    },
    /// Two settings that cannot go together.
    #[error("conflicting settings: {0}")]
    Conflict(String),
}

impl ConfigError {
    /// The key concerned (dotted, below `herald`), when there is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::UnknownKey { key, .. } | Self::Invalid { key, .. } | Self::Secret { key, .. } => {
                Some(key)
            }
            Self::File { .. } | Self::NotAnObject { .. } | Self::Conflict(_) => None,
        }
    }
}
