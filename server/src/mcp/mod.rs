//! The MCP side: the handler ([`handler`]: tools, resources, prompt,
//! completion) and what it serves: the built-in tools' MCP forms ([`tool_forms`]), the
//! caller's credential ([`credential`]), the resources ([`resources`]), the
//! prompt ([`prompt`]), argument completion ([`completion`]), the
//! instructions ([`instructions`]); [`malformed_params`]: a served method's
//! params of the wrong shape (-32602); [`removed_methods`]: `initialize`
//! and `logging/setLevel` under 2026-07-28 (-32601); [`probe`]: what one
//! JSON-RPC message may hold, on either transport, and [`refused`]: the
//! answer to one past those bounds;
//! [`stdio`]: the stdio transport (bounded lines, a host that closes stdout);
//! [`call_tracking`]: where a call is kept for a cancellation sent apart;
//! [`views`]: the MCP Apps views, for the clients that declare the extension.

pub(crate) mod call_tracking;
pub(crate) mod completion;
pub mod credential;
pub(crate) mod domain_hints;
pub(crate) mod handler;
pub(crate) mod instructions;
pub(crate) mod malformed_params;
pub(crate) mod probe;
pub(crate) mod prompt;
pub(crate) mod refused;
pub(crate) mod removed_methods;
pub(crate) mod resources;
pub(crate) mod skills;
pub(crate) mod stdio;
pub mod tool_forms;
#[cfg(test)]
mod tool_mentions;
pub(crate) mod views;
pub(crate) mod workflow;
