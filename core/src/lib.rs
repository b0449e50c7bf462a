//! Lorebase Herald's core: everything the MCP server, the Node addon, the Python
//! module and the C API share.
//!
//! - [`config`]: the layered settings (YAML file, `LOREBASE__HERALD__...`
//!   variables, short variables, flags or binding options) and secrets.
//! - [`keeper`]: the typed client of Keeper's REST contract and its wire types
//!   ([`keeper::model`]), with retries and per-call credentials.
//! - [`error`]: the typed errors, and how a failure becomes `[code] message`,
//!   its issues and a `next:` line.
//! - [`tools`]: the table of tools (definitions plus one handler each) and the
//!   [`tools::Toolbox`] that serves them.
//! - [`render`]: the text and JSON renderings of Keeper's answers, with the
//!   output caps.
//! - [`kb`]: the knowledge-base catalog (markdown entries on tantivy).
//! - [`remote`]: remote MCP servers whose tools join the toolbox (`mcp.servers`).

pub mod config;
pub mod error;
pub mod kb;
pub mod keeper;
pub mod remote;
pub mod render;
pub mod tools;
