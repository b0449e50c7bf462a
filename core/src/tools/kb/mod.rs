//! The KB tools, `kb_search` and `kb_get`, over a markdown catalog
//! ([`crate::kb`]), shaped as the Lorebase tools are: each tool is one
//! `KbTool` impl (`tool`: its definition, its argument type, whose doc
//! comments are the descriptions a model sees and from which its input
//! schema is derived, and its handler; one module per tool: `search`,
//! `get`), and one row each of the one table (`tools::table::TOOLS`),
//! served when `kb.dir` is set. Their arguments are read
//! leniently (every issue at once, `k` clamped:
//! `tools::args::LenientCount`); unknown arguments are refused by
//! the check every built-in tool shares. `direct`: the tools called without
//! a toolbox; `errors`: the KB's own failures. Their answers are built as
//! JSON by [`crate::render::kb`] (no wire type to derive a schema from), so
//! their output schemas are written here, on each tool.

mod direct;
mod errors;
mod get;
mod search;
mod tool;

pub use direct::{NAMES, call, definitions};
pub use errors::{KB_INDEXING, KB_UNAVAILABLE, not_found, not_ready};
pub use get::{GetArgs, KB_GET};
pub use search::{DEFAULT_K, KB_SEARCH, MAX_K, SearchArgs};
pub(crate) use tool::entry;

pub(crate) use get::KbGet;
pub(crate) use search::KbSearch;
