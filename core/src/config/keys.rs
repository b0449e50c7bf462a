//! The settings table: every key declared once, in the order of
//! `config/lorebase.example.yaml`, with the comment and the default that file
//! shows and the check that stores a value in [`Settings`] (its type and
//! bounds). The key list ([`keys`]), the parsing of every layer's values
//! ([`apply`]), the example file ([`example_yaml`]) and `Settings::default()`
//! (each key's default text through its own check, in [`super::defaults`])
//! all come from it, so a default is written once, here.
//!
//! A new key: a field in [`Settings`] or a section of it (and its placeholder
//! in `defaults::unset`), then one `key!` entry here (in the group and place it takes in the example
//! file); then `UPDATE_EXAMPLE=1 cargo test -p lorebase-herald-core --test
//! integration the_example_file_is_generated` rewrites the example file.

use std::path::PathBuf;

use serde_json::Value;

use super::error::{ConfigError, SettingSource};
use super::field::{
    Field, authorization_servers, base_url, endpoint_url, http_path, keeper_token, log_format,
    origins, otlp_endpoint, resource_url, transport, trusted_proxies,
};
use super::mcp::parse_servers;
use super::raw::RawValue;
use super::secret::Secret;
use super::settings::{MIN_MAX_CHARS, Settings};

/// Checks a key's value and stores it (`keeper.api_key` in the pending secret).
type Setter = fn(&Field<'_>, &mut Settings, &mut Option<PendingSecret>) -> Result<(), ConfigError>;

/// One settings key.
pub(super) struct Key {
    /// The key (`keeper.base_url`, `domain`).
    pub(super) id: SettingKey,
    /// Its comment in the example file, one entry a line.
    doc: &'static [&'static str],
    /// Its default, as the example file shows it (YAML).
    pub(super) default: &'static str,
    /// Its type and bounds.
    pub(super) set: Setter,
}

impl Key {
    /// Dotted below `herald` (`keeper.base_url`, `domain`).
    pub(super) fn key(&self) -> &'static str {
        self.id.name()
    }
}

impl std::fmt::Display for SettingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl SettingKey {
    /// The key named `name` (dotted below `herald`), if there is one.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// Keys shown together in the example file: one section (`keeper`, `http`,
/// ...), or top-level keys; `doc` is the comment above them.
struct Group {
    doc: &'static [&'static str],
    keys: &'static [Key],
}

/// The settings table: `Group { doc: &[...], keys: &[key! {...}, ...] }`,
/// each `key! { Name "section.name" = "default", |f, s| s.field =
/// f.parser(bounds)?, ["comment", ...] }`: its typed key (`SettingKey::Name`),
/// the key, its default as the example file shows it, how a value is
/// checked (`f`, a [`Field`]) and stored (`s`, the [`Settings`]; `|f, s,
/// pending|` also gets the pending API key), and its comment in the example
/// file. It declares [`SettingKey`] and `GROUPS`.
macro_rules! settings_table {
    ($(
        Group {
            doc: &[$($group_doc:literal),* $(,)?],
            keys: &[$(
                key! {
                    $id:ident $key:literal = $default:literal,
                    |$($arg:ident),+| $set:expr,
                    [$($doc:literal),* $(,)?] $(,)?
                }
            ),+ $(,)?],
        },
    )+) => {
        /// A settings key (`SettingKey::KeeperBaseUrl` is `keeper.base_url`):
        /// the only spelling of a key outside the settings table, so a
        /// mistyped key does not compile.
        ///
        /// ```
        /// use herald_core::config::SettingKey;
        /// assert_eq!(SettingKey::KeeperBaseUrl.name(), "keeper.base_url");
        /// ```
        ///
        /// ```compile_fail
        /// let _ = herald_core::config::SettingKey::KeeperUrl;
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum SettingKey {
            $($(
                #[doc = concat!("`", $key, "`")]
                $id,
            )+)+
        }

        impl SettingKey {
            /// Every key, in the example file's order.
            pub const ALL: &'static [SettingKey] = &[$($(SettingKey::$id,)+)+];

            /// The key, dotted below `herald` (`keeper.base_url`).
            pub const fn name(self) -> &'static str {
                match self {
                    $($(SettingKey::$id => $key,)+)+
                }
            }
        }

        static GROUPS: &[Group] = &[$(
            Group {
                doc: &[$($group_doc),*],
                keys: &[$(
                    Key {
                        id: SettingKey::$id,
                        doc: &[$($doc),*],
                        default: $default,
                        set: setter!(|$($arg),+| $set),
                    },
                )+],
            },
        )+];
    };
}

/// A key's [`Setter`]: `|f, s| ...` or `|f, s, pending| ...`.
macro_rules! setter {
    (|$f:ident, $s:ident, $p:ident| $set:expr) => {
        |$f, $s, $p| {
            $set;
            Ok(())
        }
    };
    (|$f:ident, $s:ident| $set:expr) => {
        setter!(|$f, $s, _pending| $set)
    };
}

