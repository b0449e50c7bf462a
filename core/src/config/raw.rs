//! A setting's value as a layer gives it, before it is checked against its
//! key's type, and the merged layers.

use std::collections::BTreeMap;

use serde_json::Value;

use super::error::SettingSource;

/// A value before it is checked against its key's type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawValue {
    /// A typed value (YAML file, JSON options, typed flags).
    Json(Value),
    /// Text (environment variables, text flags), parsed by the key's type.
    Text(String),
}

/// One key's winning value and its source.
pub(crate) type Layered = BTreeMap<String, (RawValue, SettingSource)>;
