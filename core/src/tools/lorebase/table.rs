//! `TOOLS`, the Lorebase tools in the order models see them, each with its
//! group; and the groups, as `X-MCP-Toolsets` names them.

use super::agent::{LorebaseContext, LorebaseExecute};
use super::provenance::{LorebaseExplain, LorebaseHistory, LorebaseLineage};
use super::reads::{
    LorebaseGet, LorebaseNeighborhood, LorebaseQuery, LorebaseResolve, LorebaseSchema,
    LorebaseSearch,
};
use super::revisions::{LorebaseBranches, LorebaseChanges, LorebaseDiff};
use super::tool::{ToolEntry, entry};

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

/// The Keeper routes the Lorebase tool `name` may call (`POST /query`), in
/// order; `None` for a name that is not a Lorebase tool.
pub fn keeper_routes(name: &str) -> Option<&'static [&'static str]> {
    TOOLS.iter().find(|t| t.name == name).map(|t| t.keeper)
}
