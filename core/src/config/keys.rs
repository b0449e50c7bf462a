//! The table of settings keys: each key's type, its bounds, and where it goes
//! in [`Settings`].

use std::path::PathBuf;

use serde_json::Value;

use super::error::{ConfigError, SettingSource};
use super::operations::{LogFormat, is_plain_http_url, otlp_traces_url};
use super::raw::RawValue;
use super::{Settings, Transport};

/// The sections of the `herald` mapping.
pub(crate) const SECTIONS: [&str; 10] = [
    "keeper", "http", "output", "changes", "kb", "tools", "mcp", "log", "metrics", "traces",
];

/// Every settings key, dotted below `herald`, in the order of
/// `config/lorebase.example.yaml`.
pub const KEYS: [&str; 54] = [
    "keeper.base_url",
    "keeper.api_key",
    "keeper.max_retries",
    "keeper.retry_max_wait_s",
    "keeper.trust_env",
    "keeper.verify_tls",
    "keeper.ca_file",
    "keeper.timeout_s",
    "keeper.max_response_bytes",
    "domain",
    "branch",
    "transport",
    "http.host",
    "http.port",
    "http.path",
    "http.allowed_hosts",
    "http.allowed_origins",
    "http.stateless",
    "http.json_response",
    "http.allow_anonymous",
    "http.max_body_bytes",
    "http.max_connections",
    "http.header_timeout_s",
    "http.body_timeout_s",
    "http.idle_timeout_s",
    "http.drain_delay_s",
    "http.drain_timeout_s",
    "http.authorization_servers",
    "http.resource_url",
    "http.tool_headers",
    "output.max_chars",
    "output.max_items",
    "output.max_value_chars",
    "output.schemas",
    "changes.max_pages",
    "kb.dir",
    "kb.index_wait_s",
    "tools.read_only",
    "tools.allow",
    "tools.deny",
    "tools.always_load_context",
    "mcp.servers",
    "mcp.require_allowlist",
    "mcp.discovery_timeout_s",
    "mcp.call_timeout_s",
    "mcp.refresh_interval_s",
    "log.format",
    "log.audit_arguments",
    "log.audit_file",
    "metrics.enabled",
    "metrics.host",
    "metrics.port",
    "traces.otlp_endpoint",
    "traces.service_name",
];

/// Whether `key` is a settings key.
pub(crate) fn is_known_key(key: &str) -> bool {
    KEYS.contains(&key)
}

/// A key's value being checked, with what the error needs.
struct Field<'a> {
    key: &'a str,
    raw: &'a RawValue,
    source: &'a SettingSource,
}

impl Field<'_> {
    fn invalid(&self, reason: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            key: self.key.to_string(),
            origin: self.source.clone(),
            reason: reason.into(),
        }
    }

    /// Quotes the value for an error message (short, never for secrets).
    fn shown(&self) -> String {
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

    fn string(&self) -> Result<String, ConfigError> {
        match self.raw {
            RawValue::Json(Value::String(s)) | RawValue::Text(s) => Ok(s.trim().to_string()),
            _ => Err(self.invalid(format!("expected a string, got {}", self.shown()))),
        }
    }

    fn nonempty_string(&self) -> Result<String, ConfigError> {
        let s = self.string()?;
        if s.is_empty() {
            return Err(self.invalid("must not be empty"));
        }
        Ok(s)
    }

    /// Unset when null or empty.
    fn optional_string(&self) -> Result<Option<String>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            _ => Ok(Some(self.string()?).filter(|s| !s.is_empty())),
        }
    }

    fn bool(&self) -> Result<bool, ConfigError> {
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

    fn int(&self, min: u64, max: u64) -> Result<u64, ConfigError> {
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
    fn optional_int(&self, min: u64, max: u64) -> Result<Option<u64>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            RawValue::Text(t) if t.trim().is_empty() => Ok(None),
            _ => self.int(min, max).map(Some),
        }
    }

    /// A list: a YAML/JSON array of strings, or text as a JSON array or
    /// comma-separated. Entries must not be empty.
    fn list(&self) -> Result<Vec<String>, ConfigError> {
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
    fn optional_list(&self) -> Result<Option<Vec<String>>, ConfigError> {
        match self.raw {
            RawValue::Json(Value::Null) => Ok(None),
            _ => self.list().map(Some),
        }
    }
}