/// The comment at the top of the example file.
const HEADER: &[&str] = &[
    "Lorebase settings: the `herald` section (Lorebase Herald, the MCP server).",
    "",
    "Herald reads this file when LOREBASE_CONFIG names it. Every key is shown with",
    "its default, so this file as it stands changes nothing. Layers, lowest first:",
    "  1. this file (other top-level sections belong to other Lorebase services",
    "     and are ignored by Herald);",
    "  2. LOREBASE__HERALD__... variables, a double underscore going one level",
    "     down: LOREBASE__HERALD__KEEPER__MAX_RETRIES=0, LOREBASE__HERALD__HTTP__PORT=8091;",
    "  3. the short variables LOREBASE_URL, LOREBASE_API_KEY, LOREBASE_DOMAIN,",
    "     LOREBASE_BRANCH;",
    "  4. command-line flags, or the options object of the Node, Python and C",
    "     bindings (same nested keys as this section).",
    "In variables and flags, booleans are true/false, lists a JSON array",
    "([\"a\",\"b\"]) or comma-separated (a,b), and an empty value unsets an optional key.",
    "An unknown key, a wrong type or an impossible value stops Herald at startup",
    "with one line naming the key and where it came from.",
];

// Every key, grouped and ordered as the example file shows them: `GROUPS`
// and the typed keys, [`SettingKey`].
settings_table! {
    Group {
        doc: &[],
        keys: &[
            key! { KeeperBaseUrl "keeper.base_url" = "http://127.0.0.1:8080",
                |f, s| s.keeper.base_url = base_url(f, SettingKey::KeeperApiKey.name())?,
                [
                    "Keeper's origin (http or https, no credentials in it). LOREBASE_URL.",
                ],
            },
            key! { KeeperApiKey "keeper.api_key" = "null",
                |f, _s, pending| *pending = api_key(f)?,
                [
                    "The key every stdio call carries (never used over Streamable HTTP, where",
                    "each caller sends its own). A literal, secret://env/NAME or",
                    "secret://file/PATH (secret://file//run/secrets/lorebase_agent_key).",
                    "LOREBASE_API_KEY. null: no key (a Keeper in auth mode none).",
                ],
            },
            key! { KeeperMaxRetries "keeper.max_retries" = "2",
                |f, s| s.keeper.max_retries = f.int(0, 10)? as u32,
                [
                    "Resends after 429, 503 or an unreachable Keeper; 0 turns retries off (0-10).",
                    "A write (lorebase_execute with dry_run: false) is resent only when it",
                    "carries an idempotency_key.",
                ],
            },
            key! { KeeperRetryMaxWaitS "keeper.retry_max_wait_s" = "5",
                |f, s| s.keeper.retry_max_wait_s = f.int(0, 300)?,
                [
                    "Longest pause before a retry, in seconds (0-300); Retry-After is capped to it.",
                    "Without Retry-After: exponential backoff with jitter.",
                ],
            },
            key! { KeeperTrustEnv "keeper.trust_env" = "false",
                |f, s| s.keeper.trust_env = f.bool()?,
                [
                    "Honor HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY. Refused together",
                    "with verify_tls: false.",
                ],
            },
            key! { KeeperVerifyTls "keeper.verify_tls" = "true",
                |f, s| s.keeper.verify_tls = f.bool()?,
                [
                    "Verify Keeper's TLS certificate: against the system's roots, or the",
                    "Mozilla roots bundled in Herald when the system has none (a minimal",
                    "container image), and ca_file.",
                ],
            },
            key! { KeeperCaFile "keeper.ca_file" = "null",
                |f, s| s.keeper.ca_file = f.optional_string()?.map(PathBuf::from),
                [
                    "A PEM file of the private CA certificates that signed Keeper's",
                    "certificate (/etc/lorebase/keeper-ca.pem): trusted besides the system's",
                    "roots; where the system has none, instead of the bundled ones. A file",
                    "that cannot be read stops Herald at startup. null: none.",
                ],
            },
            key! { KeeperTimeoutS "keeper.timeout_s" = "30",
                |f, s| s.keeper.timeout_s = f.int(1, 3600)?,
                [
                    "Longest time for one request to Keeper, in seconds (1-3600).",
                ],
            },
            key! { KeeperMaxResponseBytes "keeper.max_response_bytes" = "16777216",
                |f, s| s.keeper.max_response_bytes = f.int(1024, 1 << 32)?,
                [
                    "Largest Keeper answer accepted, in bytes (at least 1024); larger ones are",
                    "refused with an error instead of exhausting memory.",
                ],
            },
        ],
    },
    Group {
        doc: &[],
        keys: &[
            key! { Domain "domain" = "null",
                |f, s| s.domain = f.optional_string()?,
                [
                    "The Domain used when a call names none. LOREBASE_DOMAIN.",
                ],
            },
            key! { Branch "branch" = "null",
                |f, s| s.branch = f.optional_string()?,
                [
                    "The branch used when a call names none; null: the Domain's default branch.",
                    "LOREBASE_BRANCH.",
                ],
            },
        ],
    },
    Group {
        doc: &[],
        keys: &[key! { Transport "transport" = "stdio",
            |f, s| s.transport = transport(f)?,
            [
                "stdio (one Herald per agent, started by the host) or streamable_http (one",
                "shared Herald; each caller sends its own Authorization: Bearer key).",
            ],
        }],
    },
    Group {
        doc: &["The Streamable HTTP listener."],
        keys: &[
            key! { HttpHost "http.host" = "127.0.0.1",
                |f, s| s.http.host = f.nonempty_string()?,
                [],
            },
            key! { HttpPort "http.port" = "8090",
                |f, s| s.http.port = f.int(0, u16::MAX.into())? as u16,
                [
                    "0 picks a free port.",
                ],
            },
            key! { HttpPath "http.path" = "/mcp",
                |f, s| s.http.path = http_path(f)?,
                [],
            },
            key! { HttpAllowedHosts "http.allowed_hosts" = "[]",
                |f, s| s.http.allowed_hosts = f.list()?,
                [
                    "Host header values accepted besides 127.0.0.1, localhost and [::1]",
                    "(DNS rebinding protection); add the name agents use to reach Herald.",
                ],
            },
            key! { HttpAllowedOrigins "http.allowed_origins" = "[]",
                |f, s| s.http.allowed_origins = origins(f)?,
                [
                    "Origin values accepted besides http://127.0.0.1 and http://localhost.",
                ],
            },
            key! { HttpStateless "http.stateless" = "true",
                |f, s| s.http.stateless = f.bool()?,
                [
                    "No sessions: any replica serves any call.",
                ],
            },
            key! { HttpJsonResponse "http.json_response" = "true",
                |f, s| s.http.json_response = f.bool()?,
                [
                    "JSON responses instead of SSE streams.",
                ],
            },
            key! { HttpAllowAnonymous "http.allow_anonymous" = "false",
                |f, s| s.http.allow_anonymous = f.bool()?,
                [
                    "Forward calls without an Authorization header to Keeper without a",
                    "credential (only for a Keeper in auth mode none; keep off elsewhere).",
                ],
            },
            key! { HttpMaxBodyBytes "http.max_body_bytes" = "1048576",
                |f, s| s.http.max_body_bytes = f.int(1024, 1 << 30)? as usize,
                [
                    "Largest MCP request body accepted, in bytes (at least 1024).",
                ],
            },
            key! { HttpMaxConnections "http.max_connections" = "1024",
                |f, s| s.http.max_connections = f.int(1, 1_000_000)? as usize,
                [
                    "Most connections open at once (keep it below the open-file limit,",
                    "ulimit -n). At the limit a new connection closes the oldest one that has",
                    "not delivered a whole request (a slow or idle client, at least a tenth",
                    "of a second old), so slow clients cannot lock others out; when none can be",
                    "closed (all busy with calls, or just opened), the new one is answered 503",
                    "with Retry-After. Herald raises its soft open-file limit to the hard one",
                    "at start, and uses less than this when the descriptors cannot hold it",
                    "(the limit minus 384 for Keeper, the KB, logs and refusals; said once on",
                    "stderr): at `ulimit -n 1024`, 640.",
                ],
            },
            key! { HttpMaxConnectionsPerPeer "http.max_connections_per_peer" = "0",
                |f, s| s.http.max_connections_per_peer = f.int(0, 1_000_000)? as usize,
                [
                    "Most connections one client address may hold (0: no limit of its own;",
                    "a quarter of max_connections suits clients that never share an address).",
                    "A new one past it closes one of that address's own that has not delivered",
                    "a whole request or sits idle, or is answered 503. Whatever this is, at",
                    "max_connections the address holding the most connections loses one first,",
                    "whatever it is doing (a call cut so is answered 503), so one address cannot",
                    "lock the others out.",
                ],
            },
            key! { HttpTrustedProxies "http.trusted_proxies" = "[]",
                |f, s| s.http.trusted_proxies = trusted_proxies(f)?,
                [
                    "Addresses or CIDR blocks (10.0.0.0/8) of the proxies in front of Herald",
                    "whose forwarded client address is believed: on their connections the",
                    "client is the right-most X-Forwarded-For entry that is not one of them",
                    "(else the Forwarded header's for=), for max_connections_per_peer and the",
                    "fair share above. Their own connections are not held to that limit.",
                    "Empty: every client is its TCP address (behind a proxy, all one client).",
                ],
            },
            key! { HttpHeaderTimeoutS "http.header_timeout_s" = "10",
                |f, s| s.http.header_timeout_s = f.int(1, 3600)?,
                [
                    "Seconds a request's head may take, from the connection opening (or from",
                    "the first byte of a later request on a kept-alive connection) (1-3600).",
                ],
            },
            key! { HttpBodyTimeoutS "http.body_timeout_s" = "30",
                |f, s| s.http.body_timeout_s = f.int(1, 3600)?,
                [
                    "Seconds a request's body may take after its head (1-3600).",
                ],
            },
            key! { HttpSendTimeoutS "http.send_timeout_s" = "30",
                |f, s| s.http.send_timeout_s = f.int(1, 3600)?,
                [
                    "Seconds an answer may wait for the client to read it, in all (1-3600).",
                    "A client that reads nothing is closed then; at http.max_connections it is",
                    "the first closed to make room once its answer has waited half a second.",
                ],
            },
            key! { HttpIdleTimeoutS "http.idle_timeout_s" = "90",
                |f, s| s.http.idle_timeout_s = f.int(1, 86_400)?,
                [
                    "Seconds a kept-alive connection may wait for its next request (1-86400).",
                    "Keep it longer than a load balancer's upstream keep-alive timeout (nginx:",
                    "keepalive_timeout in the upstream block, 60 s by default) so the balancer",
                    "closes idle connections first.",
                ],
            },
            key! { HttpDrainDelayS "http.drain_delay_s" = "0",
                |f, s| s.http.drain_delay_s = f.int(0, 300)?,
                [
                    "On SIGTERM/SIGINT, /readyz turns 503 at once and Herald goes on",
                    "accepting calls for this many seconds (0-300), so a balancer or",
                    "Kubernetes stops routing to it before it stops listening (Kubernetes:",
                    "a few seconds, in place of a preStop sleep the image has no shell for).",
                ],
            },
            key! { HttpDrainTimeoutS "http.drain_timeout_s" = "25",
                |f, s| s.http.drain_timeout_s = f.int(0, 3600)?,
                [
                    "Then the listener closes, connections that have not delivered a whole",
                    "request are dropped, and in-flight calls get this many seconds to finish",
                    "(0-3600), their answers carrying Connection: close; then Herald exits.",
                ],
            },
            key! { HttpAuthorizationServers "http.authorization_servers" = "[]",
                |f, s| s.http.authorization_servers = authorization_servers(f)?,
                [
                    "OAuth: the authorization servers (issuer URLs) whose access tokens Herald",
                    "accepts (the MCP authorization flow; Herald is the resource server).",
                    "When set, every request to the MCP path needs a valid token, checked",
                    "before its body is read: a JWT signed with a key of the issuer's JWKS",
                    "(from its RFC 8414 metadata), unexpired, its aud holding resource_url;",
                    "or an opaque token active at introspection_endpoint. No token or a",
                    "refused one: 401 with WWW-Authenticate: Bearer ... resource_metadata=",
                    "\"<origin>/.well-known/oauth-protected-resource<path>\" (RFC 9728, served",
                    "there). Empty: Lorebase API keys, forwarded to Keeper; a call without",
                    "one is an [unauthorized] tool error. Not with allow_anonymous.",
                ],
            },
            key! { HttpResourceUrl "http.resource_url" = "null",
                |f, s| s.http.resource_url = resource_url(f)?,
                [
                    "The URL callers use (https://herald.example.com/mcp behind a TLS",
                    "proxy): the metadata's resource and the audience a token must carry.",
                    "Required with authorization_servers (never taken from Host).",
                ],
            },
            key! { HttpRequiredScopes "http.required_scopes" = "[]",
                |f, s| s.http.required_scopes = f.list()?,
                [
                    "Scopes every token must hold; a token without one: 403 insufficient_scope.",
                ],
            },
            key! { HttpIntrospectionEndpoint "http.introspection_endpoint" = "null",
                |f, s| s.http.introspection_endpoint = endpoint_url(f)?,
                [
                    "RFC 7662 endpoint for tokens that are not JWTs (opaque ones), called with",
                    "oauth_client_id and oauth_client_secret. null: only JWTs are accepted.",
                ],
            },
            key! { HttpIntrospectionMaxInFlight "http.introspection_max_in_flight" = "8",
                |f, s| s.http.introspection_max_in_flight = f.int(1, 1024)? as usize,
                [
                    "Most introspections in flight at once (1-1024). With introspection_per_second",
                    "and introspection_burst, it bounds the calls unauthenticated clients can make",
                    "Herald send the authorization server: a new opaque token past either bound is",
                    "answered 503 with Retry-After: 1 without a call.",
                ],
            },
            key! { HttpIntrospectionPerSecond "http.introspection_per_second" = "10",
                |f, s| s.http.introspection_per_second = f.int(1, 10_000)? as u32,
                [
                    "Introspections a second, sustained (1-10000).",
                ],
            },
            key! { HttpIntrospectionBurst "http.introspection_burst" = "20",
                |f, s| s.http.introspection_burst = f.int(1, 100_000)? as u32,
                [
                    "Introspections allowed at once after a quiet spell (1-100000).",
                ],
            },
            key! { HttpExchangeMaxInFlight "http.exchange_max_in_flight" = "16",
                |f, s| s.http.exchange_max_in_flight = f.int(1, 1024)? as usize,
                [
                    "Most token exchanges in flight at once (1-1024). With exchange_per_second",
                    "and exchange_burst, it bounds the exchanges callers can make Herald ask for",
                    "(one in flight per token; a refusal remembered 10 s): past either bound a",
                    "call that needs a Keeper token is answered 503 with Retry-After: 1.",
                ],
            },
            key! { HttpExchangePerSecond "http.exchange_per_second" = "20",
                |f, s| s.http.exchange_per_second = f.int(1, 10_000)? as u32,
                [
                    "Token exchanges a second, sustained (1-10000).",
                ],
            },
            key! { HttpExchangeBurst "http.exchange_burst" = "40",
                |f, s| s.http.exchange_burst = f.int(1, 100_000)? as u32,
                [
                    "Token exchanges allowed at once after a quiet spell (1-100000).",
                ],
            },
            key! { HttpOauthClientId "http.oauth_client_id" = "null",
                |f, s| s.http.oauth_client_id = f.optional_string()?,
                [
                    "Herald's client at the authorization server, for introspection and",
                    "token exchange (HTTP Basic with oauth_client_secret).",
                ],
            },
            key! { HttpOauthClientSecret "http.oauth_client_secret" = "null",
                |f, s| s.http.oauth_client_secret = api_key(f)?.map(|p| Secret::new(p.text)),
                [
                    "Its secret: a literal, secret://env/NAME or secret://file/PATH. Never logged.",
                ],
            },
            key! { HttpKeeperToken "http.keeper_token" = "exchange",
                |f, s| s.http.keeper_token = keeper_token(f)?,
                [
                    "With authorization_servers, the token a call sends to Keeper. exchange:",
                    "RFC 8693 token exchange at the issuer's token endpoint for a token with",
                    "audience keeper.base_url (needs oauth_client_id), cached until shortly",
                    "before it expires. forward: the client's token unchanged, only where",
                    "Keeper accepts tokens issued for resource_url. The client's token is",
                    "never passed through otherwise.",
                ],
            },
            key! { HttpToolHeaders "http.tool_headers" = "true",
                |f, s| s.http.tool_headers = f.bool()?,
                [
                    "Honor the request headers X-MCP-Readonly, X-MCP-Toolsets and X-MCP-Tools,",
                    "which narrow the tools of one request (never widen what tools: allows).",
                ],
            },
        ],
    },
    Group {
        doc: &["Output caps; every cut is marked, never silent."],
        keys: &[
            key! { OutputMaxChars "output.max_chars" = "12000",
                |f, s| s.output.max_chars = f.int(MIN_MAX_CHARS as u64, 10_000_000)? as usize,
                [
                    "Longest tool output, in characters.",
                ],
            },
            key! { OutputMaxItems "output.max_items" = "50",
                |f, s| s.output.max_items = f.int(1, 100_000)? as usize,
                [
                    "Longest list, in items.",
                ],
            },
            key! { OutputMaxValueChars "output.max_value_chars" = "500",
                |f, s| s.output.max_value_chars = f.int(1, 10_000_000)? as usize,
                [
                    "Longest single value, in characters.",
                ],
            },
            key! { OutputSchemas "output.schemas" = "false",
                |f, s| s.output.schemas = f.bool()?,
                [
                    "Declare each tool's output schema. Off (the default): a text answer is",
                    "its text block alone, a json answer the JSON as text and as",
                    "structuredContent, so hosts that show the model only structuredContent",
                    "(Claude Code, Codex, opencode) show the compact text. On: MCP requires",
                    "structuredContent with every success, so text answers carry the JSON",
                    "shape as structuredContent too (their text block stays the compact text).",
                ],
            },
        ],
    },
    Group {
        doc: &[],
        keys: &[key! { ChangesMaxPages "changes.max_pages" = "10",
            |f, s| s.changes.max_pages = f.int(1, 10_000)? as u32,
            ["Most branch-log pages lorebase_changes reads back to `since`."],
        }],
    },
    Group {
        doc: &[],
        keys: &[
            key! { KbDir "kb.dir" = "null",
                |f, s| s.kb.dir = f.optional_string()?.map(PathBuf::from),
                [
                    "The markdown knowledge-base catalog served by kb_search and kb_get;",
                    "null: no KB tools.",
                ],
            },
            key! { KbIndexWaitS "kb.index_wait_s" = "10",
                |f, s| s.kb.index_wait_s = f.int(0, 3600)?,
                [
                    "The catalog is indexed in the background from startup (the MCP",
                    "handshake never waits for it); a KB tool called before the index is",
                    "ready waits this many seconds for it, then answers a tool error saying",
                    "to retry.",
                ],
            },
        ],
    },
    Group {
        doc: &["Which tools are served."],
        keys: &[
            key! { ToolsReadOnly "tools.read_only" = "false",
                |f, s| s.tools.read_only = f.bool()?,
                [
                    "Leave lorebase_execute out (the only tool that can write).",
                ],
            },
            key! { ToolsAllow "tools.allow" = "null",
                |f, s| s.tools.allow = f.optional_list()?,
                [
                    "Serve only these tools (exact names); null: every tool.",
                ],
            },
            key! { ToolsDeny "tools.deny" = "[]",
                |f, s| s.tools.deny = f.list()?,
                [
                    "Never serve these tools (exact names).",
                ],
            },
            key! { ToolsAlwaysLoadContext "tools.always_load_context" = "true",
                |f, s| s.tools.always_load_context = f.bool()?,
                [
                    "Mark lorebase_context for hosts that hide MCP tools behind a search",
                    "(Claude Code: _meta \"anthropic/alwaysLoad\"), so the model has the tool",
                    "that starts every task without searching for it. false: no mark.",
                ],
            },
        ],
    },
    Group {
        doc: &[
            "Remote MCP servers whose tools join Herald's own (Streamable HTTP only).",
            "Each remote tool is served as <server>__<tool>, its description marked as",
            "coming from an external server; a built-in tool wins a name collision.",
            "Discovery runs at startup, all servers at once; a server that cannot be",
            "reached is logged and skipped (it never stops Herald), and joins on the",
            "next re-discovery (SIGHUP, or refresh_interval_s). Remote calls are never",
            "retried (they are not assumed idempotent). Remote output is untrusted data",
            "and goes through the same output caps.",
            "In a variable: LOREBASE__HERALD__MCP__SERVERS='[{\"name\":\"runbooks\",\"url\":\"https://...\"}]'.",
        ],
        keys: &[
            key! { McpServers "mcp.servers" = "[]",
                |f, s| s.mcp.servers = parse_servers(f.raw).map_err(|e| f.invalid(e))?,
                [
                    "The servers, for example:",
                    "servers:",
                    "  - name: runbooks                        # tools appear as runbooks__<tool>",
                    "    url: https://mcp.internal.example/mcp # Streamable HTTP endpoint",
                    "    token_env: RUNBOOKS_MCP_TOKEN         # optional: variable holding a bearer token;",
                    "                                          # refused over http:// to a public host",
                    "    tools: [search, get]                  # exact-name allowlist; omit: every tool",
                    "    credential: herald                    # with OAuth on: herald (token_env) is served only",
                    "                                          # to tokens holding scope (default",
                    "                                          # herald:remote:<name>); exchange: the caller's",
                    "                                          # token, exchanged (RFC 8693) for audience",
                    "    scope: runbooks:use                   # optional: the scope a caller's token must hold",
                ],
            },
            key! { McpRequireAllowlist "mcp.require_allowlist" = "false",
                |f, s| s.mcp.require_allowlist = f.bool()?,
                [
                    "Refuse to start unless every server declares a tools allowlist.",
                ],
            },
            key! { McpDiscoveryTimeoutS "mcp.discovery_timeout_s" = "10",
                |f, s| s.mcp.discovery_timeout_s = f.int(1, 600)?,
                [
                    "Longest discovery of all servers together at startup, in seconds (1-600).",
                ],
            },
            key! { McpCallTimeoutS "mcp.call_timeout_s" = "60",
                |f, s| s.mcp.call_timeout_s = f.int(1, 3600)?,
                [
                    "Longest remote tool call, in seconds (1-3600); the call is then abandoned.",
                ],
            },
            key! { McpRefreshIntervalS "mcp.refresh_interval_s" = "0",
                |f, s| s.mcp.refresh_interval_s = f.int(0, 86_400)?,
                [
                    "Re-discover the remote tools every N seconds (0: at startup and on SIGHUP only).",
                ],
            },
            key! { McpMaxToolsPerServer "mcp.max_tools_per_server" = "128",
                |f, s| s.mcp.max_tools_per_server = f.int(1, 10_000)? as usize,
                [
                    "Most tools one server may add (1-10000); the rest are dropped, a warning",
                    "naming them.",
                ],
            },
            key! { McpMaxToolBytesPerServer "mcp.max_tool_bytes_per_server" = "262144",
                |f, s| s.mcp.max_tool_bytes_per_server = f.int(1024, 16_777_216)? as usize,
                [
                    "Most bytes of tool definitions (as tools/list shows them) one server may",
                    "add (1024-16777216); the tools past it are dropped, a warning naming them.",
                ],
            },
            key! { McpMaxAnswerBytes "mcp.max_answer_bytes" = "4194304",
                |f, s| s.mcp.max_answer_bytes = f.int(1024, 16_777_216)? as usize,
                [
                    "Most bytes of one remote tool answer read (1024-16777216; the HTTP body, or",
                    "one SSE event): past it Herald stops reading and the call is a tool error,",
                    "a warning naming the server. What is shown is cut to output.max_chars anyway.",
                ],
            },
        ],
    },
    Group {
        doc: &[
            "Logs (stderr) and the audit trail: one info line per tool call (time,",
            "request and trace ids, tool, domain, branch, outcome code, duration, Keeper",
            "requests, the caller's key fingerprint). docs/operations.md lists the fields.",
        ],
        keys: &[
            key! { LogFormat "log.format" = "text",
                |f, s| s.log.format = log_format(f)?,
                [
                    "text, or json (one JSON object per line). --log-format.",
                ],
            },
            key! { LogAuditArguments "log.audit_arguments" = "false",
                |f, s| s.log.audit_arguments = f.bool()?,
                [
                    "Add the names of each call's arguments to its audit line (never values).",
                ],
            },
            key! { LogAuditFile "log.audit_file" = "null",
                |f, s| s.log.audit_file = f.optional_string()?.map(PathBuf::from),
                [
                    "Also append every audit line to this file, whatever the log level;",
                    "bounded only by the disk (a line it cannot take is counted in",
                    "herald_audit_lines_dropped_total and warned once per burst). On stderr,",
                    "lines are dropped and counted while nobody reads it. null: stderr only.",
                ],
            },
        ],
    },
    Group {
        doc: &[
            "MCP Apps views (extension io.modelcontextprotocol/ui): a graph, a provenance",
            "timeline and an aggregate chart that hosts rendering MCP Apps show beside",
            "the calls; docs/hosts.md lists them. Only a client that declares the",
            "extension sees them; every other client gets the same answers either way.",
        ],
        keys: &[key! { UiEnabled "ui.enabled" = "true",
            |f, s| s.ui.enabled = f.bool()?,
            [
                "Offer the views to clients that declare the extension. false: no",
                "_meta.ui on any tool and no ui:// resource, whatever the client declares.",
            ],
        }],
    },
    Group {
        doc: &["Prometheus metrics (GET /metrics, text format); docs/operations.md names them."],
        keys: &[
            key! { MetricsEnabled "metrics.enabled" = "true",
                |f, s| s.metrics.enabled = f.bool()?,
                [],
            },
            key! { MetricsHost "metrics.host" = "127.0.0.1",
                |f, s| s.metrics.host = f.nonempty_string()?,
                [
                    "Where a metrics listener of its own binds when port is set.",
                ],
            },
            key! { MetricsPort "metrics.port" = "null",
                |f, s| s.metrics.port = f.optional_int(0, u16::MAX.into())?.map(|p| p as u16),
                [
                    "A port of its own for /metrics (0 picks a free one, logged at start).",
                    "null: /metrics on the Streamable HTTP listener, and no metrics at all",
                    "over stdio.",
                ],
            },
            key! { MetricsBearerToken "metrics.bearer_token" = "null",
                |f, s| s.metrics.bearer_token = secret_reference(f)?,
                [
                    "Where the bearer a scrape must send comes from (Authorization: Bearer):",
                    "secret://env/NAME or secret://file/PATH, never the token itself.",
                    "null: /metrics asks for none (it still keeps to http.allowed_hosts).",
                ],
            },
        ],
    },
    Group {
        doc: &[
            "Every Keeper request carries a W3C traceparent (continuing the caller's,",
            "from the MCP request's _meta or the HTTP traceparent header) and an",
            "X-Request-Id, whatever these settings are.",
        ],
        keys: &[
            key! { TracesOtlpEndpoint "traces.otlp_endpoint" = "null",
                |f, s| s.traces.otlp_endpoint = otlp_endpoint(f)?,
                [
                    "Export spans over OTLP/HTTP (JSON) to this endpoint, such as",
                    "http://127.0.0.1:4318/v1/traces (a URL without a path gets /v1/traces).",
                    "null: no export.",
                ],
            },
            key! { TracesServiceName "traces.service_name" = "lorebase-herald",
                |f, s| s.traces.service_name = f.nonempty_string()?,
                [
                    "service.name of the exported spans.",
                ],
            },
        ],
    },
}

