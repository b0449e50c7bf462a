//! A key's value being checked against its type: the parsers every entry of
//! the settings table ([`super::keys`]) uses, each failing with the key and
//! its source.

use serde_json::Value;

use super::error::{ConfigError, SettingSource};
use super::operations::{LogFormat, is_plain_http_url, otlp_traces_url};
use super::raw::RawValue;
use super::secret::{SECRET_REF_PREFIX, Secret};
use super::settings::{KeeperToken, Transport};

/// A key's value being checked, with what the error needs.
pub(crate) struct Field<'a> {
    pub(crate) key: &'a str,
    pub(crate) raw: &'a RawValue,
    pub(crate) source: &'a SettingSource,
    /// The key's bound, for an integer key (the table's `bound(min, max)`).
    pub(crate) bound: Option<Bound>,
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

    /// A whole number within the key's declared bound.
    pub(crate) fn bounded(&self) -> Result<u64, ConfigError> {
        let bound = self.declared_bound()?;
        self.int(bound.min, bound.max)
    }

    /// Unset when null or empty text; else [`Field::bounded`].
    pub(crate) fn optional_bounded(&self) -> Result<Option<u64>, ConfigError> {
        let bound = self.declared_bound()?;
        self.optional_int(bound.min, bound.max)
    }

    /// The table's bound of this key; an integer key without one is a
    /// mistake in the table, which the defaults' test finds.
    fn declared_bound(&self) -> Result<Bound, ConfigError> {
        self.bound
            .ok_or_else(|| self.invalid("the settings table declares no bound for this key"))
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

// The checks of the keys whose values have a shape beyond their type.

pub(super) fn http_path(f: &Field<'_>) -> Result<String, ConfigError> {
    let path = f.nonempty_string()?;
    if !path.starts_with('/')
        || path
            .chars()
            .any(|c| c.is_whitespace() || c == '?' || c == '#')
    {
        return Err(f.invalid(format!(
            "expected a path starting with /, got {}",
            f.shown()
        )));
    }
    Ok(path)
}

pub(super) fn origins(f: &Field<'_>) -> Result<Vec<String>, ConfigError> {
    let origins = f.list()?;
    if let Some(bad) = origins
        .iter()
        .find(|o| !(o.starts_with("http://") || o.starts_with("https://")))
    {
        return Err(f.invalid(format!(
            "an origin is scheme://host[:port], such as http://localhost; got {bad:?}"
        )));
    }
    Ok(origins)
}

/// `http.trusted_proxies`: addresses or CIDR blocks.
pub(super) fn trusted_proxies(f: &Field<'_>) -> Result<Vec<super::IpRange>, ConfigError> {
    f.list()?
        .iter()
        .map(|text| {
            text.parse()
                .map_err(|e: super::IpRangeError| f.invalid(e.to_string()))
        })
        .collect()
}

pub(super) fn authorization_servers(f: &Field<'_>) -> Result<Vec<String>, ConfigError> {
    let servers = f.list()?;
    if let Some(bad) = servers.iter().find(|s| !is_plain_http_url(s)) {
        return Err(f.invalid(format!(
            "an authorization server is its issuer URL, such as https://auth.example.com; got {bad:?}"
        )));
    }
    Ok(servers)
}

pub(super) fn resource_url(f: &Field<'_>) -> Result<Option<String>, ConfigError> {
    optional_http_url(
        f,
        "the URL callers use, such as https://herald.example.com/mcp",
    )
}

/// An authorization server's endpoint (`http.introspection_endpoint`).
pub(super) fn endpoint_url(f: &Field<'_>) -> Result<Option<String>, ConfigError> {
    optional_http_url(
        f,
        "an http(s) URL, such as https://auth.example.com/introspect",
    )
}

fn optional_http_url(f: &Field<'_>, expected: &str) -> Result<Option<String>, ConfigError> {
    let url = f.optional_string()?;
    if url.as_deref().is_some_and(|u| !is_plain_http_url(u)) {
        return Err(f.invalid(format!("expected {expected}; got {}", f.shown())));
    }
    Ok(url)
}

pub(super) fn keeper_token(f: &Field<'_>) -> Result<KeeperToken, ConfigError> {
    match f.string()?.as_str() {
        "exchange" => Ok(KeeperToken::Exchange),
        "forward" => Ok(KeeperToken::Forward),
        _ => Err(f.invalid(format!("expected exchange or forward, got {}", f.shown()))),
    }
}

pub(super) fn log_format(f: &Field<'_>) -> Result<LogFormat, ConfigError> {
    LogFormat::parse(&f.string()?)
        .ok_or_else(|| f.invalid(format!("expected text or json, got {}", f.shown())))
}

pub(super) fn otlp_endpoint(f: &Field<'_>) -> Result<Option<String>, ConfigError> {
    let endpoint = f.optional_string()?;
    if endpoint
        .as_deref()
        .is_some_and(|e| otlp_traces_url(e).is_none())
    {
        return Err(f.invalid(format!(
            "expected an OTLP/HTTP URL such as http://127.0.0.1:4318/v1/traces, got {}",
            f.shown()
        )));
    }
    Ok(endpoint)
}

pub(super) fn transport(f: &Field<'_>) -> Result<Transport, ConfigError> {
    match f.string()?.as_str() {
        "stdio" => Ok(Transport::Stdio),
        "streamable_http" => Ok(Transport::StreamableHttp),
        _ => Err(f.invalid(format!(
            "expected stdio or streamable_http, got {}",
            f.shown()
        ))),
    }
}

/// Keeper's origin: http or https, a host, no credentials (named: use
/// `api_key`, the key), query or fragment.
pub(super) fn base_url(f: &Field<'_>, api_key: &str) -> Result<String, ConfigError> {
    let text = f.nonempty_string()?;
    let url = url::Url::parse(&text).map_err(|e| {
        f.invalid(format!(
            "expected a URL such as http://127.0.0.1:8080 ({e})"
        ))
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        // Do not quote it: it holds credentials.
        return Err(f.invalid(format!(
            "must not contain credentials; use herald.{api_key}"
        )));
    }
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(f.invalid(format!(
            "expected an http:// or https:// URL, got {}",
            f.shown()
        )));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(f.invalid(format!(
            "expected a URL without query or fragment, got {}",
            f.shown()
        )));
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// The values an integer key accepts, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The least.
    pub(crate) min: u64,
    /// The greatest.
    pub(crate) max: u64,
}

impl std::fmt::Display for Bound {
    /// `(0-10)`, as the comments show it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}-{})", self.min, self.max)
    }
}

/// `keeper.api_key` before its reference is resolved.
pub(crate) struct PendingSecret {
    pub(crate) text: String,
    pub(crate) source: SettingSource,
}

/// A secret reference, kept unresolved (`Settings::load` resolves it).
pub(crate) fn secret_reference(f: &Field<'_>) -> Result<Option<Secret>, ConfigError> {
    let Some(text) = f.optional_string()? else {
        return Ok(None);
    };
    if !text.starts_with(SECRET_REF_PREFIX) {
        return Err(f.invalid(
            "must say where the secret comes from (secret://env/NAME or secret://file/PATH), not be the secret",
        ));
    }
    Ok(Some(Secret::new(text)))
}

/// A key or a secret reference, resolved after the layers are merged.
pub(crate) fn api_key(f: &Field<'_>) -> Result<Option<PendingSecret>, ConfigError> {
    match f.raw {
        RawValue::Json(Value::Null) => Ok(None),
        RawValue::Json(Value::String(s)) | RawValue::Text(s) if s.trim().is_empty() => Ok(None),
        RawValue::Json(Value::String(s)) | RawValue::Text(s) => Ok(Some(PendingSecret {
            text: s.trim().to_string(),
            source: f.source.clone(),
        })),
        // Never quote a secret's value, even a mistyped one.
        _ => Err(f.invalid("expected a string (a key, secret://env/NAME or secret://file/PATH)")),
    }
}
