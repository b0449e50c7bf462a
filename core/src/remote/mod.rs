//! Remote MCP servers whose tools join Herald's own (`mcp.servers`), on
//! rmcp's Streamable HTTP client.
//!
//! - Discovery ([`RemoteTools::discover`]) asks every server at once, each
//!   bounded by `mcp.discovery_timeout_s`, with a couple of retries on
//!   transient errors (refused connection, timeout, HTTP 429/502/503/504). A
//!   server that cannot be reached or answers badly is logged and skipped: it
//!   never blocks Herald or the other servers, and joins on a later
//!   discovery (SIGHUP or `mcp.refresh_interval_s` in the server).
//! - Each tool is served as `<server>__<tool>` with its description marked
//!   as external, cleaned and bounded ([`discovery`]); `tools` is an
//!   exact-name allowlist applied here; `tools/list` pages are followed for
//!   at most [`MAX_LIST_PAGES`].
//! - A call ([`RemoteTools::call`]) is sent once: never retried, whatever
//!   the failure (a remote tool is not assumed idempotent). Its output is
//!   untrusted data under Herald's output caps; any failure is a tool error.
//! - A call's answer is read within `mcp.max_answer_bytes` ([`bounded_http`],
//!   the HTTP client under rmcp's transport): past it, it is not read on and
//!   the call is a tool error, a warning naming the server.
//! - Everything a remote server sends (results, structured content, errors,
//!   tool definitions) goes through one cleaning pass ([`clean`]: hidden and
//!   control characters stripped, credential shapes, the configured tokens
//!   and fence markers cut, look-alike and split forms included) and is
//!   shown to a model fenced in `<untrusted_remote_output id="…">` with a
//!   random id per answer.
//! - The bearer token (`token_env`) is checked by the settings (never over
//!   plain `http://` to a public host, see [`crate::config::host`]), is never logged or
//!   shown in an error, and is dropped on a redirect to another host.
//! - A server with `credential: exchange` is called with the caller's OAuth
//!   token exchanged for its audience ([`caller`]), on a session of the
//!   call's own, never with Herald's token (used, when set, for discovery).
//!   Who is served which server's tools is `crate::tools::ToolView`'s rule.

mod bounded_http;
mod call;
pub mod caller;
pub mod clean;
mod client;
mod discovery;
mod output;
mod servers;
mod status;

pub use self::caller::{CallerExchange, ExchangeFailure, OAuthCaller};
pub use self::discovery::{
    MAX_DESCRIPTION_CHARS, MAX_INPUT_SCHEMA_BYTES, MAX_LIST_PAGES, MAX_TITLE_CHARS,
    MAX_TOOL_NAME_CHARS, NAME_SEPARATOR, RemoteTool,
};
pub use self::servers::{CLOSE_TIMEOUT, RemoteTools};
pub use self::status::{RemoteError, ServerStatus, ServerSummary};
