//! `TOOLS`, the one table of the built-in tools, in the order models see
//! them: the Lorebase tools, each with its group, then the KB tools; the
//! groups, as `X-MCP-Toolsets` names them; and what is read off the table
//! by name (the Keeper routes, the Domain words a hint carries, the task map).

use super::entry::{TaskMention, ToolEntry};
use super::kb::{KbGet, KbSearch, entry as kb_entry};
use super::lorebase::{
    LorebaseBranches, LorebaseChanges, LorebaseContext, LorebaseDiff, LorebaseExecute,
    LorebaseExplain, LorebaseGet, LorebaseHistory, LorebaseLineage, LorebaseNeighborhood,
    LorebaseQuery, LorebaseResolve, LorebaseSchema, LorebaseSearch, entry,
};
use super::search_hint::DomainWord;
use super::source::ToolOrigin;

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

/// The built-in tools, in the order models see them.
pub(crate) static TOOLS: [ToolEntry; 16] = [
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
    kb_entry::<KbSearch>(),
    kb_entry::<KbGet>(),
];

/// The row of the built-in tool `name`.
pub(crate) fn row(name: &str) -> Option<(usize, &'static ToolEntry)> {
    TOOLS.iter().enumerate().find(|(_, t)| t.name == name)
}

/// The Keeper routes the Lorebase tool `name` may call (`POST /query`), in
/// order; `None` for a name that is not a Lorebase tool.
pub fn keeper_routes(name: &str) -> Option<&'static [&'static str]> {
    row(name)
        .filter(|(_, t)| t.origin == ToolOrigin::Lorebase)
        .map(|(_, t)| t.keeper)
}

/// The kinds of the Domain's words the search hint of `name` carries (none
/// for a tool that is not built in).
pub fn domain_words_of(name: &str) -> &'static [DomainWord] {
    row(name).map_or(&[], |(_, t)| t.domain_words)
}

/// The task map of the server instructions: each built-in tool that has a
/// line, with its line; the tools that read in table order, then the ones
/// that write.
pub fn task_map() -> Vec<(&'static str, TaskMention)> {
    let lines = |writes: bool| {
        TOOLS
            .iter()
            .filter(move |t| t.writes == writes)
            .filter_map(|t| Some((t.name, t.task?)))
    };
    lines(false).chain(lines(true)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::kb;
    use crate::tools::search_hint::DomainWords;

    #[test]
    fn the_kb_names_are_the_kb_rows_of_the_table() {
        let rows: Vec<&str> = TOOLS
            .iter()
            .filter(|t| t.origin == ToolOrigin::Kb)
            .map(|t| t.name)
            .collect();
        assert_eq!(rows, kb::NAMES);
    }

    #[test]
    fn every_kind_of_domain_word_reaches_a_tool_and_only_lorebase_tools_carry_them() {
        for kind in DomainWord::ALL {
            assert!(
                TOOLS.iter().any(|t| t.domain_words.contains(&kind)),
                "no tool's hint carries {kind:?}"
            );
        }
        for t in &TOOLS {
            if t.origin != ToolOrigin::Lorebase {
                assert!(t.domain_words.is_empty(), "{}", t.name);
            }
        }
        // A tool's words are what its row says, read by name.
        let words = DomainWords::for_test(&["Supplier"]);
        for t in &TOOLS {
            let hint = words.hint(domain_words_of(t.name), "base");
            assert_eq!(
                hint == "base",
                t.domain_words.is_empty(),
                "{}: {hint}",
                t.name
            );
        }
    }

    #[test]
    fn the_task_map_names_every_lorebase_tool_once_as_its_first_tool() {
        let map = task_map();
        let names: Vec<&str> = map.iter().map(|(name, _)| *name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert_eq!(names.last(), Some(&"lorebase_execute"));
        for t in TOOLS.iter().filter(|t| t.origin == ToolOrigin::Lorebase) {
            let in_line = map
                .iter()
                .any(|(name, m)| *name == t.name || m.more.contains(t.name));
            assert!(in_line, "the task map never names {}", t.name);
        }
    }
}
