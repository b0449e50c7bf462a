//! The layers of the settings, lowest first: the YAML file named by
//! `LOREBASE_CONFIG` (its `herald` section), `LOREBASE__HERALD__...` variables,
//! the short variables, then [`Overrides`] (flags, binding options). Each layer
//! becomes a list of dotted keys with a raw value and its source; the last
//! layer to set a key wins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::aliases::short_vars;
use super::error::{ConfigError, SettingSource};
use super::keys::{SettingKey, is_known_key, is_section};
use super::raw::{Layered, RawValue};

/// The top layer of the settings: flags or binding options, each value with a
/// source label used in error messages (`--port`, `options`).
///
/// Keys are dotted paths below the YAML `herald` section (`keeper.base_url`,
/// `http.port`, `domain`). Later entries win over earlier ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    entries: Vec<(String, RawValue, String)>,
}

impl Overrides {
    /// No overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to a typed value (`json!(8091)`, `true`, `"supply"`);
    /// `null` resets an optional key to unset.
    pub fn set(&mut self, key: SettingKey, value: impl Into<Value>, source: &str) -> &mut Self {
        self.entries.push((
            key.name().to_string(),
            RawValue::Json(value.into()),
            source.to_string(),
        ));
        self
    }

    /// Sets `key` from text, parsed like an environment variable (`"8091"`,
    /// `"true"`, a list as `a,b` or a JSON array).
    pub fn set_text(
        &mut self,
        key: SettingKey,
        text: impl Into<String>,
        source: &str,
    ) -> &mut Self {
        self.entries.push((
            key.name().to_string(),
            RawValue::Text(text.into()),
            source.to_string(),
        ));
        self
    }

    /// Adds every key of a JSON object shaped like the YAML `herald` section
    /// (`{"keeper": {"base_url": "..."}, "domain": "supply"}`), labelled `source`.
    pub fn merge_json(&mut self, options: &Value, source: &str) -> Result<&mut Self, ConfigError> {
        match options {
            Value::Null => Ok(self),
            Value::Object(map) => {
                let mut leaves = Vec::new();
                let src = SettingSource::Override(source.to_string());
                flatten(map, "", &src, &mut leaves)?;
                for (key, value) in leaves {
                    self.entries
                        .push((key, RawValue::Json(value), source.to_string()));
                }
                Ok(self)
            }
            _ => Err(ConfigError::NotAnObject {
                origin: SettingSource::Override(source.to_string()),
            }),
        }
    }

