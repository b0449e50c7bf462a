//! The 14 Lorebase tools, served from Keeper: one module per group (reads,
//! provenance, revisions, agent), each tool one `LorebaseTool` impl (its
//! definition, argument and answer types, handler and text rendering, and
//! its facts: `tool`), and one row each of the one table
//! (`tools::table::TOOLS`, the order models see them in).
//!
//! Adding a tool: an impl in its group's module, its renderer in
//! `render/<group>.rs`, and one `entry` in `TOOLS` (see
//! `docs/architecture.md`, "Adding a tool").

mod agent;
mod provenance;
mod reads;
mod resource;
mod revisions;
mod tool;

pub(crate) use agent::{LorebaseContext, LorebaseExecute};
pub(crate) use provenance::{LorebaseExplain, LorebaseHistory, LorebaseLineage};
pub(crate) use reads::{
    LorebaseGet, LorebaseNeighborhood, LorebaseQuery, LorebaseResolve, LorebaseSchema,
    LorebaseSearch,
};
pub use resource::ResourceRead;
pub(crate) use revisions::{LorebaseBranches, LorebaseChanges, LorebaseDiff};
pub(crate) use tool::entry;
