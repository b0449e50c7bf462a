//! The `mcp` section: remote MCP servers whose tools join Herald's own
//! (`mcp.servers`, `mcp.require_allowlist`, timeouts and re-discovery).
//!
//! Each server is `{name, url, token_env?, tools?, credential?, audience?, scope?}`:
//! - `name`: unique, letters, digits, `-`, `_` or `.`, without `__` (the
//!   separator of `<server>__<tool>`), at most [`MAX_SERVER_NAME_CHARS`];
//! - `url`: the server's Streamable HTTP endpoint, `http://` or `https://`,
//!   without credentials or fragment;
//! - `token_env`: the variable holding a bearer token, read at startup. A
//!   token over plain `http://` to a public host is refused (no DNS lookup:
//!   see [`super::host`]);
//! - `tools`: an exact-name allowlist applied at discovery;
//! - `credential`, `audience`, `scope`: whose credential its calls carry and
//!   who may call it ([`RemoteGrant`]; the rule is `crate::tools::ToolView`'s).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::error::{ConfigError, SettingSource};
use super::host;
use super::raw::RawValue;
use super::secret::Secret;

/// Longest server name.
pub const MAX_SERVER_NAME_CHARS: usize = 64;

/// Most servers declared.
pub const MAX_SERVERS: usize = 64;

/// The keys of one server entry.
const SERVER_KEYS: [&str; 7] = [
    "name",
    "url",
    "token_env",
    "tools",
    "credential",
    "audience",
    "scope",
];

/// Remote MCP servers whose tools join the toolbox.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    /// The servers, in the order declared.
    pub servers: Vec<McpServerSettings>,
    /// Refuse to start unless every server declares a `tools` allowlist.
    pub require_allowlist: bool,
    /// Longest discovery of all servers together, in seconds.
    pub discovery_timeout_s: u64,
    /// Longest remote tool call, in seconds.
    pub call_timeout_s: u64,
    /// Re-discover every N seconds; 0: only at startup and on SIGHUP.
    pub refresh_interval_s: u64,
    /// Most tools one server may add (`mcp.max_tools_per_server`).
    pub max_tools_per_server: usize,
    /// Most bytes of tool definitions one server may add
    /// (`mcp.max_tool_bytes_per_server`).
    pub max_tool_bytes_per_server: usize,
    /// Most bytes of one remote tool answer read (`mcp.max_answer_bytes`).
    pub max_answer_bytes: usize,
}

/// One remote MCP server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerSettings {
    /// Its tools appear as `<name>__<tool>`.
    pub name: String,
    /// The Streamable HTTP endpoint.
    pub url: String,
    /// The variable naming the bearer token, when one is sent.
    pub token_env: Option<String>,
    /// The token read from `token_env` at startup (prints `***`).
    pub token: Option<Secret>,
    /// Exact-name allowlist; `None` registers every tool.
    pub tools: Option<Vec<String>>,
    /// Whose credential its calls carry, and who may call it.
    pub grant: RemoteGrant,
}

/// Whose credential the calls to one remote server carry
/// (`mcp.servers[].credential`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RemoteCredential {
    /// `herald` (the default): Herald's own token (`token_env`), or none.
    #[default]
    Herald,
    /// `exchange`: the caller's OAuth token exchanged (RFC 8693) for one
    /// whose audience is `audience` (the server's URL unless set); Herald's
    /// own token (`token_env`), when set, is sent for discovery only.
    Exchange {
        /// The audience asked for.
        audience: String,
    },
}

/// Whose credential calls to a server carry, and the scope an OAuth caller
/// needs to be served its tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteGrant {
    /// `credential` (and `audience`).
    pub credential: RemoteCredential,
    /// `scope`: the scope an OAuth caller's token must hold. None: for a
    /// server called with Herald's own token, [`RemoteGrant::DEFAULT_SCOPE_PREFIX`]
    /// and the server's name; for the others, no scope.
    pub scope: Option<String>,
}

impl RemoteGrant {
    /// The default scope of a server called with Herald's own token is
    /// this prefix and the server's name (`herald:remote:runbooks`).
    pub const DEFAULT_SCOPE_PREFIX: &'static str = "herald:remote:";
}

impl McpServerSettings {
    /// Whether calls to this server carry Herald's own token.
    pub fn uses_heralds_token(&self) -> bool {
        self.grant.credential == RemoteCredential::Herald && self.token.is_some()
    }

