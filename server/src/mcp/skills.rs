//! The skills Herald serves (the MCP Skills extension,
//! `io.modelcontextprotocol/skills`): `lorebase`, the workflow of
//! [`crate::mcp::workflow`] with reference files a model reads when a task
//! needs them (the query DSL, the error codes, worked examples), and `kb`
//! when the knowledge base is served. A host lists them (`skills/list`),
//! shows its model each one's name and description, and reads the files
//! (`resources/read` of `skill://…`) when the model loads one.
//!
//! Skills follow the tools' visibility: they are built for the view of one
//! request (its selection, `X-MCP-Readonly`, `X-MCP-Toolsets`), so a reader
//! not served `lorebase_execute` is taught no write, and a skill or file
//! whose tools are all hidden is not served. The files are made in memory:
//! their digests and sizes are those of the bytes `resources/read` returns.

use herald_core::config::OutputSettings;
use herald_core::error::ToolError;
use herald_core::keeper::model::ProblemCode;
use rmcp::ErrorData as McpError;
use rmcp::model::{
    GetSkillResult, ListSkillsResult, ReadResourceResult, ResourceContents, Skill,
    SkillFrontmatter, SkillResource, SkillResources,
};

use crate::mcp::instructions::task_lines;
use crate::mcp::workflow::{WORKFLOW, Workflow};

/// The MIME type of every skill file.
const MARKDOWN: &str = "text/markdown";

/// The `lorebase` skill's name.
pub(crate) const LOREBASE: &str = "lorebase";

/// The `kb` skill's name.
pub(crate) const KB: &str = "kb";

/// The query DSL reference (`references/query-dsl.md`).
const QUERY_DSL: &str = include_str!("skills/query-dsl.md");

/// The worked examples (`references/examples.md`), each served when its
/// tools are: the tools named, then the text.
pub(crate) const EXAMPLES: [(&[&str], &str); 3] = [
    (
        &["lorebase_resolve", "lorebase_query"],
        include_str!("skills/example-words-to-counts.md"),
    ),
    (
        &["lorebase_history", "lorebase_lineage"],
        include_str!("skills/example-history-lineage.md"),
    ),
    (
        &["lorebase_execute"],
        include_str!("skills/example-write.md"),
    ),
];

/// What one request is served, as the skills need it.
pub(crate) struct Reader<'a> {
    /// Any Lorebase tool is served.
    pub lorebase: bool,
    /// Any knowledge-base tool is served.
    pub kb: bool,
    /// Whether the tool named is served.
    pub serves: &'a dyn Fn(&str) -> bool,
}

/// One file of a skill.
struct SkillFile {
    uri: String,
    text: String,
}

/// The skills served to one request, and their files.
pub(crate) struct ServedSkills {
    skills: Vec<Skill>,
    files: Vec<SkillFile>,
}

impl ServedSkills {
    /// The skills for `reader`, built from [`WORKFLOW`].
    pub(crate) fn new(reader: &Reader<'_>) -> Self {
        Self::from_workflow(&WORKFLOW, reader)
    }

    /// The skills for `reader`, built from the workflow `w`.
    pub(crate) fn from_workflow(w: &Workflow<'_>, reader: &Reader<'_>) -> Self {
        let mut served = Self {
            skills: Vec::new(),
            files: Vec::new(),
        };
        if reader.kb {
            let body = format!("# Knowledge base\n\n{}\n\n{}\n", w.kb_only, w.kb_skill_body);
            served.add(KB, w.kb_skill_description, body, Vec::new());
        }
        if reader.lorebase {
            let references = lorebase_references(reader);
            let body = lorebase_body(w, reader, &references);
            served.add(LOREBASE, w.skill_description, body, references);
        }
        served.skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        served
    }