/// Every settings key, dotted below `herald`, in the order of
/// `config/lorebase.example.yaml`.
pub fn keys() -> impl Iterator<Item = &'static str> {
    entries().map(Key::key)
}

/// Every entry of the table, in the example file's order.
pub(super) fn entries() -> impl Iterator<Item = &'static Key> {
    GROUPS.iter().flat_map(|g| g.keys)
}

/// The section of a dotted key (`keeper` of `keeper.base_url`), none for a
/// top-level key.
fn section_of(key: &str) -> Option<&str> {
    key.split_once('.').map(|(section, _)| section)
}

/// Whether `key` is a settings key.
pub(crate) fn is_known_key(key: &str) -> bool {
    entries().any(|k| k.key() == key)
}

/// Whether `name` is a section of the `herald` mapping (`keeper`, `http`, ...).
pub(crate) fn is_section(name: &str) -> bool {
    entries().any(|k| section_of(k.key()) == Some(name))
}

/// The text of `config/lorebase.example.yaml`: every key with its comment and
/// its default, generated from the settings table.
pub fn example_yaml() -> String {
    fn comment(out: &mut String, indent: &str, lines: &[&str]) {
        for line in lines {
            let sep = if line.is_empty() { "" } else { " " };
            out.push_str(&format!("{indent}#{sep}{line}\n"));
        }
    }
    let mut out = String::new();
    comment(&mut out, "", HEADER);
    out.push_str("\nherald:\n");
    for (i, group) in GROUPS.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        comment(&mut out, "  ", group.doc);
        let section = group.keys.first().and_then(|k| section_of(k.key()));
        let indent = match section {
            Some(section) => {
                out.push_str(&format!("  {section}:\n"));
                "    "
            }
            None => "  ",
        };
        for key in group.keys {
            comment(&mut out, indent, key.doc);
            let name = key.key().rsplit('.').next().unwrap_or(key.key());
            out.push_str(&format!("{indent}{name}: {}\n", key.default));
        }
    }
    out
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
    let Some(entry) = entries().find(|k| k.key() == key) else {
        return Err(ConfigError::UnknownKey {
            key: key.to_string(),
            origin: source.clone(),
        });
    };
    (entry.set)(&Field { key, raw, source }, settings, api_key)
}

