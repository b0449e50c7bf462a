//! The output caps on real answers (docs/tools.md, "Output caps"): values, lists and
//! whole outputs are cut with a mark, never inside a UTF-8 character, and the
//! JSON format stays valid JSON; and `lorebase_changes`'s paging bound.

use crate::tools_support;

use lorebase_sandbox::{Sandbox, SandboxOptions};
use serde_json::{Value, json};
use tools_support::{call, toolbox_on};

const NAME: &str = "Żółte Łodzie Spółka z o.o. 🦀 — Ærøskøbing filiale";

async fn sandbox_with_multibyte_name() -> Sandbox {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |_| {});
    let out = call(
        &t,
        "lorebase_execute",
        json!({"operation": "update_supplier", "branch": "dev", "dry_run": false,
        "parameters": {"supplier_code": "S-1001", "legal_name": NAME}}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text);
    sandbox
}

#[tokio::test]
async fn a_long_multibyte_value_is_cut_on_a_character_and_marked() {
    let sandbox = sandbox_with_multibyte_name().await;
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.output.max_value_chars = 7);
    let out = call(
        &t,
        "lorebase_get",
        json!({"ref": "Supplier/S-1001", "branch": "dev"}),
    )
    .await;
    let total = NAME.chars().count();
    let expected: String = NAME.chars().take(7).collect();
    let line = format!(
        "legal_name: {expected}... [truncated: {} more chars]",
        total - 7
    );
    assert!(out.text.lines().any(|l| l == line), "{}", out.text);

    let json_out = call(
        &t,
        "lorebase_get",
        json!({"ref": "Supplier/S-1001", "branch": "dev", "format": "json"}),
    )
    .await;
    let v = json_out.structured.unwrap();
    assert_eq!(
        v["values"]["legal_name"],
        json!(format!(
            "{expected}... [truncated: {} more chars]",
            total - 7
        ))
    );
    assert!(
        v["cuts"].as_array().unwrap().contains(
            &json!({"path": "/values/legal_name", "omitted": total - 7, "unit": "chars"})
        )
    );
}

#[tokio::test]
async fn long_lists_say_how_many_were_left_out() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.output.max_items = 2);
    let out = call(
        &t,
        "lorebase_get",
        json!({"ref": "Supplier/S-1001", "links": true}),
    )
    .await;
    assert!(
        out.text.lines().any(|l| l == "  ... 3 more links"),
        "{}",
        out.text
    );
    let v = call(
        &t,
        "lorebase_get",
        json!({"ref": "Supplier/S-1001", "links": true, "format": "json"}),
    )
    .await
    .structured
    .unwrap();
    assert_eq!(v["links"].as_array().unwrap().len(), 2);
    assert!(
        v["cuts"]
            .as_array()
            .unwrap()
            .contains(&json!({"path": "/links", "omitted": 3, "unit": "items"}))
    );
}

#[tokio::test]
async fn whole_outputs_fit_max_chars_in_both_formats() {
    let sandbox = sandbox_with_multibyte_name().await;
    let max = 400;
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.output.max_chars = max);
    for format in ["text", "json"] {
        for (tool, args) in [
            ("lorebase_schema", json!({"branch": "dev"})),
            (
                "lorebase_neighborhood",
                json!({"seeds": ["Supplier/S-1001"], "depth": 2, "values": true, "branch": "dev"}),
            ),
            (
                "lorebase_context",
                json!({"records": ["Supplier/S-1001"], "branch": "dev"}),
            ),
        ] {
            let mut args = args;
            args["format"] = json!(format);
            let out = call(&t, tool, args).await;
            assert!(!out.is_error, "{}", out.text);
            assert!(
                out.text.chars().count() <= max,
                "{tool} {format}: {} chars",
                out.text.chars().count()
            );
            if format == "text" {
                assert!(
                    out.text.contains("[truncated: "),
                    "{tool}: the cut is marked\n{}",
                    out.text
                );
            } else {
                let v: Value = serde_json::from_str(&out.text).expect("still valid JSON");
                assert!(
                    !v["cuts"].as_array().unwrap().is_empty(),
                    "{tool}: cuts listed"
                );
            }
        }
    }
}

