//! The tool list models see: a checked-in snapshot (`tests/snapshots/tools.json`,
//! `tools/list`-shaped) so any change to names, descriptions, schemas or
//! annotations is reviewed; plus the rules every definition follows.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_list::`
//! rewrites the snapshot.

use crate::tools_support;

use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::tools::{ToolCallError, Toolbox};
use serde_json::json;
use tools_support::{example_of, schema_violations};

const NAMES: [&str; 14] = [
    "lorebase_context",
    "lorebase_schema",
    "lorebase_get",
    "lorebase_resolve",
    "lorebase_query",
    "lorebase_search",
    "lorebase_neighborhood",
    "lorebase_explain",
    "lorebase_history",
    "lorebase_lineage",
    "lorebase_changes",
    "lorebase_diff",
    "lorebase_execute",
    "lorebase_branches",
];

fn toolbox(tune: impl FnOnce(&mut Settings)) -> Toolbox {
    let mut settings = Settings::default();
    tune(&mut settings);
    Toolbox::new(settings).unwrap()
}

fn names(t: &Toolbox) -> Vec<String> {
    t.definitions().into_iter().map(|d| d.name).collect()
}

#[test]
fn the_tool_list_matches_the_snapshot() {
    let defs = toolbox(|_| {}).definitions();
    let actual = serde_json::to_string_pretty(&json!({ "tools": defs })).unwrap() + "\n";
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .expect("tests/snapshots/tools.json exists (UPDATE_SNAPSHOTS=1 writes it)");
    assert!(
        expected == actual,
        "the tool list changed; review it and run with UPDATE_SNAPSHOTS=1\n--- actual ---\n{actual}"
    );
}

#[test]
fn fourteen_tools_in_table_order() {
    assert_eq!(names(&toolbox(|_| {})), NAMES);
}

#[test]
fn every_definition_follows_the_rules() {
    for d in toolbox(|_| {}).definitions() {
        let s = &d.input_schema;
        assert_eq!(s["type"], "object", "{}", d.name);
        assert_eq!(s["additionalProperties"], false, "{}", d.name);
        let props = s["properties"].as_object().unwrap();
        for common in ["domain", "format"] {
            assert!(props.contains_key(common), "{} lacks {common}", d.name);
        }
        assert_eq!(props["format"]["enum"], json!(["text", "json"]));
        for (k, p) in props {
            assert!(p.get("type").is_some(), "{}.{k} has no type", d.name);
            assert!(
                p.get("description").is_some(),
                "{}.{k} has no description",
                d.name
            );
        }
        for r in s["required"].as_array().into_iter().flatten() {
            assert!(
                props.contains_key(r.as_str().unwrap()),
                "{}: required {r} unknown",
                d.name
            );
        }
        // The example in the description is a valid call.
        let example = example_of(&d.description);
        let violations = schema_violations(s, &example);
        assert!(violations.is_empty(), "{} example: {violations:?}", d.name);
        let out = d.output_schema.as_ref().unwrap();
        assert_eq!(out["type"], "object", "{}", d.name);
        assert!(
            out["properties"]["cuts"].is_object(),
            "{} output lacks cuts",
            d.name
        );
        let writes = d.name == "lorebase_execute";
        assert_eq!(d.annotations.read_only_hint, !writes, "{}", d.name);
        assert_eq!(d.annotations.idempotent_hint, !writes, "{}", d.name);
        assert!(d.title.len() > 3 && d.description.len() > 100, "{}", d.name);
    }
}

#[test]
fn branch_and_at_where_they_apply() {
    let defs = toolbox(|_| {}).definitions();
    let has = |name: &str, arg: &str| {
        defs.iter().find(|d| d.name == name).unwrap().input_schema["properties"]
            .get(arg)
            .is_some()
    };
    for name in [
        "lorebase_get",
        "lorebase_resolve",
        "lorebase_query",
        "lorebase_history",
        "lorebase_lineage",
    ] {
        assert!(has(name, "at") && has(name, "branch"), "{name}");
    }
    assert!(has("lorebase_execute", "branch") && !has("lorebase_execute", "at"));
    assert!(!has("lorebase_diff", "branch") && !has("lorebase_branches", "branch"));
}

#[test]
fn read_only_allow_and_deny_select_tools() {
    let ro = toolbox(|s| s.tools.read_only = true);
    assert!(!names(&ro).contains(&"lorebase_execute".to_string()));
    assert_eq!(names(&ro).len(), 13);
    let allow =
        toolbox(|s| s.tools.allow = Some(vec!["lorebase_get".into(), "lorebase_execute".into()]));
    assert_eq!(names(&allow), ["lorebase_get", "lorebase_execute"]);
    let deny = toolbox(|s| s.tools.deny = vec!["lorebase_diff".into()]);
    assert!(!names(&deny).contains(&"lorebase_diff".to_string()));
    assert_eq!(names(&deny).len(), 13);
}

#[tokio::test]
async fn a_tool_not_served_is_unknown() {
    let ro = toolbox(|s| s.tools.read_only = true);
    let args = json!({"operation": "x", "parameters": {}})
        .as_object()
        .unwrap()
        .clone();
    let err = ro
        .call("lorebase_execute", args, &Credential::Configured)
        .await
        .unwrap_err();
    assert_eq!(err, ToolCallError::UnknownTool("lorebase_execute".into()));
    let err = ro
        .call("nope", Default::default(), &Credential::Configured)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unknown-tool");
    // KB tools exist only with a catalog.
    let err = ro
        .call("kb_search", Default::default(), &Credential::Configured)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unknown-tool");
}

#[test]
fn kb_tools_join_the_list_with_a_catalog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("entry.md"),
        "---\ntitle: Restarts\ntype: runbook\n---\nHow to restart harbor-core.\n",
    )
    .unwrap();
    let t = toolbox(|s| s.kb.dir = Some(dir.path().to_path_buf()));
    let n = names(&t);
    assert_eq!(n.len(), 16);
    assert_eq!(&n[14..], ["kb_search", "kb_get"]);
    let denied = toolbox(|s| {
        s.kb.dir = Some(dir.path().to_path_buf());
        s.tools.deny = vec!["kb_get".into()];
    });
    assert!(!names(&denied).contains(&"kb_get".to_string()));
}

#[test]
fn an_unreadable_catalog_fails_the_toolbox() {
    let mut settings = Settings::default();
    settings.kb.dir = Some("/nonexistent/herald-kb".into());
    let err = Toolbox::new(settings).unwrap_err();
    assert!(!err.to_string().is_empty());
}

#[test]
fn without_output_schemas_no_tool_declares_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("entry.md"), "---\ntitle: A\n---\nbody\n").unwrap();
    let with = toolbox(|s| s.kb.dir = Some(dir.path().to_path_buf()));
    assert!(with.definitions().iter().all(|d| d.output_schema.is_some()));
    let without = toolbox(|s| {
        s.kb.dir = Some(dir.path().to_path_buf());
        s.output.schemas = false;
    });
    let defs = without.definitions();
    assert_eq!(defs.len(), 16);
    assert!(defs.iter().all(|d| d.output_schema.is_none()));
}
