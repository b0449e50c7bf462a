//! The settings table: every key declared once, in the order of
//! `config/lorebase.example.yaml`. An entry holds the key, its type, its
//! default as the example file shows it, its bound, the check that stores a
//! value in [`Settings`](super::settings::Settings), its comment, and its other
//! spellings: the short variable, the server's flag (with its help line), the
//! Node option and the Python keywords (an entry's shape is [`super::entry`]).
//! Everything else is derived from it: `SettingKey`, `Settings::default()`, the
//! parsing of every layer ([`super::keys`]), the other spellings
//! ([`super::aliases`]), and the generated surfaces of [`super::reference`]
//! (the example file, `docs/settings.md`, the Node and Python tables of the
//! READMEs).
//!
//! A new key: a field in [`Settings`](super::settings::Settings) or a section
//! of it (and its placeholder in `defaults::unset`), then one `key!` entry
//! here, in the group and place it takes in the example file; then regenerate
//! the generated files: `UPDATE_EXAMPLE=1 UPDATE_SNAPSHOTS=1 cargo test -p
//! lorebase-herald-core --test integration -- config_settings::
//! settings_reference::` (docs/architecture.md, "Adding a setting", lists what
//! a flag or a Node option needs besides).

use std::path::PathBuf;

use super::entry::{Flag, Group, Key, Kind, Spellings};
use super::field::{
    Bound, api_key, authorization_servers, base_url, endpoint_url, http_path, keeper_token,
    log_format, origins, otlp_endpoint, resource_url, secret_reference, transport, trusted_proxies,
};
use super::mcp::parse_servers;
use super::secret::Secret;
use super::settings::MIN_MAX_CHARS;

