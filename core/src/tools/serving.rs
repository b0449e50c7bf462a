//! Who a request is ([`Audience`]) and whether a tool is served to it
//! ([`Serving`]): the rules of the one answer to "is this tool served to
//! this caller?", which a `ToolView` (`tools::toolbox`) gives for listing
//! and for calling, in every front end.
//!
//! A `ToolView` puts together, in this order:
//! - the tool selection of the settings (`tools.read_only`, `tools.allow`,
//!   `tools.deny`: [`super::selection`]);
//! - a built-in tool winning a name collision with a remote one;
//! - who asks ([`Audience`]) and whose credential the calls of a remote
//!   server carry (`mcp.servers[].credential`, [`RemoteGrant`]):
//!   - one agent (stdio, in-process) is served every remote server's tools
//!     but those of `credential: exchange` servers (it has no token to
//!     exchange);
//!   - the callers of a shared Herald with Lorebase API keys are not served
//!     the tools of a server called with Herald's own token
//!     (`token_env`), since Herald cannot check a caller's key itself and
//!     anyone reaching it would borrow that token; nor those of exchange
//!     servers (no OAuth token);
//!   - an OAuth caller is served a remote server's tools when its token
//!     holds the server's scope ([`McpServerSettings::required_scope`]: for
//!     a server called with Herald's own token, `scope` or
//!     `herald:remote:<name>` by default, so that no one borrows Herald's
//!     token unless an operator granted it). Without it, the tools are not
//!     listed and a call is `[forbidden]`;
//! - the request's narrowing ([`ToolNarrowing`](super::ToolNarrowing): `X-MCP-Readonly`,
//!   `X-MCP-Toolsets`, `X-MCP-Tools`), which only narrows.
//!
//! The `Toolbox`'s own lists and calls (`definitions`, `call`,
//! `call_from`, the check of `tools.allow`) are those of one agent's view.

use crate::config::{McpServerSettings, RemoteCredential, RemoteGrant};
use crate::error::ToolError;
use crate::keeper::model::ProblemCode;
use crate::remote::OAuthCaller;

/// Who a view is for.
#[derive(Debug, Clone, Copy)]
pub enum Audience<'a> {
    /// One agent: stdio, the `call` command, the bindings in-process. Every
    /// selected tool is served, the remote servers' whatever their token
    /// (but `credential: exchange` servers').
    OneAgent,
    /// The callers of a shared Herald over Streamable HTTP, each with its own
    /// Lorebase API key: the tools of remote servers called with Herald's own
    /// token are hidden.
    SharedHttp,
    /// One caller of a shared Herald with OAuth on, and what its token holds.
    OAuth(&'a OAuthCaller),
}

/// Whether a tool is served to one caller, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serving {
    /// Listed and callable.
    Served,
    /// Not a tool of this caller (an unknown name, one the selection or the
    /// narrowing leaves out): not listed, and a call is an unknown tool.
    NotServed,
    /// A remote tool this caller's token lacks the grant for (the scope
    /// named): not listed, and a call is a `[forbidden]` tool error.
    Forbidden {
        /// The remote server.
        server: String,
        /// The scope the caller's token lacks.
        scope: String,
    },
}

/// Whether the tools of the remote server `server` are served to
/// `audience` (see the module documentation).
pub(crate) fn remote_serving(audience: Audience<'_>, server: &McpServerSettings) -> Serving {
    let exchange = matches!(server.grant.credential, RemoteCredential::Exchange { .. });
    match audience {
        Audience::OneAgent if exchange => Serving::NotServed,
        Audience::OneAgent => Serving::Served,
        Audience::SharedHttp if exchange || server.uses_heralds_token() => Serving::NotServed,
        Audience::SharedHttp => Serving::Served,
        Audience::OAuth(caller) => match server.required_scope() {
            Some(scope) if !caller.holds(&scope) => Serving::Forbidden {
                server: server.name.clone(),
                scope,
            },
            _ => Serving::Served,
        },
    }
}

/// The `[forbidden]` error of a remote tool whose server's scope the
/// caller's token lacks.
pub(crate) fn forbidden(name: &str, server: &str, scope: &str) -> ToolError {
    let default = scope.starts_with(RemoteGrant::DEFAULT_SCOPE_PREFIX);
    let how = if default {
        "the remote server is called with Herald's own credential, granted per server"
    } else {
        "the operator grants this server's tools by scope"
    };
    ToolError {
        next: Some(format!(
            "do not retry: ask an administrator for the scope {scope} (then sign in again), or use another tool"
        )),
        ..ToolError::new(
            ProblemCode::Forbidden,
            format!(
                "the tool {name} of the remote server {server:?} needs the scope {scope}, which your token lacks ({how})"
            ),
        )
    }
}
