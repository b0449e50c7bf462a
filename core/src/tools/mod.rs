//! The tools every front end serves (the MCP server, the Node addon, the
//! Python module, the C ABI), through one [`Toolbox`].
//!
//! Every built-in tool has one shape ([`entry`]: its facts, its definition,
//! its handler) and one row of one table ([`table`]): the 14 Lorebase tools
//! ([`lorebase`], one module per group, a tool being one impl with its
//! definition, argument and answer types, handler and facts) and the KB
//! tools ([`kb`], served when `kb.dir` is set, shaped the same way). A
//! toolbox asks two [`source::ToolSource`]s, in order: the table
//! ([`built_in`]) and the tools of remote MCP servers (`mcp.servers`,
//! [`crate::remote`], after discovery, as `<server>__<tool>`; a built-in
//! tool wins a name collision). The tool selection ([`selection`]) narrows
//! all of them the same way, and a [`ToolView`] answers whether a tool is
//! served to one caller.
//!
//! - `args`: the argument types whose bounds are declared once, the
//!   `[validation-failed]` errors that name an argument, and the one check
//!   of argument names every built-in tool goes through;
//! - `schema`: the input and output schemas derived from the Rust types;
//! - `call_telemetry`: what a toolbox records of each call.
//!
//! What the tools take and answer is documented in `docs/tools.md`; how to
//! add one, in `docs/architecture.md`.

mod args;
mod built_in;
mod call_telemetry;
mod entry;
pub mod kb;
mod lorebase;
mod remote;
mod schema;
pub mod search_hint;
mod selection;
mod serving;
mod source;
mod table;
mod toolbox;

pub use crate::tool_interface::{RenderedOutput, ToolAnnotations, ToolCallError, ToolDefinition};
pub use entry::TaskMention;
pub use lorebase::ResourceRead;
pub use selection::{KB_GROUP, REMOTE_GROUP, ToolNarrowing};
pub use serving::{Audience, Serving};
pub use source::ToolOrigin;
pub use table::{domain_words_of, keeper_routes, task_map};
pub use toolbox::{ToolView, Toolbox, ToolboxError};
