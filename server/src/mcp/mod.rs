//! The MCP side: the handler ([`handler`]: tools, resources, prompt,
//! completion) and what it serves: the served tools ([`served_tools`]), the
//! caller's credential ([`credential`]), the resources ([`resources`]), the
//! prompt ([`prompt`]), argument completion ([`completion`]), the
//! instructions ([`instructions`]); [`malformed_params`]: a served method's
//! params of the wrong shape (-32602).

pub(crate) mod completion;
pub mod credential;
pub(crate) mod domain_hints;
pub(crate) mod handler;
pub(crate) mod instructions;
pub(crate) mod malformed_params;
pub(crate) mod prompt;
pub(crate) mod resources;
pub mod served_tools;