    /// The scope an OAuth caller needs for this server's tools, if any.
    pub fn required_scope(&self) -> Option<String> {
        match &self.grant.scope {
            Some(scope) => Some(scope.clone()),
            None if self.uses_heralds_token() => Some(format!(
                "{}{}",
                RemoteGrant::DEFAULT_SCOPE_PREFIX,
                self.name
            )),
            None => None,
        }
    }
}

/// Parses `mcp.servers`: a list of server mappings (YAML, JSON options, or a
/// JSON array in a variable). Names must be unique. Tokens are resolved
/// later by [`resolve_tokens`].
pub(crate) fn parse_servers(raw: &RawValue) -> Result<Vec<McpServerSettings>, String> {
    let items: Vec<Value> = match raw {
        RawValue::Json(Value::Null) => return Ok(Vec::new()),
        RawValue::Json(Value::Array(items)) => items.clone(),
        RawValue::Text(t) if t.trim().is_empty() => return Ok(Vec::new()),
        RawValue::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(items)) => items,
            Ok(_) => return Err("expected a JSON array of server objects".into()),
            Err(e) => return Err(format!("invalid JSON: {e}")),
        },
        RawValue::Json(_) => {
            return Err("expected a list of servers ({name, url, token_env?, tools?})".into());
        }
    };
    if items.len() > MAX_SERVERS {
        return Err(format!(
            "at most {MAX_SERVERS} servers, got {}",
            items.len()
        ));
    }
    let mut seen = BTreeSet::new();
    let mut servers = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let server = parse_server(item).map_err(|e| format!("server #{}: {e}", i + 1))?;
        if !seen.insert(server.name.clone()) {
            return Err(format!(
                "server #{}: the name {:?} is used twice; names must be unique",
                i + 1,
                server.name
            ));
        }
        servers.push(server);
    }
    Ok(servers)
}

fn parse_server(item: &Value) -> Result<McpServerSettings, String> {
    let Value::Object(map) = item else {
        return Err(
            "expected a mapping {name, url, token_env?, tools?, credential?, scope?}".into(),
        );
    };
    if let Some(unknown) = map.keys().find(|k| !SERVER_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key {unknown:?}; a server takes {}",
            SERVER_KEYS.join(", ")
        ));
    }
    let name = required_string(map, "name")?;
    check_server_name(&name)?;
    let url = required_string(map, "url")?;
    check_url(&url).map_err(|e| format!("{name}: url {e}"))?;
    let token_env = match map.get("token_env") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => {
            let var = s.trim();
            if var.contains('=') || var.contains('\0') || var.chars().any(char::is_whitespace) {
                return Err(format!(
                    "{name}: token_env names an environment variable (such as RUNBOOKS_MCP_TOKEN), got {var:?}"
                ));
            }
            Some(var.to_string())
        }
        // Never quote it: someone may have put the token itself here.
        Some(_) => return Err(format!("{name}: token_env must be a variable name")),
    };
    let tools = match map.get("tools") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => {
            let mut names = Vec::with_capacity(list.len());
            for entry in list {
                match entry {
                    Value::String(s) if !s.trim().is_empty() => names.push(s.trim().to_string()),
                    other => {
                        return Err(format!(
                            "{name}: tools is a list of exact tool names, got the entry {other}"
                        ));
                    }
                }
            }
            Some(names)
        }
        Some(_) => return Err(format!("{name}: tools is a list of exact tool names")),
    };
    let grant = parse_grant(map, &name, url.trim())?;
    Ok(McpServerSettings {
        name,
        url: url.trim().to_string(),
        token_env,
        token: None,
        tools,
        grant,
    })
}

/// `credential`, `audience` and `scope` of one server.
fn parse_grant(map: &Map<String, Value>, name: &str, url: &str) -> Result<RemoteGrant, String> {
    let text = |key: &str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(_) => Err(format!("{name}: {key} must be a non-empty string")),
    };
    let audience = text("audience")?;
    let credential = match text("credential")?.as_deref() {
        None | Some("herald") if audience.is_some() => {
            return Err(format!(
                "{name}: audience is for credential: exchange (the caller's token exchanged for this audience)"
            ));
        }
        None | Some("herald") => RemoteCredential::Herald,
        Some("exchange") => RemoteCredential::Exchange {
            audience: audience.unwrap_or_else(|| url.to_string()),
        },
        Some(other) => {
            return Err(format!(
                "{name}: credential is herald (Herald's own token_env) or exchange (the caller's OAuth token, exchanged), got {other:?}"
            ));
        }
    };
    let scope = text("scope")?;
    if let Some(bad) = scope.as_deref().and_then(|s| {
        s.chars()
            .find(|c| !matches!(c, '!' | '#'..='[' | ']'..='~'))
    }) {
        return Err(format!(
            "{name}: scope is one OAuth scope (no spaces, quotes or backslashes), not {bad:?}"
        ));
    }
    Ok(RemoteGrant { credential, scope })
}