    /// Adds the skill `name` with its `SKILL.md` body and reference files
    /// (path under the skill, text).
    fn add(
        &mut self,
        name: &str,
        description: &str,
        body: String,
        references: Vec<(&'static str, String)>,
    ) {
        let skill_md = format!(
            "---\nname: {name}\ndescription: {}\n---\n\n{body}",
            serde_json::Value::String(description.to_string())
        );
        let uri = format!("skill://{name}/SKILL.md");
        let mut files = vec![SkillFile {
            uri: uri.clone(),
            text: skill_md,
        }];
        for (path, text) in references {
            files.push(SkillFile {
                uri: format!("skill://{name}/{path}"),
                text,
            });
        }
        let manifest = files
            .iter()
            .map(|f| SkillResource::from_bytes(f.uri.clone(), f.text.as_bytes()))
            .collect();
        let frontmatter = SkillFrontmatter::new(name, description);
        self.skills.push(Skill::new(
            uri,
            frontmatter,
            SkillResources::Files(manifest),
        ));
        self.files.extend(files);
    }

    /// The answer to `skills/list`.
    pub(crate) fn list(&self) -> ListSkillsResult {
        ListSkillsResult::with_all_items(self.skills.clone())
    }

    /// The answer to `skills/get`: invalid params (-32602) for a skill not
    /// served to this request.
    pub(crate) fn get(&self, uri: &str) -> Result<GetSkillResult, McpError> {
        self.skills
            .iter()
            .find(|s| s.uri == uri)
            .map(|s| GetSkillResult::new(s.clone()))
            .ok_or_else(|| {
                let shown: String = uri.chars().take(200).collect();
                McpError::invalid_params(format!("unknown skill {shown}"), None)
            })
    }

    /// The answer to `resources/read` for a skill file served to this
    /// request; `None` for any other URI.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        let file = self.files.iter().find(|f| f.uri == uri)?;
        let contents = ResourceContents::text(file.text.clone(), uri).with_mime_type(MARKDOWN);
        Some(ReadResourceResult::new(vec![contents]))
    }
}

/// Whether `uri` names a skill file (served or not).
pub(crate) fn is_skill_uri(uri: &str) -> bool {
    uri.starts_with("skill://")
}

/// The `lorebase` skill's reference files for `reader`: the query DSL when
/// `lorebase_query` is served, the error codes, the examples whose tools
/// are served.
fn lorebase_references(reader: &Reader<'_>) -> Vec<(&'static str, String)> {
    let serves = reader.serves;
    let mut files = Vec::new();
    if serves("lorebase_query") {
        files.push(("references/query-dsl.md", QUERY_DSL.to_string()));
    }
    files.push((
        "references/errors.md",
        error_reference(serves("lorebase_execute")),
    ));
    let examples: Vec<&str> = EXAMPLES
        .iter()
        .filter(|(tools, _)| tools.iter().all(|t| serves(t)))
        .map(|(_, text)| *text)
        .collect();
    if !examples.is_empty() {
        let text = format!("# Worked examples\n\n{}", examples.join("\n"));
        files.push(("references/examples.md", text));
    }
    files
}

/// What each reference file is for, in the skill's list of references.
fn reference_line(path: &str) -> &'static str {
    match path {
        "references/query-dsl.md" => {
            "the lorebase_query DSL: predicates and operators, select, include, order, \
             aggregate (group_by), cursors and the coverage lines"
        }
        "references/errors.md" => "every error code, what it means and the next step",
        _ => "worked examples, call by call, with the answers",
    }
}