    /// The overrides of a JSON object shaped like the YAML `herald` section.
    pub fn from_json(options: &Value, source: &str) -> Result<Self, ConfigError> {
        let mut overrides = Self::new();
        overrides.merge_json(options, source)?;
        Ok(overrides)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The variable naming the settings file.
pub const CONFIG_FILE_VAR: &str = "LOREBASE_CONFIG";
/// The prefix of the long variables (`LOREBASE__HERALD__KEEPER__MAX_RETRIES`).
pub const ENV_PREFIX: &str = "LOREBASE__HERALD__";

/// Largest settings file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Collects every layer into the winning value per key.
pub(crate) fn collect(
    env: &BTreeMap<String, String>,
    overrides: &Overrides,
) -> Result<Layered, ConfigError> {
    let mut layered = Layered::new();
    if let Some(path) = env.get(CONFIG_FILE_VAR).filter(|p| !p.trim().is_empty()) {
        let path = PathBuf::from(path);
        let src = SettingSource::File(path.clone());
        for (key, value) in read_file(&path)? {
            check_known(&key, &src)?;
            layered.insert(key, (RawValue::Json(value), src.clone()));
        }
    }
    // BTreeMap: the long variables in a stable order.
    for (name, value) in env {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        let src = SettingSource::Env(name.clone());
        let key = rest
            .split("__")
            .map(str::to_ascii_lowercase)
            .collect::<Vec<_>>()
            .join(".");
        check_known(&key, &src)?;
        layered.insert(key, (RawValue::Text(value.clone()), src));
    }
    for (name, key) in short_vars() {
        if let Some(value) = env.get(name).filter(|v| !v.is_empty()) {
            layered.insert(
                key.name().to_string(),
                (
                    RawValue::Text(value.clone()),
                    SettingSource::Env(name.into()),
                ),
            );
        }
    }
    for (key, value, label) in &overrides.entries {
        let src = SettingSource::Override(label.clone());
        check_known(key, &src)?;
        layered.insert(key.clone(), (value.clone(), src));
    }
    Ok(layered)
}

fn check_known(key: &str, source: &SettingSource) -> Result<(), ConfigError> {
    if is_known_key(key) {
        Ok(())
    } else {
        Err(ConfigError::UnknownKey {
            key: key.to_string(),
            origin: source.clone(),
        })
    }
}

/// The leaves of the file's `herald` section, dotted. The file is read as
/// every file a setting names is ([`crate::regular_file`]): a regular file
/// only (a FIFO or `/dev/zero` is refused at once), at most
/// [`MAX_FILE_BYTES`], checked before it is read.
pub(crate) fn read_file(path: &Path) -> Result<Vec<(String, Value)>, ConfigError> {
    let text =
        crate::regular_file::read_text(path, MAX_FILE_BYTES).map_err(|e| ConfigError::File {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    parse_yaml(&text, path)
}

/// The deepest nesting of collections a settings file may have (its
/// deepest key, an `mcp.servers` entry's header, is six deep).
pub(crate) const MAX_SETTINGS_DEPTH: usize = 32;

/// The leaves of the `herald` section of a YAML document, dotted. The
/// nesting is bounded while the document is parsed (before any value is
/// built: linear time whatever the file) and a key given twice in one
/// mapping is refused.
pub(crate) fn parse_yaml(text: &str, path: &Path) -> Result<Vec<(String, Value)>, ConfigError> {
    let file_err = |reason: String| ConfigError::File {
        path: path.to_path_buf(),
        reason,
    };
    if let Some(line) = crate::yaml::first_too_deep(text, MAX_SETTINGS_DEPTH) {
        return Err(file_err(format!(
            "it nests collections more than {MAX_SETTINGS_DEPTH} deep (line {line})"
        )));
    }
    let doc: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        crate::yaml::parse_unique_keys(text).map_err(|e| file_err(format!("invalid YAML: {e}")))?
    };
    let src = SettingSource::File(path.to_path_buf());
    let herald = match doc {
        Value::Null => return Ok(Vec::new()),
        Value::Object(mut top) => top.remove("herald").unwrap_or(Value::Null),
        _ => {
            return Err(file_err(
                "the document must be a mapping with a herald section".into(),
            ));
        }
    };
    let mut leaves = Vec::new();
    match herald {
        Value::Null => {}
        Value::Object(map) => flatten(&map, "", &src, &mut leaves)?,
        _ => return Err(file_err("the herald section must be a mapping".into())),
    }
    Ok(leaves)
}

/// Turns a nested mapping into dotted leaves. A section (`keeper`, `http`, ...)
/// must be a mapping or null (a YAML section whose keys are all commented out).
fn flatten(
    map: &Map<String, Value>,
    prefix: &str,
    src: &SettingSource,
    out: &mut Vec<(String, Value)>,
) -> Result<(), ConfigError> {
    for (name, value) in map {
        let key = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let section = is_section(&key);
        match value {
            Value::Object(inner) if section => flatten(inner, &key, src, out)?,
            Value::Null if section => {}
            _ if section => {
                return Err(ConfigError::Invalid {
                    key,
                    origin: src.clone(),
                    reason: "expected a mapping of settings".into(),
                });
            }
            _ => out.push((key, value.clone())),
        }
    }
    Ok(())
}
