//! The tool list models see: one checked-in snapshot per tool
//! (`tests/snapshots/tools/<name>.json`, the definition as `tools/list` sends
//! it with `output.schemas` on; by default the same without `outputSchema`),
//! so a change to one tool's name, description, schemas or annotations is one
//! small reviewed diff; plus the rules every definition follows.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_list::`
//! rewrites the snapshots.

use crate::tools_support;

use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::tools::{ToolCallError, Toolbox};
use serde_json::{Value, json};
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

const UPDATE: &str = "review the change, then run: UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_list::";

#[test]
fn every_tool_matches_its_snapshot() {
    let catalog = tempfile::tempdir().unwrap();
    std::fs::write(
        catalog.path().join("entry.md"),
        "---\ntitle: A\n---\nbody\n",
    )
    .unwrap();
    let defs = toolbox(|s| {
        s.kb.dir = Some(catalog.path().to_path_buf());
        s.output.schemas = true;
    })
    .definitions();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut drifted = Vec::new();
    for d in &defs {
        let actual = serde_json::to_string_pretty(d).unwrap() + "\n";
        let path = dir.join(format!("{}.json", d.name));
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &actual).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(actual.as_str()) {
            drifted.push(format!(
                "{} (tests/snapshots/tools/{}.json)",
                d.name, d.name
            ));
        }
    }
    let mut stale = Vec::new();
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !defs.iter().any(|d| d.name == name) {
            if update {
                std::fs::remove_file(&path).unwrap();
            } else {
                stale.push(name);
            }
        }
    }
    assert!(
        drifted.is_empty() && stale.is_empty(),
        "tool definitions changed: {drifted:?}; snapshots of tools that no longer exist: {stale:?}; {UPDATE}"
    );
}

#[test]
fn fourteen_tools_in_table_order() {
    assert_eq!(names(&toolbox(|_| {})), NAMES);
}

#[test]
fn every_definition_follows_the_rules() {
    for d in toolbox(|s| s.output.schemas = true).definitions() {
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
            // The arguments the server's instructions describe once
            // (server/src/mcp/instructions.rs) carry only their short form.
            let said_once = SAID_ONCE.contains(&k.as_str());
            assert_eq!(
                p.get("description").is_none(),
                said_once,
                "{}.{k}: a description unless it is said once in the instructions",
                d.name
            );
            assert_bounds_in_words(&format!("{}.{k}", d.name), p);
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

/// The arguments described once, in the server's instructions.
const SAID_ONCE: [&str; 5] = ["domain", "branch", "at", "format", "cursor"];

/// An argument's bounds and default are in its description too (hosts
/// strip them from schemas), for it and every described subschema.
fn assert_bounds_in_words(path: &str, schema: &Value) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    if let Some(description) = obj.get("description").and_then(Value::as_str) {
        let n = |k: &str| obj.get(k).and_then(Value::as_u64);
        let mut wanted = Vec::new();
        match (n("minimum"), n("maximum")) {
            (Some(min), Some(max)) => wanted.push(format!("{min}-{max}")),
            (None, Some(max)) => wanted.push(format!("at most {max}")),
            _ => {}
        }
        if let Some(max) = n("maxItems") {
            wanted.push(format!("at most {max}"));
        }
        match obj.get("default") {
            Some(Value::Bool(false)) | None => {}
            Some(Value::String(s)) => wanted.push(format!("default {s}")),
            Some(other) => wanted.push(format!("default {other}")),
        }
        for w in wanted {
            assert!(
                description.contains(&w),
                "{path}: {description:?} lacks {w:?}"
            );
        }
    }
    for (key, sub) in obj {
        match (key.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                for (k, p) in props {
                    assert_bounds_in_words(&format!("{path}.{k}"), p);
                }
            }
            ("items", sub) => assert_bounds_in_words(&format!("{path}[]"), sub),
            _ => {}
        }
    }
}

#[test]
fn lorebase_context_alone_asks_to_stay_loaded_unless_turned_off() {
    let marked = |t: &Toolbox| -> Vec<String> {
        t.definitions()
            .into_iter()
            .filter(|d| {
                d.meta
                    .as_ref()
                    .is_some_and(|m| m.get("anthropic/alwaysLoad") == Some(&Value::Bool(true)))
            })
            .map(|d| d.name)
            .collect()
    };
    assert_eq!(marked(&toolbox(|_| {})), ["lorebase_context"]);
    assert!(marked(&toolbox(|s| s.tools.always_load_context = false)).is_empty());
    // Every Lorebase tool carries words for Claude Code's tool search.
    for d in toolbox(|_| {}).definitions() {
        let hint = d.meta.as_ref().and_then(|m| m.get("anthropic/searchHint"));
        assert!(
            hint.and_then(Value::as_str).is_some_and(|h| h.len() > 10),
            "{}",
            d.name
        );
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
    assert_eq!(err.code().as_str(), "unknown-tool");
    // KB tools exist only with a catalog.
    let err = ro
        .call("kb_search", Default::default(), &Credential::Configured)
        .await
        .unwrap_err();
    assert_eq!(err.code().as_str(), "unknown-tool");
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

/// Whether a family is served (what turns resources, the prompt and
/// completion on) is the view's answer, as each tool's is.
#[test]
fn the_view_says_which_families_are_served() {
    use herald_core::tools::{Audience, ToolNarrowing, ToolOrigin, kb};
    let all = toolbox(|_| {});
    let view = all.view(None, Audience::OneAgent);
    assert!(view.serves_origin(ToolOrigin::Lorebase));
    assert!(!view.serves_origin(ToolOrigin::Kb) && !view.serves_origin(ToolOrigin::Remote));
    let dir = tempfile::tempdir().unwrap();
    let kb_only = toolbox(|s| {
        s.kb.dir = Some(dir.path().to_path_buf());
        s.tools.allow = Some(kb::NAMES.map(String::from).to_vec());
    });
    let view = kb_only.view(None, Audience::OneAgent);
    assert!(!view.serves_origin(ToolOrigin::Lorebase) && view.serves_origin(ToolOrigin::Kb));
    let only_kb = ToolNarrowing {
        groups: Some(vec!["kb".into()]),
        ..Default::default()
    };
    assert!(
        !all.view(Some(&only_kb), Audience::SharedHttp)
            .serves_origin(ToolOrigin::Lorebase)
    );
}

#[test]
fn an_unreadable_catalog_fails_the_toolbox() {
    let mut settings = Settings::default();
    settings.kb.dir = Some("/nonexistent/herald-kb".into());
    let err = Toolbox::new(settings).unwrap_err();
    assert!(!err.to_string().is_empty());
}

/// Output schemas are opt-in (`output.schemas`): by default no tool declares
/// one, and the definitions are the snapshots without `outputSchema`.
#[test]
fn output_schemas_are_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("entry.md"), "---\ntitle: A\n---\nbody\n").unwrap();
    let default = toolbox(|s| s.kb.dir = Some(dir.path().to_path_buf()));
    let defs = default.definitions();
    assert_eq!(defs.len(), 16);
    assert!(defs.iter().all(|d| d.output_schema.is_none()));
    let with = toolbox(|s| {
        s.kb.dir = Some(dir.path().to_path_buf());
        s.output.schemas = true;
    });
    for (plain, full) in defs.iter().zip(with.definitions()) {
        assert!(full.output_schema.is_some(), "{}", full.name);
        let mut without = full.clone();
        without.output_schema = None;
        assert_eq!(plain, &without);
    }
}