fn required_string(map: &Map<String, Value>, key: &str) -> Result<String, String> {
    match map.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(Value::String(_)) | None | Some(Value::Null) => Err(format!("{key} is required")),
        Some(other) => Err(format!("{key} must be a string, got {other}")),
    }
}

/// A server name: the prefix of its tools' names.
pub(crate) fn check_server_name(name: &str) -> Result<(), String> {
    if name.chars().count() > MAX_SERVER_NAME_CHARS {
        return Err(format!(
            "name {:?}... is longer than {MAX_SERVER_NAME_CHARS} characters",
            name.chars().take(MAX_SERVER_NAME_CHARS).collect::<String>()
        ));
    }
    if name.chars().any(char::is_whitespace) {
        return Err(format!("name {name:?} must not contain whitespace"));
    }
    if name.contains("__") {
        return Err(format!(
            "name {name:?} must not contain \"__\" (tools appear as <server>__<tool>)"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "name {name:?} may hold letters, digits, '-', '_' and '.' only, not {bad:?}"
        ));
    }
    Ok(())
}

/// The endpoint: http or https with a host, no credentials, no fragment.
fn check_url(text: &str) -> Result<(), String> {
    let url = url::Url::parse(text)
        .map_err(|e| format!("is not a URL such as https://mcp.example/mcp ({e})"))?;
    if !url.username().is_empty() || url.password().is_some() {
        // Do not quote it: it holds credentials.
        return Err("must not contain credentials; use token_env".into());
    }
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(format!("must be http:// or https://, got {text:?}"));
    }
    if url.fragment().is_some() {
        return Err("must not have a #fragment".into());
    }
    Ok(())
}