async fn revisions(t: &herald_core::tools::Toolbox) -> Vec<String> {
    let v = call(t, "lorebase_changes", json!({"format": "json"}))
        .await
        .structured
        .unwrap();
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["revision"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn changes_pages_back_to_since_within_the_bound() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.changes.max_pages = 5);
    let revs = revisions(&t).await;
    let import = &revs[1][..8];
    // One Revision per page: two pages reach the import.
    let v = call(
        &t,
        "lorebase_changes",
        json!({"since": import, "limit": 1, "format": "json"}),
    )
    .await
    .structured
    .unwrap();
    assert_eq!(v["reached_since"], true);
    assert_eq!(v["stopped_by_max_pages"], false);
    assert_eq!(v["pages"], 2);
    assert_eq!(v["entries"].as_array().unwrap().len(), 1);
    assert_eq!(v["entries"][0]["revision"], json!(revs[0]));
    assert!(v.get("next_cursor").is_none());

    // A bound of one page stops before it, says so, and gives the cursor.
    let bounded = toolbox_on(&sandbox.url(), "supply", |s| s.changes.max_pages = 1);
    let out = call(
        &bounded,
        "lorebase_changes",
        json!({"since": import, "limit": 1}),
    )
    .await;
    assert!(
        out.text
            .contains("stopped: read 1 page (herald.changes.max_pages = 1)"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .lines()
            .last()
            .unwrap()
            .starts_with("next_cursor: "),
        "{}",
        out.text
    );

    // A since the log does not have: the whole log, and a note.
    let out = call(&t, "lorebase_changes", json!({"since": "deadbeefdeadbeef"})).await;
    assert!(
        out.text
            .contains("not found: deadbeefdead... is not in the log of main"),
        "{}",
        out.text
    );
}

/// The default, `output.schemas = false` (hosts that show the model only
/// `structuredContent` then show the text): the text format answers with
/// text alone, the json format with structured content, and failures are
/// unchanged.
#[tokio::test]
async fn by_default_the_text_format_is_text_alone() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |_| {});
    let text = call(&t, "lorebase_get", json!({"ref": "Supplier/S-1001"})).await;
    assert!(!text.is_error, "{}", text.text);
    assert!(text.structured.is_none());
    assert!(text.text.contains("Supplier/S-1001"), "{}", text.text);
    let json_out = call(
        &t,
        "lorebase_get",
        json!({"ref": "Supplier/S-1001", "format": "json"}),
    )
    .await;
    let structured = json_out.structured.expect("json sends structuredContent");
    assert_eq!(structured["ref"], "Supplier/S-1001");
    let failed = call(&t, "lorebase_get", json!({"ref": "Supplier/S-0000"})).await;
    assert!(failed.is_error && failed.structured.is_none());
    assert!(failed.text.starts_with("[not-found]"), "{}", failed.text);
}

/// Identifiers are never cut in the JSON format, however tight the caps: the
/// head a dry run reports is the next call's `expected_head`, whole.
#[tokio::test]
async fn json_caps_cut_the_text_around_identifiers_never_them() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| {
        s.output.max_value_chars = 16;
        s.output.max_chars = 1_500;
    });
    let args = json!({"operation": "update_supplier", "format": "json",
        "parameters": {"supplier_code": "S-1001", "risk_score": 50}});
    let out = call(&t, "lorebase_execute", args).await;
    let v = out.structured.expect("json");
    let head = v["head"].as_str().unwrap();
    assert_eq!(head.len(), 64, "{v}");
    assert!(head.bytes().all(|b| b.is_ascii_hexdigit()), "{v}");
    assert_eq!(v["edits"][0]["ref"], "Supplier/S-1001", "{v}");

    let history = call(
        &t,
        "lorebase_history",
        json!({"ref": "Supplier/S-1001", "values": true, "format": "json"}),
    )
    .await;
    let v = history.structured.expect("json");
    assert!(serde_json::to_string(&v).unwrap().chars().count() <= 1_500);
    for entry in v["entries"].as_array().unwrap() {
        assert_eq!(entry["revision"].as_str().unwrap().len(), 64, "{v}");
    }
    // The long text around them was cut, and says so.
    assert!(v["cuts"].as_array().is_some_and(|c| !c.is_empty()), "{v}");
}

/// `max_items` cuts inline lists in text too (a Kind's attributes in
/// lorebase_schema and in lorebase_context's schema section), each cut marked.
#[tokio::test]
async fn inline_lists_are_cut_at_max_items_and_marked() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.output.max_items = 2);
    let schema = call(&t, "lorebase_schema", json!({"kinds": ["Supplier"]})).await;
    let attrs = schema
        .text
        .lines()
        .find(|l| l.starts_with("  supplier_code:"))
        .unwrap_or_else(|| panic!("{}", schema.text));
    assert_eq!(
        attrs,
        "  supplier_code: string!, legal_name: string!, ... 7 more attributes"
    );
    let context = call(
        &t,
        "lorebase_context",
        json!({"records": ["Supplier/S-1001"], "token_budget": 4000}),
    )
    .await;
    let kind = context
        .text
        .lines()
        .find(|l| l.starts_with("- Supplier (key"))
        .unwrap_or_else(|| panic!("{}", context.text));
    assert!(
        kind.ends_with("supplier_code: string!, legal_name: string!, ... 7 more attributes"),
        "{kind}"
    );
}
