//! A key's value being checked against its type: the parsers every entry of
//! the settings table ([`super::keys`]) uses, each failing with the key and
//! its source.

use serde_json::Value;

use super::error::{ConfigError, SettingSource};
use super::raw::RawValue;

/// A key's value being checked, with what the error needs.
pub(crate) struct Field<'a> {
    pub(crate) key: &'a str,
    pub(crate) raw: &'a RawValue,
    pub(crate) source: &'a SettingSource,
}

impl Field<'_> {
    pub(crate) fn invalid(&self, reason: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            key: self.key.to_string(),
            origin: self.source.clone(),
            reason: reason.into(),
        }
    }

    /// Quotes the value for an error message (short, never for secrets).
    pub(crate) fn shown(&self) -> String {
        let text = match self.raw {
            RawValue::Json(v) => v.to_string(),
            RawValue::Text(t) => format!("{t:?}"),
        };
        if text.chars().count() > 60 {
            format!("{}...", text.chars().take(60).collect::<String>())
        } else {
            text
        }
    }

    pub(crate) fn string(&self) -> Result<String, ConfigError> {
        match self.raw {
            RawValue::Json(Value::String(s)) | RawValue::Text(s) => Ok(s.trim().to_string()),
            _ => Err(self.invalid(format!("expected a string, got {}", self.shown()))),
        }
    }

    pub(crate) fn nonempty_string(&self) -> Result<String, ConfigError> {
        let s = self.string()?;
        if s.is_empty() {
            return Err(self.invalid("must not be empty"));
        }
        Ok(s)
    }

    /// Unset when null or empty.
    pub(crate) fn optional_string(&self) -> Result<Option<String>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            _ => Ok(Some(self.string()?).filter(|s| !s.is_empty())),
        }
    }

    pub(crate) fn bool(&self) -> Result<bool, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Bool(b)) => Ok(*b),
            RawValue::Text(t) => match t.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" => Ok(false),
                _ => Err(self.invalid(format!("expected true or false, got {}", self.shown()))),
            },
            _ => Err(self.invalid(format!("expected true or false, got {}", self.shown()))),
        }
    }

    pub(crate) fn int(&self, min: u64, max: u64) -> Result<u64, ConfigError> {
        let n = match self.raw {
            RawValue::Json(Value::Number(n)) => n.as_u64(),
            RawValue::Text(t) => t.trim().parse::<u64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(self.invalid(format!(
                "expected a whole number from {min} to {max}, got {}",
                self.shown()
            ))),
        }
    }

    /// Unset when null or empty text.
    pub(crate) fn optional_int(&self, min: u64, max: u64) -> Result<Option<u64>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            RawValue::Text(t) if t.trim().is_empty() => Ok(None),
            _ => self.int(min, max).map(Some),
        }
    }

    /// A list: a YAML/JSON array of strings, or text as a JSON array or
    /// comma-separated. Entries must not be empty.
    pub(crate) fn list(&self) -> Result<Vec<String>, ConfigError> {
        let items: Vec<Value> = match self.raw {
            RawValue::Json(Value::Array(a)) => a.clone(),
            RawValue::Json(Value::Null) => Vec::new(),
            RawValue::Text(t) if t.trim_start().starts_with('[') => {
                match serde_json::from_str::<Vec<Value>>(t) {
                    Ok(a) => a,
                    Err(e) => return Err(self.invalid(format!("invalid JSON list: {e}"))),
                }
            }
            RawValue::Text(t) => t
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.into()))
                .collect(),
            _ => {
                return Err(
                    self.invalid(format!("expected a list of strings, got {}", self.shown()))
                );
            }
        };
        items
            .into_iter()
            .map(|v| match v {
                Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                other => Err(self.invalid(format!(
                    "expected a list of non-empty strings, got the entry {other}"
                ))),
            })
            .collect()
    }

    /// Unset when null.
    pub(crate) fn optional_list(&self) -> Result<Option<Vec<String>>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            _ => self.list().map(Some),
        }
    }
}
