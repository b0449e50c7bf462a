//! The 14 Lorebase tools, served from Keeper: one module per group (reads,
//! provenance, revisions, agent), each tool one `LorebaseTool` impl (its
//! definition, argument and answer types, handler and text rendering, in
//! `tool`), and `TOOLS` (`table`), the list models see them in.
//!
//! Adding a tool: an impl in its group's module, its renderer in
//! `render/<group>.rs`, and one `entry` in `TOOLS` (see
//! `docs/architecture.md`, "Adding a tool").

mod agent;
mod provenance;
mod reads;
mod resource;
mod revisions;
pub(crate) mod source;
mod table;
mod tool;

pub use resource::ResourceRead;
pub(crate) use source::LorebaseTools;
pub use table::keeper_routes;
pub(crate) use table::{GROUPS, TOOLS};
