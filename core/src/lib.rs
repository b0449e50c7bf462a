//! Lorebase Herald's core: everything the MCP server, the Node addon, the Python
//! module and the C API share.
//!
//! The modules, from the bottom up (a module uses only those above it in
//! this list; `scripts/module-cycles.py` checks both that and that no files
//! import each other in a circle):
//!
//! - [`regular_file`]: reading a file Herald is told to read: a regular one
//!   only, opened without blocking, bounded before it is read.
//! - [`yaml`]: YAML read within bounds: nesting checked while parsing,
//!   duplicate keys refused.
//! - [`tool_interface`]: what every front end sees of any one tool:
//!   [`tool_interface::ToolDefinition`], [`tool_interface::RenderedOutput`],
//!   the caller's errors and their codes, the parser of a call's arguments.
//! - [`config`]: the layered settings (YAML file, `LOREBASE__HERALD__...`
//!   variables, short variables, flags or binding options) and secrets.
//! - [`runtime`]: the Tokio runtime every front end builds.
//! - [`telemetry`]: trace context and request ids, the scope of a call,
//!   metrics, the audit line, the spans to export.
//! - [`keeper`]: the typed client of Keeper's REST contract, its wire types
//!   ([`keeper::model`]) and its errors, with retries and per-call credentials.
//! - [`otlp`]: the export of spans over OTLP/HTTP (JSON).
//! - [`kb`]: the knowledge-base catalog (markdown entries on tantivy).
//! - [`render`]: the text and JSON renderings of the answers, with the
//!   output caps.
//! - [`error`]: how a tool failure is shown to a model: `[code] message`, its
//!   issues and a `next:` line (cut by the output caps of [`render`]).
//! - [`remote`]: remote MCP servers (`mcp.servers`): discovery and calls,
//!   their outputs under the caps.
//! - [`tools`]: the tools Herald serves: the one table of the built-in ones
//!   (Lorebase, KB), the remote servers' beside them, and the
//!   [`tools::Toolbox`] every front end serves them through.

// `regular_file`, `yaml` and `otlp` serve core alone and are private; the
// list above names them too, for `cargo doc --document-private-items` and
// whoever reads the source.
#![allow(rustdoc::private_intra_doc_links)]

pub mod config;
pub mod error;
pub mod kb;
pub mod keeper;
mod otlp;
mod regular_file;
pub mod remote;
pub mod render;
pub mod runtime;
pub mod telemetry;
pub mod tool_interface;
pub mod tools;
mod yaml;