/// `keeper.api_key` before its reference is resolved.
pub(crate) struct PendingSecret {
    pub(crate) text: String,
    pub(crate) source: SettingSource,
}

/// Checks one key's value and stores it in `settings`. The API key is returned
/// in `api_key` for resolution after every layer is merged.
pub(crate) fn apply(
    settings: &mut Settings,
    api_key: &mut Option<PendingSecret>,
    key: &str,
    raw: &RawValue,
    source: &SettingSource,
) -> Result<(), ConfigError> {
    let f = Field { key, raw, source };
    let k = &mut settings.keeper;
    let h = &mut settings.http;
    let o = &mut settings.output;
    match key {
        "keeper.base_url" => k.base_url = base_url(&f)?,
        "keeper.api_key" => {
            *api_key = match raw {
                RawValue::Json(Value::Null) => None,
                RawValue::Json(Value::String(s)) | RawValue::Text(s) if s.trim().is_empty() => None,
                RawValue::Json(Value::String(s)) | RawValue::Text(s) => Some(PendingSecret {
                    text: s.trim().to_string(),
                    source: source.clone(),
                }),
                // Never quote a secret's value, even a mistyped one.
                _ => {
                    return Err(f.invalid(
                        "expected a string (a key, secret://env/NAME or secret://file/PATH)",
                    ));
                }
            }
        }
        "keeper.max_retries" => k.max_retries = f.int(0, 10)? as u32,
        "keeper.retry_max_wait_s" => k.retry_max_wait_s = f.int(0, 300)?,
        "keeper.trust_env" => k.trust_env = f.bool()?,
        "keeper.verify_tls" => k.verify_tls = f.bool()?,
        "keeper.ca_file" => k.ca_file = f.optional_string()?.map(PathBuf::from),
        "keeper.timeout_s" => k.timeout_s = f.int(1, 3600)?,
        "keeper.max_response_bytes" => k.max_response_bytes = f.int(1024, 1 << 32)?,
        "domain" => settings.domain = f.optional_string()?,
        "branch" => settings.branch = f.optional_string()?,
        "transport" => settings.transport = transport(&f)?,
        "http.host" => h.host = f.nonempty_string()?,
        "http.port" => h.port = f.int(0, u16::MAX.into())? as u16,
        "http.path" => {
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
            h.path = path;
        }
        "http.allowed_hosts" => h.allowed_hosts = f.list()?,
        "http.allowed_origins" => {
            let origins = f.list()?;
            if let Some(bad) = origins
                .iter()
                .find(|o| !(o.starts_with("http://") || o.starts_with("https://")))
            {
                return Err(f.invalid(format!(
                    "an origin is scheme://host[:port], such as http://localhost; got {bad:?}"
                )));
            }
            h.allowed_origins = origins;
        }
        "http.stateless" => h.stateless = f.bool()?,
        "http.json_response" => h.json_response = f.bool()?,
        "http.allow_anonymous" => h.allow_anonymous = f.bool()?,
        "http.max_body_bytes" => h.max_body_bytes = f.int(1024, 1 << 30)? as usize,
        "http.max_connections" => h.max_connections = f.int(1, 1_000_000)? as usize,
        "http.header_timeout_s" => h.header_timeout_s = f.int(1, 3600)?,
        "http.body_timeout_s" => h.body_timeout_s = f.int(1, 3600)?,
        "http.idle_timeout_s" => h.idle_timeout_s = f.int(1, 86_400)?,
        "http.drain_delay_s" => h.drain_delay_s = f.int(0, 300)?,
        "http.drain_timeout_s" => h.drain_timeout_s = f.int(0, 3600)?,
        "http.authorization_servers" => {
            let servers = f.list()?;
            if let Some(bad) = servers.iter().find(|s| !is_plain_http_url(s)) {
                return Err(f.invalid(format!(
                    "an authorization server is its issuer URL, such as https://auth.example.com; got {bad:?}"
                )));
            }
            h.authorization_servers = servers;
        }
        "http.resource_url" => {
            let url = f.optional_string()?;
            if url.as_deref().is_some_and(|u| !is_plain_http_url(u)) {
                return Err(f.invalid(format!(
                    "expected the URL callers use, such as https://herald.example.com/mcp; got {}",
                    f.shown()
                )));
            }
            h.resource_url = url;
        }
        "http.tool_headers" => h.tool_headers = f.bool()?,
        "output.max_chars" => {
            o.max_chars = f.int(super::MIN_MAX_CHARS as u64, 10_000_000)? as usize
        }
        "output.max_items" => o.max_items = f.int(1, 100_000)? as usize,
        "output.max_value_chars" => o.max_value_chars = f.int(1, 10_000_000)? as usize,
        "output.schemas" => o.schemas = f.bool()?,
        "changes.max_pages" => settings.changes.max_pages = f.int(1, 10_000)? as u32,
        "kb.dir" => settings.kb.dir = f.optional_string()?.map(PathBuf::from),
        "kb.index_wait_s" => settings.kb.index_wait_s = f.int(0, 3600)?,
        "tools.read_only" => settings.tools.read_only = f.bool()?,
        "tools.allow" => settings.tools.allow = f.optional_list()?,
        "tools.deny" => settings.tools.deny = f.list()?,
        "tools.always_load_context" => settings.tools.always_load_context = f.bool()?,
        "mcp.servers" => {
            settings.mcp.servers = super::mcp::parse_servers(raw).map_err(|e| f.invalid(e))?
        }
        "mcp.require_allowlist" => settings.mcp.require_allowlist = f.bool()?,
        "mcp.discovery_timeout_s" => settings.mcp.discovery_timeout_s = f.int(1, 600)?,
        "mcp.call_timeout_s" => settings.mcp.call_timeout_s = f.int(1, 3600)?,
        "mcp.refresh_interval_s" => settings.mcp.refresh_interval_s = f.int(0, 86_400)?,
        "log.format" => {
            settings.log.format = LogFormat::parse(&f.string()?)
                .ok_or_else(|| f.invalid(format!("expected text or json, got {}", f.shown())))?
        }
        "log.audit_arguments" => settings.log.audit_arguments = f.bool()?,
        "log.audit_file" => settings.log.audit_file = f.optional_string()?.map(PathBuf::from),
        "metrics.enabled" => settings.metrics.enabled = f.bool()?,
        "metrics.host" => settings.metrics.host = f.nonempty_string()?,
        "metrics.port" => {
            settings.metrics.port = f.optional_int(0, u16::MAX.into())?.map(|p| p as u16)
        }
        "traces.otlp_endpoint" => {
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
            settings.traces.otlp_endpoint = endpoint;
        }
        "traces.service_name" => settings.traces.service_name = f.nonempty_string()?,
        _ => {
            return Err(ConfigError::UnknownKey {
                key: key.to_string(),
                origin: source.clone(),
            });
        }
    }
    Ok(())
}

fn transport(f: &Field<'_>) -> Result<Transport, ConfigError> {
    match f.string()?.as_str() {
        "stdio" => Ok(Transport::Stdio),
        "streamable_http" => Ok(Transport::StreamableHttp),
        _ => Err(f.invalid(format!(
            "expected stdio or streamable_http, got {}",
            f.shown()
        ))),
    }
}

/// Keeper's origin: http or https, a host, no credentials, query or fragment.
fn base_url(f: &Field<'_>) -> Result<String, ConfigError> {
    let text = f.nonempty_string()?;
    let url = url::Url::parse(&text).map_err(|e| {
        f.invalid(format!(
            "expected a URL such as http://127.0.0.1:8080 ({e})"
        ))
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        // Do not quote it: it holds credentials.
        return Err(f.invalid("must not contain credentials; use herald.keeper.api_key"));
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
