//! Tool names written as strings in prose: every one names a tool of the
//! table. The workflow's sections (the instructions' task map, the prompt,
//! the skills: [`crate::mcp::workflow::WORKFLOW`]) and the skills' worked
//! examples ([`crate::mcp::skills::EXAMPLES`]) would otherwise keep a
//! renamed or removed tool's name silently. (Which Domain words a tool's
//! search hint carries, and its own line of the task map, are facts of the
//! tool in core's table, not names in text.)

use std::collections::BTreeSet;

use herald_core::config::Settings;
use herald_core::tools::Toolbox;

use crate::mcp::prompt::GUIDE_NAME;
use crate::mcp::skills::EXAMPLES;
use crate::mcp::workflow::{WORKFLOW, Workflow};

/// Every tool the table holds, the KB tools included.
fn table() -> BTreeSet<String> {
    let catalog = tempfile::tempdir().unwrap();
    std::fs::write(
        catalog.path().join("entry.md"),
        "---\ntitle: A\n---\nbody\n",
    )
    .unwrap();
    let mut settings = Settings::default();
    settings.kb.dir = Some(catalog.path().to_path_buf());
    let tools = Toolbox::new(settings).unwrap().definitions();
    tools.into_iter().map(|d| d.name).collect()
}

/// The words of `text` shaped like a tool's name (`lorebase_get`, `kb_get`;
/// not the wildcard `lorebase_*`).
fn tool_shaped(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            ["lorebase_", "kb_"]
                .iter()
                .any(|p| w.len() > p.len() && w.starts_with(p))
        })
        .collect()
}

/// Every section of `w`; the pattern names every field, so a new section
/// cannot escape the check.
fn sections<'a>(w: &Workflow<'a>) -> Vec<&'a str> {
    let Workflow {
        opening_read,
        opening_write,
        tasks_heading,
        tasks,
        shared,
        kb,
        kb_only,
        remote,
        guide_pointer,
        guide_domain,
        guide_no_domain,
        guide_task,
        steps_heading,
        context_step,
        read_step,
        write_step,
        errors_read,
        errors_write,
        format,
        skill_description,
        skill_title,
        skill_references,
        kb_skill_description,
        kb_skill_body,
    } = *w;
    let mut all = vec![
        opening_read,
        opening_write,
        tasks_heading,
        shared,
        kb,
        kb_only,
        remote,
        guide_pointer,
        guide_domain,
        guide_no_domain,
        guide_task,
        steps_heading,
        context_step,
        read_step,
        write_step,
        errors_read,
        errors_write,
        format,
        skill_description,
        skill_title,
        skill_references,
        kb_skill_description,
        kb_skill_body,
    ];
    all.extend(tasks.iter().flat_map(|t| [t.what, t.tool, t.more]));
    all
}

#[test]
fn the_workflow_names_only_tools_of_the_table() {
    let table = table();
    let mut named = BTreeSet::new();
    for text in sections(&WORKFLOW) {
        named.extend(tool_shaped(text).into_iter().filter(|w| *w != GUIDE_NAME));
    }
    // Every line of the task map names a tool; all of them together name
    // every Lorebase tool.
    for task in WORKFLOW.tasks {
        assert!(table.contains(task.tool), "task map: {:?}", task.tool);
    }
    let unknown: Vec<_> = named.iter().filter(|n| !table.contains(**n)).collect();
    assert!(
        unknown.is_empty(),
        "the workflow names tools the table lacks: {unknown:?}"
    );
    let lorebase = table.iter().filter(|t| t.starts_with("lorebase_"));
    let missing: Vec<_> = lorebase.filter(|t| !named.contains(t.as_str())).collect();
    assert!(missing.is_empty(), "the workflow never names: {missing:?}");
}

#[test]
fn the_skills_examples_are_served_with_tools_of_the_table() {
    let table = table();
    for (tools, text) in EXAMPLES {
        for tool in tools {
            assert!(table.contains(*tool), "an example is served with {tool}");
        }
        let unknown: Vec<_> = tool_shaped(text)
            .into_iter()
            .filter(|w| !table.contains(*w))
            .collect();
        assert!(unknown.is_empty(), "an example names {unknown:?}");
    }
}
