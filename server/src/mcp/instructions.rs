//! What `initialize` (and `server/discover`) tells the host about Herald:
//! the server instructions. Hosts that defer MCP tools behind a search show
//! the model these and the tool names, nothing else, until it loads a tool
//! (Claude Code shows them whole; Codex's code mode only their first ~250
//! characters; docs/hosts.md). So they open with what Herald is, where a
//! task starts and which tool writes; then map kinds of task to tools; then
//! say once what every tool's shared arguments mean (the tools' schemas
//! carry only their short form).

use crate::mcp::workflow::{WORKFLOW, Workflow};

/// What the shortest cut hosts make of the instructions keeps (Codex 0.171's
/// code mode: the first line, cut at 247 characters).
#[cfg(test)]
const OPENING_CHARS: usize = 247;

/// The first line, the workflow's core for hosts that show the model only
/// that line (Codex's code mode): what Herald is, the start, the one write
/// and how it commits. One line within `OPENING_CHARS` (checked by the tests).
fn opening(w: &Workflow<'_>) -> String {
    format!("{} {}", w.opening_read, w.opening_write)
}

/// The tool map: kinds of task, and the tool for each.
pub(crate) fn task_lines<'a>(w: &'a Workflow<'a>) -> impl Iterator<Item = String> + 'a {
    w.tasks
        .iter()
        .map(|t| format!("- {}: {}{}", t.what, t.tool, t.more))
}

/// The instructions for what this Herald serves.
pub(crate) fn instructions(lorebase: bool, kb: bool, remote: bool) -> String {
    instructions_from(&WORKFLOW, lorebase, kb, remote)
}

/// The instructions built from the workflow `w`.
pub(crate) fn instructions_from(
    w: &Workflow<'_>,
    lorebase: bool,
    kb: bool,
    remote: bool,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if lorebase {
        parts.push(opening(w));
        parts.push(
            std::iter::once(w.tasks_heading.to_string())
                .chain(task_lines(w))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        parts.push(w.shared.into());
        if kb {
            parts.push(w.kb.into());
        }
        parts.push(w.guide_pointer.into());
    } else {
        parts.push(w.kb_only.into());
    }
    if remote {
        parts.push(w.remote.into());
    }
    parts.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opening_fits_the_shortest_cut_and_names_the_start_and_the_write() {
        let text = instructions(true, true, true);
        let first = text.lines().next().unwrap();
        assert_eq!(first, opening(&WORKFLOW));
        assert!(first.chars().count() <= OPENING_CHARS);
        for needed in [
            "Lorebase",
            "Start every task with lorebase_context",
            "lorebase_execute is the only write",
            "dry run first",
            "dry_run: false",
            "expected_head",
        ] {
            assert!(first.contains(needed), "{needed} not in {first:?}");
        }
        let kb_only = instructions(false, true, false);
        assert!(
            kb_only
                .chars()
                .take(160)
                .collect::<String>()
                .contains("kb_get")
        );
    }
}