/// The `lorebase` skill's body: the opening, the steps, the tool map, the
/// shared arguments and the references, the write parts only when
/// `lorebase_execute` is served.
fn lorebase_body(
    w: &Workflow<'_>,
    reader: &Reader<'_>,
    references: &[(&'static str, String)],
) -> String {
    let writes = (reader.serves)("lorebase_execute");
    let mut out = format!("{}\n\n{}", w.skill_title, w.opening_read);
    if writes {
        out.push(' ');
        out.push_str(w.opening_write);
    }
    out.push_str(&format!(
        "\n\n## {}\n\n",
        w.steps_heading.trim_end_matches(':')
    ));
    let mut steps = vec![w.context_step, w.read_step];
    if writes {
        steps.push(w.write_step);
    }
    for (n, step) in steps.iter().enumerate() {
        out.push_str(&format!("{}. {step}\n\n", n + 1));
    }
    out.push_str(w.errors_read);
    if writes {
        out.push_str(w.errors_write);
    }
    out.push_str(&format!(
        ".\n\n## {}\n\n",
        w.tasks_heading.trim_end_matches(':')
    ));
    for (task, line) in w.tasks.iter().zip(task_lines(w)) {
        if (reader.serves)(task.tool) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(&format!("\n{}\n", w.shared));
    if reader.kb {
        out.push_str(&format!("\n{}\n", w.kb));
    }
    out.push_str(&format!("\n{}\n\n", w.skill_references));
    for (path, _) in references {
        out.push_str(&format!("- `{path}`: {}\n", reference_line(path)));
    }
    out
}

/// Keeper's problem codes the reader may meet, what each means and the
/// next step Herald's errors give (from [`ToolError`]'s own table, so the
/// reference never disagrees with the errors). Without writes, the codes
/// only writes meet are left out.
fn error_reference(writes: bool) -> String {
    let caps = OutputSettings {
        max_chars: 4000,
        max_items: 50,
        max_value_chars: 1000,
        schemas: false,
    };
    let mut out = String::from(
        "# Error codes\n\nA failed call is a tool error: `[code] message`, the issues one per \
         line with their path, and a last line `next: …` with the action that resolves it. \
         Do what the `next:` line says; on a transient code it gives the delay Keeper asked \
         for (5 s below, where Keeper gave none).\n\n| Code | Meaning | Next step |\n| --- | --- | --- |\n",
    );
    for code in ProblemCode::ALL {
        let (meaning, write_only) = meaning(code);
        if write_only && !writes {
            continue;
        }
        let rendered = ToolError::new(code, "").render(&caps);
        let next = rendered
            .lines()
            .find_map(|l| l.strip_prefix("next: "))
            .unwrap_or_default();
        out.push_str(&format!("| `{}` | {meaning} | {next} |\n", code.as_str()));
    }
    out
}

/// What a problem code means, and whether only writes meet it.
fn meaning(code: ProblemCode) -> (&'static str, bool) {
    use ProblemCode::*;
    match code {
        StaleHead => ("the branch moved since `expected_head`", true),
        ReviewRequired => (
            "the Operation has a review policy: it needs a Proposal",
            true,
        ),
        ProtectedBranch => ("the branch is protected: the change needs a Proposal", true),
        AgentBranchLimit => ("too many task branches for this agent", true),
        AlreadyExists => ("the task's branch exists and is someone else's", true),
        ValidationFailed => ("arguments, the query or the data rules failed", false),
        NotFound => ("no such Domain, branch, Kind or Record", false),
        Forbidden => ("the agent's key lacks the grant", false),
        Unauthorized => ("the key is missing or invalid", false),
        RateLimited => ("too many requests: transient", false),
        BranchBusy => ("the branch is busy with another write: transient", true),
        KeeperUnavailable => ("Keeper is unreachable or overloaded: transient", false),
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::sha256_digest;

    use super::*;

    fn all(_: &str) -> bool {
        true
    }

    fn reads_only(name: &str) -> bool {
        name != "lorebase_execute"
    }

    fn served(serves: &dyn Fn(&str) -> bool, kb: bool) -> ServedSkills {
        ServedSkills::new(&Reader {
            lorebase: true,
            kb,
            serves,
        })
    }

    fn text(s: &ServedSkills, uri: &str) -> String {
        let read = s.read(uri).unwrap();
        match &read.contents[0] {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            other => panic!("not text: {other:?}"),
        }
    }

    /// Every file's bytes as `resources/read` returns them.
    fn every_text(s: &ServedSkills) -> String {
        s.files.iter().map(|f| text(s, &f.uri)).collect()
    }

    #[test]
    fn every_manifest_entry_is_the_digest_and_size_of_the_bytes_read() {
        for kb in [false, true] {
            let s = served(&all, kb);
            rmcp::model::validate_skills(&s.skills).unwrap();
            for skill in &s.skills {
                let SkillResources::Files(files) = &skill.resources else {
                    panic!("dynamic")
                };
                for f in files {
                    let bytes = text(&s, &f.uri).into_bytes();
                    assert_eq!(f.digest, sha256_digest(&bytes), "{}", f.uri);
                    assert_eq!(f.size, bytes.len() as u64);
                }
            }
        }
    }

    #[test]
    fn the_body_names_its_references_and_stays_within_its_budget() {
        let s = served(&all, true);
        let body = text(&s, "skill://lorebase/SKILL.md");
        assert!(
            body.starts_with("---\nname: lorebase\ndescription: \""),
            "{body}"
        );
        for path in [
            "references/query-dsl.md",
            "references/errors.md",
            "references/examples.md",
        ] {
            assert!(body.contains(path), "{path}");
            assert!(s.read(&format!("skill://lorebase/{path}")).is_some());
        }
        // At most ~1,500 tokens (o200k_base) whatever is served.
        let tokens = crate::cli::tool_tokens::count(&body);
        assert!(tokens <= 1500, "{tokens} tokens");
        if std::env::var_os("SKILLS_PRINT_SIZES").is_some() {
            for f in &s.files {
                let t = crate::cli::tool_tokens::count(&f.text);
                eprintln!("{} {} bytes {t} tokens", f.uri, f.text.len());
            }
        }
    }

    #[test]
    fn a_reader_without_lorebase_execute_is_taught_no_write() {
        let s = served(&reads_only, true);
        let taught = every_text(&s);
        for write in [
            "lorebase_execute",
            "dry_run",
            "expected_head",
            "idempotency_key",
            "stale-head",
            "review-required",
        ] {
            assert!(
                !taught.contains(write),
                "{write} taught to a read-only reader"
            );
        }
        let full = every_text(&served(&all, true));
        for write in ["lorebase_execute", "dry_run", "expected_head", "stale-head"] {
            assert!(full.contains(write), "{write} missing with writes served");
        }
    }

    #[test]
    fn the_kb_skill_comes_with_the_kb_and_the_lorebase_one_with_its_tools() {
        let names = |s: &ServedSkills| -> Vec<String> {
            s.skills.iter().map(|k| k.name().to_string()).collect()
        };
        assert_eq!(names(&served(&all, true)), ["kb", "lorebase"]);
        assert_eq!(names(&served(&all, false)), ["lorebase"]);
        let kb_only = ServedSkills::new(&Reader {
            lorebase: false,
            kb: true,
            serves: &|n: &str| n.starts_with("kb_"),
        });
        assert_eq!(names(&kb_only), ["kb"]);
        let body = text(&kb_only, "skill://kb/SKILL.md");
        assert!(body.contains("kb_search") && body.contains("kb_get"));
        // A narrowed view: the map keeps only the lines of the tools served.
        let provenance =
            |n: &str| ["lorebase_explain", "lorebase_lineage", "lorebase_history"].contains(&n);
        let s = served(&provenance, false);
        let body = text(&s, "skill://lorebase/SKILL.md");
        assert!(body.contains("- who changed a Record, when: lorebase_history"));
        assert!(!body.contains("- filtered lists, counts, group by"));
        assert!(s.read("skill://lorebase/references/query-dsl.md").is_none());
        assert!(s.get("skill://nothing/SKILL.md").is_err());
    }

    #[test]
    fn the_error_reference_gives_each_code_its_next_step() {
        let text = error_reference(true);
        for code in ProblemCode::ALL {
            assert!(
                text.contains(&format!("| `{}` |", code.as_str())),
                "{code:?}"
            );
        }
        assert!(text.contains("check refs with lorebase_search or lorebase_schema"));
    }

    #[test]
    fn the_query_reference_names_every_operator() {
        for op in herald_core::keeper::model::CompareOp::ALL {
            assert!(QUERY_DSL.contains(&format!("`{}`", op.as_str())), "{op:?}");
        }
    }
}