/// A secret reference, kept unresolved (`Settings::load` resolves it).
fn secret_reference(f: &Field<'_>) -> Result<Option<super::Secret>, ConfigError> {
    let Some(text) = f.optional_string()? else {
        return Ok(None);
    };
    if !text.starts_with(super::SECRET_REF_PREFIX) {
        return Err(f.invalid(
            "must say where the secret comes from (secret://env/NAME or secret://file/PATH), not be the secret",
        ));
    }
    Ok(Some(super::Secret::new(text)))
}

fn api_key(f: &Field<'_>) -> Result<Option<PendingSecret>, ConfigError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::defaults::{apply_default, unset};

    #[test]
    fn keys_are_unique_and_each_group_is_one_section() {
        let mut seen = std::collections::BTreeSet::new();
        for key in keys() {
            assert!(seen.insert(key), "{key} is declared twice");
        }
        for group in GROUPS {
            let section = section_of(group.keys[0].key());
            for key in group.keys {
                assert_eq!(section_of(key.key()), section, "{} in its group", key.key());
            }
        }
    }

    /// The single owner of the defaults: each key's default text passes its
    /// own check (no pending secret), and the settings a layer-less load
    /// starts from are those texts applied, nothing else.
    #[test]
    fn every_default_passes_its_own_check_and_is_the_settings_default() {
        let mut settings = unset();
        for entry in entries() {
            let mut pending = None;
            apply_default(entry, &mut settings, &mut pending)
                .unwrap_or_else(|e| panic!("the default of {}: {e}", entry.key()));
            assert!(pending.is_none(), "{} has a secret default", entry.key());
        }
        assert_eq!(settings, Settings::default());
        // Applying a default again changes nothing: each key owns its field.
        let mut again = Settings::default();
        for entry in entries() {
            apply_default(entry, &mut again, &mut None).unwrap();
            assert_eq!(again, Settings::default(), "{}", entry.key());
        }
    }

    /// A default is what the example file shows: changing a key's text
    /// changes the settings (the default is not written anywhere else).
    #[test]
    fn each_default_text_reaches_its_field() {
        let port = Key {
            default: "8091",
            ..*entries().find(|k| k.id == SettingKey::HttpPort).unwrap()
        };
        let mut settings = Settings::default();
        apply_default(&port, &mut settings, &mut None).unwrap();
        assert_eq!(settings.http.port, 8091);
    }

    /// The introspection bound's three keys: read from a settings file and
    /// from `LOREBASE__HERALD__HTTP__...`; a value out of its bound is a
    /// settings error naming the key and where it came from.
    #[test]
    fn the_introspection_bound_is_three_bounded_keys() {
        use std::collections::BTreeMap;

        use crate::config::{ConfigError, Overrides};

        let d = Settings::default().http;
        assert_eq!(
            (
                d.introspection_max_in_flight,
                d.introspection_per_second,
                d.introspection_burst
            ),
            (8, 10, 20)
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lorebase.yaml");
        let load = |yaml: &str, vars: &[(&str, &str)]| {
            std::fs::write(&path, yaml).unwrap();
            let mut env = BTreeMap::from([(
                crate::config::CONFIG_FILE_VAR.to_string(),
                path.to_str().unwrap().to_string(),
            )]);
            env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            Settings::load_with_env(&env, &Overrides::new())
        };
        let set = load(
            "herald:\n  http:\n    introspection_max_in_flight: 64\n    introspection_per_second: 200\n    introspection_burst: 400\n",
            &[],
        )
        .unwrap()
        .http;
        assert_eq!(
            (
                set.introspection_max_in_flight,
                set.introspection_per_second,
                set.introspection_burst
            ),
            (64, 200, 400)
        );
        let from_env = load(
            "herald: {}\n",
            &[("LOREBASE__HERALD__HTTP__INTROSPECTION_BURST", "100000")],
        )
        .unwrap()
        .http;
        assert_eq!(from_env.introspection_burst, 100_000);

        for (key, bad) in [
            (SettingKey::HttpIntrospectionMaxInFlight, "0"),
            (SettingKey::HttpIntrospectionMaxInFlight, "1025"),
            (SettingKey::HttpIntrospectionPerSecond, "10001"),
            (SettingKey::HttpIntrospectionPerSecond, "2.5"),
            (SettingKey::HttpIntrospectionBurst, "0"),
            (SettingKey::HttpIntrospectionBurst, "100001"),
        ] {
            let (section, name) = key.name().split_once('.').unwrap();
            let yaml = format!("herald:\n  {section}:\n    {name}: {bad}\n");
            let err = load(&yaml, &[]).unwrap_err();
            assert!(
                matches!(&err, ConfigError::Invalid { key: k, origin: SettingSource::File(_), .. } if k == key.name()),
                "{key} = {bad}: {err:?}"
            );
            let line = err.to_string();
            assert!(line.contains(&format!("herald.{key}")), "{line}");
            assert!(line.contains("expected a whole number from 1 to"), "{line}");
        }
        let err = load(
            "herald: {}\n",
            &[("LOREBASE__HERALD__HTTP__INTROSPECTION_MAX_IN_FLIGHT", "0")],
        )
        .unwrap_err();
        assert_eq!(
            err.key(),
            Some(SettingKey::HttpIntrospectionMaxInFlight.name())
        );
        assert!(
            err.to_string()
                .contains("LOREBASE__HERALD__HTTP__INTROSPECTION_MAX_IN_FLIGHT"),
            "{err}"
        );
    }

    /// The placeholders are not the defaults where a default is not empty:
    /// the table, not [`unset`], gives those fields their values.
    #[test]
    fn the_placeholders_are_overwritten() {
        let (blank, d) = (unset(), Settings::default());
        assert_ne!(blank.keeper, d.keeper);
        assert_ne!(blank.http, d.http);
        assert_ne!(blank.output, d.output);
        assert_ne!(blank.changes, d.changes);
        assert_ne!(blank.kb, d.kb);
        assert_ne!(blank.tools, d.tools);
        assert_ne!(blank.mcp, d.mcp);
        assert_ne!(blank.metrics, d.metrics);
        assert_ne!(blank.traces, d.traces);
    }
}
