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
mod resource;
mod revisions;
pub(crate) mod source;
mod tool;

pub use resource::ResourceRead;
pub(crate) use source::LorebaseTools;

use agent::{LorebaseContext, LorebaseExecute};
use provenance::{LorebaseExplain, LorebaseHistory, LorebaseLineage};
use reads::{
    LorebaseGet, LorebaseNeighborhood, LorebaseQuery, LorebaseResolve, LorebaseSchema,
    LorebaseSearch,
};
use revisions::{LorebaseBranches, LorebaseChanges, LorebaseDiff};
use tool::{ToolEntry, entry};

/// The groups, as `X-MCP-Toolsets` names them, one per module: the reads
/// (`lorebase_schema`, `lorebase_get`, `lorebase_resolve`, `lorebase_query`,
/// `lorebase_search`, `lorebase_neighborhood`).
pub(crate) const READS: &str = "reads";
/// `lorebase_explain`, `lorebase_history`, `lorebase_lineage`.
pub(crate) const PROVENANCE: &str = "provenance";
/// `lorebase_changes`, `lorebase_diff`, `lorebase_branches`.
pub(crate) const REVISIONS: &str = "revisions";
/// `lorebase_context`, `lorebase_execute`.
pub(crate) const AGENT: &str = "agent";
/// Every group of the Lorebase tools.
pub(crate) const GROUPS: [&str; 4] = [READS, PROVENANCE, REVISIONS, AGENT];

/// The tool hosts that defer MCP tools behind a search are asked to keep
/// loaded (`tools.always_load_context`): the start of every task.
pub(crate) const ALWAYS_LOADED: &str = "lorebase_context";

/// The tools, in the order models see them.
pub(crate) static TOOLS: [ToolEntry; 14] = [
    entry::<LorebaseContext>(AGENT),
    entry::<LorebaseSchema>(READS),
    entry::<LorebaseGet>(READS),
    entry::<LorebaseResolve>(READS),
    entry::<LorebaseQuery>(READS),
    entry::<LorebaseSearch>(READS),
    entry::<LorebaseNeighborhood>(READS),
    entry::<LorebaseExplain>(PROVENANCE),
    entry::<LorebaseHistory>(PROVENANCE),
    entry::<LorebaseLineage>(PROVENANCE),
    entry::<LorebaseChanges>(REVISIONS),
    entry::<LorebaseDiff>(REVISIONS),
    entry::<LorebaseExecute>(AGENT),
    entry::<LorebaseBranches>(REVISIONS),
];