/// Reads each server's token from `env`, then refuses what cannot start: a
/// missing or empty token variable, a token over plain `http://` to a public
/// host, and (`require_allowlist`) a server without a `tools` allowlist.
/// Messages name servers and variables, never a token; `servers` and
/// `allowlist` are the keys `mcp.servers` and `mcp.require_allowlist` (the
/// caller names them: the table, `keys`, reads this module) and their sources.
pub(crate) fn resolve_tokens(
    mcp: &mut McpSettings,
    env: &BTreeMap<String, String>,
    (servers_key, servers_source): (&str, &SettingSource),
    (allowlist_key, allowlist_source): (&str, &SettingSource),
) -> Result<(), ConfigError> {
    let invalid = |reason: String| ConfigError::Invalid {
        key: servers_key.to_string(),
        origin: servers_source.clone(),
        reason,
    };
    for server in &mut mcp.servers {
        if mcp.require_allowlist && server.tools.is_none() {
            return Err(ConfigError::Conflict(format!(
                "herald.{allowlist_key} is on (from {allowlist_source}) but the MCP server {:?} \
                 (from {servers_source}) declares no tools allowlist; list the tools it may expose",
                server.name
            )));
        }
        let Some(var) = &server.token_env else {
            continue;
        };
        let token = match env.get(var) {
            Some(value) if !value.trim().is_empty() => Secret::new(value.trim()),
            Some(_) => {
                return Err(invalid(format!(
                    "{}: the token variable {var} is empty",
                    server.name
                )));
            }
            None => {
                return Err(invalid(format!(
                    "{}: the token variable {var} is not set",
                    server.name
                )));
            }
        };
        // Parsed before: a valid URL.
        if let Ok(url) = url::Url::parse(&server.url)
            && url.scheme() == "http"
            && !url.host().is_some_and(|h| host::is_non_public(&h))
        {
            return Err(invalid(format!(
                "{}: refusing to send the token of {var} over plain http:// to the public host {}; \
                 use https://, or a loopback, private or cluster-internal address",
                server.name,
                url.host_str().unwrap_or_default()
            )));
        }
        server.token = Some(token);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(v: Value) -> Result<Vec<McpServerSettings>, String> {
        parse_servers(&RawValue::Json(v))
    }

    #[test]
    fn servers_parse_from_yaml_values_and_json_text() {
        let s = parse(json!([
            {"name": "runbooks", "url": "https://mcp.internal.example/mcp", "tools": ["search", "get"]},
            {"name": "wiki", "url": "http://127.0.0.1:9/mcp", "token_env": "WIKI_TOKEN"}
        ]))
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].tools.as_deref(),
            Some(&["search".into(), "get".into()][..])
        );
        assert_eq!(s[1].token_env.as_deref(), Some("WIKI_TOKEN"));
        let t = parse_servers(&RawValue::Text(
            r#"[{"name":"a","url":"http://localhost:1/mcp"}]"#.into(),
        ))
        .unwrap();
        assert_eq!(t[0].name, "a");
        assert!(parse(Value::Null).unwrap().is_empty());
    }

    #[test]
    fn bad_servers_are_refused_with_the_reason() {
        let cases = [
            (json!([{"name": "a__b", "url": "http://x/mcp"}]), "__"),
            (
                json!([{"name": "a b", "url": "http://x/mcp"}]),
                "whitespace",
            ),
            (json!([{"name": "a/b", "url": "http://x/mcp"}]), "letters"),
            (json!([{"url": "http://x/mcp"}]), "name is required"),
            (json!([{"name": "a"}]), "url is required"),
            (json!([{"name": "a", "url": "ftp://x/mcp"}]), "http://"),
            (json!([{"name": "a", "url": "not a url"}]), "not a URL"),
            (
                json!([{"name": "a", "url": "http://x/mcp"}, {"name": "a", "url": "http://y/mcp"}]),
                "twice",
            ),
            (
                json!([{"name": "a", "url": "http://x/mcp", "token": "abc"}]),
                "unknown key",
            ),
            (
                json!([{"name": "a", "url": "http://x/mcp", "tools": "search"}]),
                "list",
            ),
            (
                json!([{"name": "a", "url": "http://x/mcp", "tools": [""]}]),
                "entry",
            ),
            (json!({"name": "a"}), "list of servers"),
        ];
        for (value, needle) in cases {
            let err = parse(value.clone()).unwrap_err();
            assert!(err.contains(needle), "{value}: {err}");
        }
    }

    #[test]
    fn credentials_in_the_url_are_refused_without_quoting_them() {
        let err = parse(json!([{"name": "a", "url": "https://user:s3cret@x/mcp"}])).unwrap_err();
        assert!(
            err.contains("credentials") && !err.contains("s3cret"),
            "{err}"
        );
        let err =
            parse(json!([{"name": "a", "url": "https://x/mcp", "token_env": 42}])).unwrap_err();
        assert!(!err.contains("42"), "{err}");
    }

    #[test]
    fn the_grant_of_a_server_says_whose_credential_and_which_scope() {
        let s = parse(json!([
            {"name": "wiki", "url": "http://127.0.0.1:9/mcp", "token_env": "T"},
            {"name": "docs", "url": "http://127.0.0.1:9/mcp", "credential": "exchange", "scope": "docs:use"},
            {"name": "ids", "url": "http://127.0.0.1:9/mcp", "credential": "exchange", "audience": "https://ids"},
        ]))
        .unwrap();
        assert_eq!(s[0].grant, RemoteGrant::default());
        assert_eq!(
            s[1].grant.credential,
            RemoteCredential::Exchange {
                audience: "http://127.0.0.1:9/mcp".into()
            }
        );
        assert_eq!(s[1].required_scope().as_deref(), Some("docs:use"));
        assert_eq!(s[2].required_scope(), None);
        let mut wiki = s[0].clone();
        assert_eq!(wiki.required_scope(), None, "no token read yet");
        wiki.token = Some(Secret::new("t"));
        assert!(wiki.uses_heralds_token());
        assert_eq!(wiki.required_scope().as_deref(), Some("herald:remote:wiki"));
        for (value, needle) in [
            (
                json!([{"name": "a", "url": "http://x/mcp", "credential": "mine"}]),
                "exchange",
            ),
            (
                json!([{"name": "a", "url": "http://x/mcp", "audience": "x"}]),
                "credential: exchange",
            ),
            (
                json!([{"name": "a", "url": "http://x/mcp", "scope": "a b"}]),
                "one OAuth scope",
            ),
        ] {
            let err = parse(value.clone()).unwrap_err();
            assert!(err.contains(needle), "{value}: {err}");
        }
    }
}
