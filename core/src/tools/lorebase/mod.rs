//! The 14 Lorebase tools, served from Keeper: one module per group (reads,
//! provenance, revisions, agent), each tool one `LorebaseTool` impl (its
//! definition, argument and answer types, handler and text rendering, in
//! `tool`), and `TOOLS`, the list models see them in.
//!
//! Adding a tool: an impl in its group's module, its renderer in
//! `render/<group>.rs`, and one `entry` in `TOOLS` (see
//! `docs/architecture.md`, "Adding a tool").

mod agent;
mod provenance;
mod reads;
mod revisions;
mod source;
mod tool;

pub(crate) use source::LorebaseTools;

use agent::{LorebaseContext, LorebaseExecute};
use provenance::{LorebaseExplain, LorebaseHistory, LorebaseLineage};
use reads::{
    LorebaseGet, LorebaseNeighborhood, LorebaseQuery, LorebaseResolve, LorebaseSchema,
    LorebaseSearch,
};
use revisions::{LorebaseBranches, LorebaseChanges, LorebaseDiff};
use tool::{ToolEntry, entry};

/// The tools, in the order models see them.
pub(crate) static TOOLS: [ToolEntry; 14] = [
    entry::<LorebaseContext>(),
    entry::<LorebaseSchema>(),
    entry::<LorebaseGet>(),
    entry::<LorebaseResolve>(),
    entry::<LorebaseQuery>(),
    entry::<LorebaseSearch>(),
    entry::<LorebaseNeighborhood>(),
    entry::<LorebaseExplain>(),
    entry::<LorebaseHistory>(),
    entry::<LorebaseLineage>(),
    entry::<LorebaseChanges>(),
    entry::<LorebaseDiff>(),
    entry::<LorebaseExecute>(),
    entry::<LorebaseBranches>(),
];
