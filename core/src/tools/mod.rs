//! The tools every front end serves (the MCP server, the Node addon, the
//! Python module, the C ABI), through one [`Toolbox`].
//!
//! A toolbox asks three [`source::ToolSource`]s, in order: the 14 Lorebase
//! tools ([`lorebase`], one module per group, a tool being one impl with its
//! definition, argument and answer types and handler), the KB tools ([`kb`],
//! when `kb.dir` is set, shaped the same way), and the tools of remote MCP servers (`mcp.servers`,
//! [`crate::remote`], after discovery, as `<server>__<tool>`; a built-in tool
//! wins a name collision). The tool selection ([`selection`]) narrows all
//! three the same way.
//!
//! - `args`: the argument types whose bounds are declared once, the
//!   `[validation-failed]` errors that name an argument, and the one check
//!   of argument names every built-in tool goes through;
//! - `schema`: the input and output schemas derived from the Rust types.
//!
//! What the tools take and answer is documented in `docs/tools.md`; how to
//! add one, in `docs/architecture.md`.

mod args;
pub mod kb;
mod lorebase;
mod observe;
mod remote;
mod schema;
pub mod search_hint;
mod selection;
mod source;
mod toolbox;
mod view;

pub use crate::tool::{RenderedOutput, ToolAnnotations, ToolCallError, ToolDefinition};
pub use lorebase::{ResourceRead, keeper_routes};
pub use selection::{KB_GROUP, REMOTE_GROUP, ToolNarrowing};
pub use source::ToolOrigin;
pub use toolbox::{Toolbox, ToolboxError};
pub use view::{Access, Audience, ToolView};