/// The settings table: `Group { doc: &[...], keys: &[key! {...}, ...] }`,
/// each entry
///
/// ```text
/// key! { Name "section.name": Kind = "default",
///     bound(min, max),                          // integers only
///     |f, s| s.field = f.parser()?,             // `|f, s, pending|` also gets the API key
///     ["comment line", ...],                    // {bound} {min} {env} {flag} are filled in
///     env: "LOREBASE_NAME",                     // optional, each of these
///     flag: "name" "its help line",
///     node: "nodeOption",
///     python: ["keyword", ...],
/// }
/// ```
///
/// its typed key (`SettingKey::Name`), the key, its [`Kind`], its default as
/// the example file shows it, its bound (the setter's `f.bounded()` checks
/// it, the comment's `{bound}` shows it), how a value is checked (`f`, a
/// [`super::field::Field`]) and stored (`s`, the
/// [`Settings`](super::settings::Settings)), its comment, and its other
/// spellings. It declares [`SettingKey`] and `GROUPS`.
macro_rules! settings_table {
    ($(
        Group {
            doc: &[$($group_doc:literal),* $(,)?],
            keys: &[$(
                key! {
                    $id:ident $key:literal: $kind:ident = $default:literal,
                    $(bound($min:expr, $max:expr),)?
                    |$($arg:ident),+| $set:expr,
                    [$($doc:literal),* $(,)?],
                    $(env: $env:literal,)?
                    $(flag: $flag:literal $flag_help:literal,)?
                    $(node: $node:literal,)?
                    $(python: [$($python:literal),* $(,)?],)?
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

        /// The table's groups, in the example file's order.
        pub(super) const GROUPS: &[Group] = &[$(
            Group {
                doc: &[$($group_doc),*],
                keys: &[$(
                    Key {
                        name: $key,
                        kind: Kind::$kind,
                        doc: &[$($doc),*],
                        default: $default,
                        bound: one!($(Bound { min: $min, max: $max })?),
                        spellings: Spellings {
                            env: one!($($env)?),
                            flag: one!($(Flag { name: $flag, help: $flag_help })?),
                            node: one!($($node)?),
                            python: &[$($($python),*)?],
                        },
                        set: setter!(|$($arg),+| $set),
                    },
                )+],
            },
        )+];
    };
}

/// `Some(x)` for `one!(x)`, `None` for `one!()`.
macro_rules! one {
    () => {
        None
    };
    ($x:expr) => {
        Some($x)
    };
}

/// A key's setter: `|f, s| ...` or `|f, s, pending| ...`.
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
pub(super) const HEADER: &[&str] = &[
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

// Every key, grouped and ordered as the example file shows them.
settings_table! {
    Group {
        doc: &[],
        keys: &[
            key! { KeeperBaseUrl "keeper.base_url": Text = "http://127.0.0.1:8080",
                |f, s| s.keeper.base_url = base_url(f, SettingKey::KeeperApiKey.name())?,
                [
                    "Keeper's origin (http or https, no credentials in it). {env}.",
                ],
                env: "LOREBASE_URL",
                flag: "keeper-url" "Keeper's origin (instead of LOREBASE_URL)",
                node: "baseUrl",
                python: ["url", "base_url"],
            },
            key! { KeeperApiKey "keeper.api_key": Secret = "null",
                |f, _s, pending| *pending = api_key(f)?,
                [
                    "The key every stdio call carries (never used over Streamable HTTP, where",
                    "each caller sends its own). A literal, secret://env/NAME or",
                    "secret://file/PATH (secret://file//run/secrets/lorebase_agent_key).",
                    "{env}. null: no key (a Keeper in auth mode none).",
                ],
                env: "LOREBASE_API_KEY",
                node: "apiKey",
                python: ["api_key"],
            },
            key! { KeeperMaxRetries "keeper.max_retries": Int = "2",
                bound(0, 10),
                |f, s| s.keeper.max_retries = f.bounded()? as u32,
                [
                    "Resends after 429, 503 or an unreachable Keeper; 0 turns retries off {bound}.",
                    "A write (lorebase_execute with dry_run: false) is resent only when it",
                    "carries an idempotency_key.",
                ],
                node: "maxRetries",
            },
            key! { KeeperRetryMaxWaitS "keeper.retry_max_wait_s": Int = "5",
                bound(0, 300),
                |f, s| s.keeper.retry_max_wait_s = f.bounded()?,
                [
                    "Longest pause before a retry, in seconds {bound}; Retry-After is capped to it.",
                    "Without Retry-After: exponential backoff with jitter.",
                ],
            },
            key! { KeeperTrustEnv "keeper.trust_env": Bool = "false",
                |f, s| s.keeper.trust_env = f.bool()?,
                [
                    "Honor HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY. Refused together",
                    "with verify_tls: false.",
                ],
            },
            key! { KeeperVerifyTls "keeper.verify_tls": Bool = "true",
                |f, s| s.keeper.verify_tls = f.bool()?,
                [
                    "Verify Keeper's TLS certificate: against the system's roots, or the",
                    "Mozilla roots bundled in Herald when the system has none (a minimal",
                    "container image), and ca_file.",
                ],
            },
            key! { KeeperCaFile "keeper.ca_file": Text = "null",
                |f, s| s.keeper.ca_file = f.optional_string()?.map(PathBuf::from),
                [
                    "A PEM file of the private CA certificates that signed Keeper's",
                    "certificate (/etc/lorebase/keeper-ca.pem): trusted besides the system's",
                    "roots; where the system has none, instead of the bundled ones. A file",
                    "that cannot be read stops Herald at startup. null: none.",
                ],
            },
            key! { KeeperTimeoutS "keeper.timeout_s": Int = "30",
                bound(1, 3600),
                |f, s| s.keeper.timeout_s = f.bounded()?,
                [
                    "Longest time for one request to Keeper, in seconds {bound}.",
                ],
            },
            key! { KeeperMaxResponseBytes "keeper.max_response_bytes": Int = "16777216",
                bound(1024, 1 << 32),
                |f, s| s.keeper.max_response_bytes = f.bounded()?,
                [
                    "Largest Keeper answer accepted, in bytes (at least {min}); larger ones are",
                    "refused with an error instead of exhausting memory.",
                ],
            },
        ],
    },
    Group {
        doc: &[],
        keys: &[
            key! { Domain "domain": Text = "null",
                |f, s| s.domain = f.optional_string()?,
                [
                    "The Domain used when a call names none. {env}.",
                ],
                env: "LOREBASE_DOMAIN",
                flag: "domain" "The Domain used when a call names none",
                node: "domain",
            },
            key! { Branch "branch": Text = "null",
                |f, s| s.branch = f.optional_string()?,
                [
                    "The branch used when a call names none; null: the Domain's default branch.",
                    "{env}.",
                ],
                env: "LOREBASE_BRANCH",
                flag: "branch" "The branch used when a call names none",
                node: "branch",
            },
        ],
    },
    Group {
        doc: &[],
        keys: &[key! { Transport "transport": Text = "stdio",
            |f, s| s.transport = transport(f)?,
            [
                "stdio (one Herald per agent, started by the host) or streamable_http (one",
                "shared Herald; each caller sends its own Authorization: Bearer key).",
            ],
            flag: "transport" "stdio (one Herald per agent) or streamable_http (one shared Herald)",
        }],
    },
    Group {
        doc: &["The Streamable HTTP listener."],
        keys: &[
            key! { HttpHost "http.host": Text = "127.0.0.1",
                |f, s| s.http.host = f.nonempty_string()?,
                [],
                flag: "host" "Streamable HTTP: the address to listen on (default 127.0.0.1)",
            },
            key! { HttpPort "http.port": Int = "8090",
                bound(0, u16::MAX as u64),
                |f, s| s.http.port = f.bounded()? as u16,
                [
                    "0 picks a free port.",
                ],
                flag: "port" "Streamable HTTP: the port to listen on (default 8090; 0 picks a free one)",
            },
            key! { HttpPath "http.path": Text = "/mcp",
                |f, s| s.http.path = http_path(f)?,
                [],
            },
            key! { HttpAllowedHosts "http.allowed_hosts": List = "[]",
                |f, s| s.http.allowed_hosts = f.list()?,
                [
                    "Host header values accepted besides 127.0.0.1, localhost and [::1]",
                    "(DNS rebinding protection); add the name agents use to reach Herald.",
                ],
            },
            key! { HttpAllowedOrigins "http.allowed_origins": List = "[]",
                |f, s| s.http.allowed_origins = origins(f)?,
                [
                    "Origin values accepted besides http://127.0.0.1 and http://localhost.",
                ],
            },
            key! { HttpStateless "http.stateless": Bool = "true",
                |f, s| s.http.stateless = f.bool()?,
                [
                    "No sessions: any replica serves any call.",
                ],
            },
            key! { HttpJsonResponse "http.json_response": Bool = "true",
                |f, s| s.http.json_response = f.bool()?,
                [
                    "JSON responses instead of SSE streams.",
                ],
            },
            key! { HttpAllowAnonymous "http.allow_anonymous": Bool = "false",
                |f, s| s.http.allow_anonymous = f.bool()?,
                [
                    "Forward calls without an Authorization header to Keeper without a",
                    "credential (only for a Keeper in auth mode none; keep off elsewhere).",
                ],
            },
            key! { HttpMaxBodyBytes "http.max_body_bytes": Int = "1048576",
                bound(1024, 1 << 30),
                |f, s| s.http.max_body_bytes = f.bounded()? as usize,
                [
                    "Largest MCP request body accepted, in bytes (at least {min}).",
                ],
            },
            key! { HttpMaxConnections "http.max_connections": Int = "1024",
                bound(1, 1_000_000),
                |f, s| s.http.max_connections = f.bounded()? as usize,
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
            key! { HttpMaxConnectionsPerPeer "http.max_connections_per_peer": Int = "0",
                bound(0, 1_000_000),
                |f, s| s.http.max_connections_per_peer = f.bounded()? as usize,
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
            key! { HttpTrustedProxies "http.trusted_proxies": List = "[]",
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
            key! { HttpHeaderTimeoutS "http.header_timeout_s": Int = "10",
                bound(1, 3600),
                |f, s| s.http.header_timeout_s = f.bounded()?,
                [
                    "Seconds a request's head may take, from the connection opening (or from",
                    "the first byte of a later request on a kept-alive connection) {bound}.",
                ],
            },
            key! { HttpBodyTimeoutS "http.body_timeout_s": Int = "30",
                bound(1, 3600),
                |f, s| s.http.body_timeout_s = f.bounded()?,
                [
                    "Seconds a request's body may take after its head {bound}.",
                ],
            },
            key! { HttpSendTimeoutS "http.send_timeout_s": Int = "30",
                bound(1, 3600),
                |f, s| s.http.send_timeout_s = f.bounded()?,
                [
                    "Seconds an answer may wait for the client to read it, in all {bound}.",
                    "A client that reads nothing is closed then; at http.max_connections it is",
                    "the first closed to make room once its answer has waited half a second.",
                ],
            },
            key! { HttpIdleTimeoutS "http.idle_timeout_s": Int = "90",
                bound(1, 86_400),
                |f, s| s.http.idle_timeout_s = f.bounded()?,
                [
                    "Seconds a kept-alive connection may wait for its next request {bound}.",
                    "Keep it longer than a load balancer's upstream keep-alive timeout (nginx:",
                    "keepalive_timeout in the upstream block, 60 s by default) so the balancer",
                    "closes idle connections first.",
                ],
            },
            key! { HttpDrainDelayS "http.drain_delay_s": Int = "0",
                bound(0, 300),
                |f, s| s.http.drain_delay_s = f.bounded()?,
                [
                    "On SIGTERM/SIGINT, /readyz turns 503 at once and Herald goes on",
                    "accepting calls for this many seconds {bound}, so a balancer or",
                    "Kubernetes stops routing to it before it stops listening (Kubernetes:",
                    "a few seconds, in place of a preStop sleep the image has no shell for).",
                ],
            },
            key! { HttpDrainTimeoutS "http.drain_timeout_s": Int = "25",
                bound(0, 3600),
                |f, s| s.http.drain_timeout_s = f.bounded()?,
                [
                    "Then the listener closes, connections that have not delivered a whole",
                    "request are dropped, and in-flight calls get this many seconds to finish",
                    "{bound}, their answers carrying Connection: close; then Herald exits.",
                ],
            },
            key! { HttpAuthorizationServers "http.authorization_servers": List = "[]",
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
            key! { HttpResourceUrl "http.resource_url": Text = "null",
                |f, s| s.http.resource_url = resource_url(f)?,
                [
                    "The URL callers use (https://herald.example.com/mcp behind a TLS",
                    "proxy): the metadata's resource and the audience a token must carry.",
                    "Required with authorization_servers (never taken from Host).",
                ],
            },
            key! { HttpRequiredScopes "http.required_scopes": List = "[]",
                |f, s| s.http.required_scopes = f.list()?,
                [
                    "Scopes every token must hold; a token without one: 403 insufficient_scope.",
                ],
            },
            key! { HttpIntrospectionEndpoint "http.introspection_endpoint": Text = "null",
                |f, s| s.http.introspection_endpoint = endpoint_url(f)?,
                [
                    "RFC 7662 endpoint for tokens that are not JWTs (opaque ones), called with",
                    "oauth_client_id and oauth_client_secret. null: only JWTs are accepted.",
                ],
            },
            key! { HttpIntrospectionMaxInFlight "http.introspection_max_in_flight": Int = "8",
                bound(1, 1024),
                |f, s| s.http.introspection_max_in_flight = f.bounded()? as usize,
                [
                    "Most introspections in flight at once {bound}. With introspection_per_second",
                    "and introspection_burst, it bounds the calls unauthenticated clients can make",
                    "Herald send the authorization server: a new opaque token past either bound is",
                    "answered 503 with Retry-After: 1 without a call.",
                ],
            },
            key! { HttpIntrospectionPerSecond "http.introspection_per_second": Int = "10",
                bound(1, 10_000),
                |f, s| s.http.introspection_per_second = f.bounded()? as u32,
                [
                    "Introspections a second, sustained {bound}.",
                ],
            },
            key! { HttpIntrospectionBurst "http.introspection_burst": Int = "20",
                bound(1, 100_000),
                |f, s| s.http.introspection_burst = f.bounded()? as u32,
                [
                    "Introspections allowed at once after a quiet spell {bound}.",
                ],
            },
            key! { HttpExchangeMaxInFlight "http.exchange_max_in_flight": Int = "16",
                bound(1, 1024),
                |f, s| s.http.exchange_max_in_flight = f.bounded()? as usize,
                [
                    "Most token exchanges in flight at once {bound}. With exchange_per_second",
                    "and exchange_burst, it bounds the exchanges callers can make Herald ask for",
                    "(one in flight per token; a refusal remembered 10 s): past either bound a",
                    "call that needs a Keeper token is answered 503 with Retry-After: 1.",
                ],
            },
            key! { HttpExchangePerSecond "http.exchange_per_second": Int = "20",
                bound(1, 10_000),
                |f, s| s.http.exchange_per_second = f.bounded()? as u32,
                [
                    "Token exchanges a second, sustained {bound}.",
                ],
            },
            key! { HttpExchangeBurst "http.exchange_burst": Int = "40",
                bound(1, 100_000),
                |f, s| s.http.exchange_burst = f.bounded()? as u32,
                [
                    "Token exchanges allowed at once after a quiet spell {bound}.",
                ],
            },
            key! { HttpOauthClientId "http.oauth_client_id": Text = "null",
                |f, s| s.http.oauth_client_id = f.optional_string()?,
                [
                    "Herald's client at the authorization server, for introspection and",
                    "token exchange (HTTP Basic with oauth_client_secret).",
                ],
            },
            key! { HttpOauthClientSecret "http.oauth_client_secret": Secret = "null",
                |f, s| s.http.oauth_client_secret = api_key(f)?.map(|p| Secret::new(p.text)),
                [
                    "Its secret: a literal, secret://env/NAME or secret://file/PATH. Never logged.",
                ],
            },
            key! { HttpKeeperToken "http.keeper_token": Text = "exchange",
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
            key! { HttpToolHeaders "http.tool_headers": Bool = "true",
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
            key! { OutputMaxChars "output.max_chars": Int = "12000",
                bound(MIN_MAX_CHARS as u64, 10_000_000),
                |f, s| s.output.max_chars = f.bounded()? as usize,
                [
                    "Longest tool output, in characters.",
                ],
                node: "maxChars",
            },
            key! { OutputMaxItems "output.max_items": Int = "50",
                bound(1, 100_000),
                |f, s| s.output.max_items = f.bounded()? as usize,
                [
                    "Longest list, in items.",
                ],
                node: "maxItems",
            },
            key! { OutputMaxValueChars "output.max_value_chars": Int = "500",
                bound(1, 10_000_000),
                |f, s| s.output.max_value_chars = f.bounded()? as usize,
                [
                    "Longest single value, in characters.",
                ],
                node: "maxValueChars",
            },
            key! { OutputSchemas "output.schemas": Bool = "false",
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
        keys: &[key! { ChangesMaxPages "changes.max_pages": Int = "10",
            bound(1, 10_000),
            |f, s| s.changes.max_pages = f.bounded()? as u32,
            ["Most branch-log pages lorebase_changes reads back to `since`."],
        }],
    },
    Group {
        doc: &[],
        keys: &[
            key! { KbDir "kb.dir": Text = "null",
                |f, s| s.kb.dir = f.optional_string()?.map(PathBuf::from),
                [
                    "The markdown knowledge-base catalog served by kb_search and kb_get;",
                    "null: no KB tools.",
                ],
                flag: "kb" "The markdown knowledge-base directory (serves kb_search and kb_get)",
                node: "kbDir",
            },
            key! { KbIndexWaitS "kb.index_wait_s": Int = "10",
                bound(0, 3600),
                |f, s| s.kb.index_wait_s = f.bounded()?,
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
            key! { ToolsReadOnly "tools.read_only": Bool = "false",
                |f, s| s.tools.read_only = f.bool()?,
                [
                    "Leave lorebase_execute out (the only tool that can write).",
                ],
                flag: "read-only" "Drop lorebase_execute: serve read tools only",
                node: "readOnly",
            },
            key! { ToolsAllow "tools.allow": List = "null",
                |f, s| s.tools.allow = f.optional_list()?,
                [
                    "Serve only these tools (exact names); null: every tool.",
                ],
                flag: "tools" "Serve only these tools (comma-separated exact names)",
                node: "tools",
            },
            key! { ToolsDeny "tools.deny": List = "[]",
                |f, s| s.tools.deny = f.list()?,
                [
                    "Never serve these tools (exact names).",
                ],
                flag: "exclude-tools" "Never serve these tools (comma-separated exact names)",
                node: "excludeTools",
            },
            key! { ToolsAlwaysLoadContext "tools.always_load_context": Bool = "true",
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
            key! { McpServers "mcp.servers": Servers = "[]",
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
            key! { McpRequireAllowlist "mcp.require_allowlist": Bool = "false",
                |f, s| s.mcp.require_allowlist = f.bool()?,
                [
                    "Refuse to start unless every server declares a tools allowlist.",
                ],
            },
            key! { McpDiscoveryTimeoutS "mcp.discovery_timeout_s": Int = "10",
                bound(1, 600),
                |f, s| s.mcp.discovery_timeout_s = f.bounded()?,
                [
                    "Longest discovery of all servers together at startup, in seconds {bound}.",
                ],
            },
            key! { McpCallTimeoutS "mcp.call_timeout_s": Int = "60",
                bound(1, 3600),
                |f, s| s.mcp.call_timeout_s = f.bounded()?,
                [
                    "Longest remote tool call, in seconds {bound}; the call is then abandoned.",
                ],
            },
            key! { McpRefreshIntervalS "mcp.refresh_interval_s": Int = "0",
                bound(0, 86_400),
                |f, s| s.mcp.refresh_interval_s = f.bounded()?,
                [
                    "Re-discover the remote tools every N seconds (0: at startup and on SIGHUP only).",
                ],
            },
            key! { McpMaxToolsPerServer "mcp.max_tools_per_server": Int = "128",
                bound(1, 10_000),
                |f, s| s.mcp.max_tools_per_server = f.bounded()? as usize,
                [
                    "Most tools one server may add {bound}; the rest are dropped, a warning",
                    "naming them.",
                ],
            },
            key! { McpMaxToolBytesPerServer "mcp.max_tool_bytes_per_server": Int = "262144",
                bound(1024, 16_777_216),
                |f, s| s.mcp.max_tool_bytes_per_server = f.bounded()? as usize,
                [
                    "Most bytes of tool definitions (as tools/list shows them) one server may",
                    "add {bound}; the tools past it are dropped, a warning naming them.",
                ],
            },
            key! { McpMaxAnswerBytes "mcp.max_answer_bytes": Int = "4194304",
                bound(1024, 16_777_216),
                |f, s| s.mcp.max_answer_bytes = f.bounded()? as usize,
                [
                    "Most bytes of one remote tool answer read (the HTTP body, or one SSE",
                    "event) {bound}: past it Herald stops reading and the call is a tool error,",
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
            key! { LogFormat "log.format": Text = "text",
                |f, s| s.log.format = log_format(f)?,
                [
                    "text, or json (one JSON object per line). {flag}.",
                ],
                flag: "log-format" "Log format on stderr: text, or json (one JSON object per line)",
            },
            key! { LogAuditArguments "log.audit_arguments": Bool = "false",
                |f, s| s.log.audit_arguments = f.bool()?,
                [
                    "Add the names of each call's arguments to its audit line (never values).",
                ],
            },
            key! { LogAuditFile "log.audit_file": Text = "null",
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
        keys: &[key! { UiEnabled "ui.enabled": Bool = "true",
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
            key! { MetricsEnabled "metrics.enabled": Bool = "true",
                |f, s| s.metrics.enabled = f.bool()?,
                [],
            },
            key! { MetricsHost "metrics.host": Text = "127.0.0.1",
                |f, s| s.metrics.host = f.nonempty_string()?,
                [
                    "Where a metrics listener of its own binds when port is set.",
                ],
            },
            key! { MetricsPort "metrics.port": Int = "null",
                bound(0, u16::MAX as u64),
                |f, s| s.metrics.port = f.optional_bounded()?.map(|p| p as u16),
                [
                    "A port of its own for /metrics (0 picks a free one, logged at start).",
                    "null: /metrics on the Streamable HTTP listener, and no metrics at all",
                    "over stdio.",
                ],
            },
            key! { MetricsBearerToken "metrics.bearer_token": Secret = "null",
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
            key! { TracesOtlpEndpoint "traces.otlp_endpoint": Text = "null",
                |f, s| s.traces.otlp_endpoint = otlp_endpoint(f)?,
                [
                    "Export spans over OTLP/HTTP (JSON) to this endpoint, such as",
                    "http://127.0.0.1:4318/v1/traces (a URL without a path gets /v1/traces).",
                    "null: no export.",
                ],
            },
            key! { TracesServiceName "traces.service_name": Text = "lorebase-herald",
                |f, s| s.traces.service_name = f.nonempty_string()?,
                [
                    "service.name of the exported spans.",
                ],
            },
        ],
    },
}
