//! The MCP side: the handler ([`handler`]: tools, resources, prompt,
//! completion) and what it serves: the served tools ([`served_tools`]), the
//! caller's credential ([`credential`]), the resources ([`resources`]), the
//! prompt ([`prompt`]), argument completion ([`completion`]), the
//! instructions ([`instructions`]); [`malformed_params`]: a served method's
//! params of the wrong shape (-32602); [`removed_methods`]: `initialize`
//! and `logging/setLevel` under 2026-07-28 (-32601); [`probe`] and
//! [`bounds`]: what one JSON-RPC message may hold, on either transport;
//! [`stdio`]: the stdio transport (bounded lines, a host that closes stdout);
//! [`views`]: the MCP Apps views, for the clients that declare the extension.

pub(crate) mod bounds;
pub(crate) mod completion;
pub mod credential;
pub(crate) mod domain_hints;
pub(crate) mod handler;
pub(crate) mod instructions;
pub(crate) mod malformed_params;
pub(crate) mod probe;
pub(crate) mod prompt;
pub(crate) mod removed_methods;
pub(crate) mod resources;
pub mod served_tools;
pub(crate) mod skills;
pub(crate) mod stdio;
#[cfg(test)]
mod tool_mentions;
pub(crate) mod views;
pub(crate) mod workflow;
