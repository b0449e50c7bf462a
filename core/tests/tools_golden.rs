//! Golden outputs of every tool, in both formats, on the sandbox Keeper
//! (`tests/golden/<case>.txt` and `.json`), and the documented examples
//! line for line: history, lineage, and resolve + query for "red shoes per
//! brand" (docs/tools.md, the README).
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_golden::`
//! rewrites the golden files; review the diff before checking it in.

use crate::tools_support;

use std::path::PathBuf;

use herald_core::tools::Toolbox;
use lorebase_sandbox::{Sandbox, SandboxOptions};
use serde_json::{Value, json};
use tools_support::{call, sandbox_toolbox, schema_violations, toolbox_on};

/// One golden case: a name for the files, the Domain, the tool, its arguments.
pub(crate) struct Case {
    pub stem: &'static str,
    pub domain: &'static str,
    pub tool: &'static str,
    pub args: Value,
}

/// Every golden case (also run on the newer-Keeper sandbox, `tools_newer_keeper`).
pub(crate) fn cases() -> Vec<Case> {
    let c = |stem, domain, tool, args| Case {
        stem,
        domain,
        tool,
        args,
    };
    vec![
        c(
            "context_records",
            "supply",
            "lorebase_context",
            json!({"records": ["Supplier/S-1001"], "depth": 1, "token_budget": 2000}),
        ),
        c(
            "context_question",
            "supply",
            "lorebase_context",
            json!({"question": "Kavsen alloys", "token_budget": 800}),
        ),
        c("schema_summary", "supply", "lorebase_schema", json!({})),
        c(
            "schema_full_retail",
            "retail",
            "lorebase_schema",
            json!({"detail": "full", "kinds": ["Product"]}),
        ),
        c(
            "get",
            "supply",
            "lorebase_get",
            json!({"ref": "Supplier/S-1001", "links": true}),
        ),
        c(
            "get_at_import",
            "supply",
            "lorebase_get",
            json!({"ref": "Supplier/S-1001", "at": "import"}),
        ),
        c(
            "resolve_red_shoes",
            "retail",
            "lorebase_resolve",
            json!({"text": "red shoes per brand", "kinds": ["Product"]}),
        ),
        c(
            "query_red_shoes",
            "retail",
            "lorebase_query",
            json!({"query": {"kind": "Product",
            "where": {"and": [{"attr": "color", "op": "in", "value": ["Rosso", "red"]},
                              {"attr": "category", "op": "eq", "value": "Calzature"}]},
            "aggregate": {"group_by": "brand"}, "select": ["brand", "color"], "limit": 5}}),
        ),
        c(
            "query_include",
            "supply",
            "lorebase_query",
            json!({"query": {"kind": "Supplier",
            "where": {"attr": "risk_score", "op": "gte", "value": 90}, "select": ["risk_score"],
            "include": [{"relation": "supplies", "select": ["name"]}], "order_by": "-risk_score", "limit": 3}}),
        ),
        c(
            "search",
            "supply",
            "lorebase_search",
            json!({"query": "Kavsen alloys", "limit": 3}),
        ),
        c(
            "search_hybrid",
            "supply",
            "lorebase_search",
            json!({"query": "bolt", "kinds": ["Part"], "limit": 3,
            "query_vector": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}),
        ),
        c(
            "neighborhood",
            "supply",
            "lorebase_neighborhood",
            json!({"seeds": ["Supplier/S-1001"], "depth": 1}),
        ),
        c(
            "neighborhood_values",
            "supply",
            "lorebase_neighborhood",
            json!({"seeds": ["Supplier/S-1001"], "depth": 1, "relations": ["supplies"], "values": true}),
        ),
        c(
            "explain",
            "supply",
            "lorebase_explain",
            json!({"ref": "Supplier/S-1001"}),
        ),
        c(
            "explain_attribute",
            "supply",
            "lorebase_explain",
            json!({"ref": "Supplier/S-1001", "attributes": ["risk_score"]}),
        ),
        c(
            "history",
            "supply",
            "lorebase_history",
            json!({"ref": "Supplier/S-1001", "values": true, "limit": 2}),
        ),
        c(
            "history_names_only",
            "supply",
            "lorebase_history",
            json!({"ref": "Supplier/S-1001", "limit": 1}),
        ),
        c(
            "lineage",
            "supply",
            "lorebase_lineage",
            json!({"ref": "Supplier/S-1001"}),
        ),
        c(
            "lineage_proposal",
            "retail",
            "lorebase_lineage",
            json!({"ref": "Product/P-0002"}),
        ),
        c("changes", "supply", "lorebase_changes", json!({})),
        c(
            "diff",
            "supply",
            "lorebase_diff",
            json!({"from_revision": "import", "to_revision": "risk-raised"}),
        ),
        c("branches", "supply", "lorebase_branches", json!({})),
        c(
            "execute_dry_run",
            "supply",
            "lorebase_execute",
            json!({"operation": "update_supplier",
            "parameters": {"supplier_code": "S-1001", "risk_score": 50}}),
        ),
        c(
            "execute_commit_dev",
            "supply",
            "lorebase_execute",
            json!({"operation": "update_supplier", "branch": "dev",
            "parameters": {"supplier_code": "S-1001", "risk_score": 50}, "dry_run": false,
            "message": "Lower the risk of S-1001", "idempotency_key": "golden-1"}),
        ),
        c(
            "execute_proposal",
            "supply",
            "lorebase_execute",
            json!({"operation": "flag_supplier_risk",
            "parameters": {"supplier_code": "S-1001", "reason": "late deliveries"}, "dry_run": false,
            "task": "flag-s1001", "intent": "Flag S-1001 for review after late deliveries", "auto_propose": true}),
        ),
    ]
}

pub(crate) fn golden_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

/// The Revision ids of the sample data (the same on every start).
pub(crate) async fn sample_revisions() -> Vec<String> {
    let mut ids = Vec::new();
    for domain in ["supply", "retail"] {
        let (_sandbox, t) = sandbox_toolbox(domain).await;
        let log = call(&t, "lorebase_changes", json!({"format": "json"})).await;
        for e in log.structured.unwrap()["entries"].as_array().unwrap() {
            ids.push(e["revision"].as_str().unwrap().to_string());
        }
    }
    ids
}

/// Replaces what a write makes anew (its Revision id, from the clock; its
/// Proposal id) with placeholders, so goldens of writes are stable.
pub(crate) fn mask_new_ids(text: &str, known: &[String]) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let hex_run = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
            .count();
        let boundary = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if boundary && hex_run == 64 && !known.iter().any(|k| k.as_str() == &text[i..i + 64]) {
            out.push_str("<new-revision>");
            i += 64;
        } else if text[i..].starts_with("prop_") {
            let id_len = bytes[i + 5..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            out.push_str("prop_<id>");
            i += 5 + id_len;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Compares with the golden file, or rewrites it under UPDATE_SNAPSHOTS.
fn golden(file: &str, actual: &str) -> Option<String> {
    let path = golden_path(file);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "{file} differs\n--- expected ---\n{expected}\n--- actual ---\n{actual}"
        )),
        Err(_) => Some(format!("{file} is missing (UPDATE_SNAPSHOTS=1 writes it)")),
    }
}

/// A sandbox and a toolbox on it with `output.schemas` on.
async fn toolbox_with_schemas(domain: &str) -> (Sandbox, Toolbox) {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), domain, |s| s.output.schemas = true);
    (sandbox, t)
}

fn output_schema(t: &Toolbox, tool: &str) -> Value {
    t.definitions()
        .into_iter()
        .find(|d| d.name == tool)
        .unwrap()
        .output_schema
        .unwrap()
}

#[tokio::test]
async fn every_tool_in_both_formats_matches_its_golden_output() {
    let known = sample_revisions().await;
    let mut failures = Vec::new();
    let mut tools_seen = std::collections::BTreeSet::new();
    for case in cases() {
        // A fresh sandbox per case: writes do not leak into other cases.
        let (_sandbox, t) = sandbox_toolbox(case.domain).await;
        tools_seen.insert(case.tool);
        let text = call(&t, case.tool, case.args.clone()).await;
        assert!(!text.is_error, "{}: {}", case.stem, text.text);
        // By default a text answer is its text alone (no structuredContent).
        assert_eq!(text.structured, None, "{}", case.stem);
        let masked = mask_new_ids(&format!("{}\n", text.text), &known);
        failures.extend(golden(&format!("{}.txt", case.stem), &masked));

        let mut json_args = case.args.clone();
        json_args["format"] = json!("json");
        let (_sandbox, t) = sandbox_toolbox(case.domain).await;
        let out = call(&t, case.tool, json_args).await;
        assert!(!out.is_error, "{}: {}", case.stem, out.text);
        let structured = out.structured.clone().expect("json has structured content");
        let from_text: Value = serde_json::from_str(&out.text).expect("the text block is the JSON");
        assert_eq!(
            from_text, structured,
            "{}: text block and structured content differ",
            case.stem
        );
        // With output schemas on, the text format carries the same structured
        // content (an output schema obliges it) and the same text block. The
        // calls ran on separate sandboxes, so a new revision's id (it hashes
        // the commit time) may differ between them: compare with new ids masked.
        let (_sandbox, with_schemas) = toolbox_with_schemas(case.domain).await;
        let text_on = call(&with_schemas, case.tool, case.args.clone()).await;
        let masked_json = |v: &Value| mask_new_ids(&v.to_string(), &known);
        assert_eq!(
            text_on.structured.as_ref().map(masked_json),
            Some(masked_json(&structured)),
            "{}",
            case.stem
        );
        assert_eq!(
            mask_new_ids(&format!("{}\n", text_on.text), &known),
            masked,
            "{}",
            case.stem
        );
        let schema = output_schema(&with_schemas, case.tool);
        let violations = schema_violations(&schema, &structured);
        assert!(
            violations.is_empty(),
            "{}: output schema violations {violations:?}",
            case.stem
        );
        let pretty = serde_json::to_string_pretty(&structured).unwrap() + "\n";
        failures.extend(golden(
            &format!("{}.json", case.stem),
            &mask_new_ids(&pretty, &known),
        ));
    }
    assert_eq!(tools_seen.len(), 14, "every tool has a golden case");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The operation and import Revisions of the `supply` sample (newest first).
async fn supply_revisions(t: &Toolbox) -> (String, String) {
    let log = call(t, "lorebase_changes", json!({"format": "json"})).await;
    let entries = log.structured.unwrap()["entries"]
        .as_array()
        .unwrap()
        .clone();
    let id = |i: usize| entries[i]["revision"].as_str().unwrap().to_string();
    (id(0), id(1))
}

/// A documented example's text with its Revision ids replaced by the
/// sandbox's (the same ids when the sandbox reproduces them).
fn with_sandbox_ids(text: &str, ids: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (documented, actual) in ids {
        out = out.replace(documented, &actual[..documented.len()]);
    }
    out
}

#[tokio::test]
async fn history_prints_the_documented_example_line_for_line() {
    let (_sandbox, t) = sandbox_toolbox("supply").await;
    let (op, import) = supply_revisions(&t).await;
    let out = call(
        &t,
        "lorebase_history",
        json!({"ref": "Supplier/S-1001", "values": true, "limit": 2}),
    )
    .await;
    let expected = with_sandbox_ids(
        "Supplier/S-1001 rev f4d229169a37... on main: 2 changes
f4d229169a37... 2026-10-01T08:00:04Z usr_editor [operation] updated: Raise the risk of S-1001
  risk_score: 32 -> 90
97ce9a2ce272... 2026-10-01T08:00:03Z usr_loader [import] created: Import the supply example data
  supplier_code: null -> S-1001
  legal_name: null -> Kavsen Alloys Sp. z o.o.
  risk_score: null -> 32",
        &[("f4d229169a37", &op), ("97ce9a2ce272", &import)],
    );
    assert_eq!(out.text, expected);
}

#[tokio::test]
async fn lineage_prints_the_s1001_example_line_for_line() {
    let (_sandbox, t) = sandbox_toolbox("supply").await;
    let (op, import) = supply_revisions(&t).await;
    let out = call(&t, "lorebase_lineage", json!({"ref": "Supplier/S-1001"})).await;
    let expected = with_sandbox_ids(
        "Supplier/S-1001 rev f4d229169a37... on main (2 changes)
created <- usr_loader at 2026-10-01T08:00:03Z in 97ce9a2ce272...
supplier_code = S-1001 <- import by usr_loader at 2026-10-01T08:00:03Z in 97ce9a2ce272...
legal_name = Kavsen Alloys Sp. z o.o. <- import by usr_loader at 2026-10-01T08:00:03Z in 97ce9a2ce272...
risk_score = 90 <- operation by usr_editor at 2026-10-01T08:00:04Z in f4d229169a37... operation update_supplier",
        &[("f4d229169a37", &op), ("97ce9a2ce272", &import)],
    );
    assert_eq!(out.text, expected);
}

#[tokio::test]
async fn resolve_then_query_answers_red_shoes_per_brand() {
    let (_sandbox, t) = sandbox_toolbox("retail").await;
    let resolved = call(
        &t,
        "lorebase_resolve",
        json!({"text": "red shoes per brand", "kinds": ["Product"]}),
    )
    .await;
    let rev = call(
        &t,
        "lorebase_resolve",
        json!({"text": "red", "format": "json"}),
    )
    .await
    .structured
    .unwrap()["revision"]
        .as_str()
        .unwrap()
        .to_string();
    let expected = with_sandbox_ids(
        r#"rev 5b0c41e2...: 3 candidates
1. value Product.color (string) = Rosso, red | exact 1.0 for 'red', 120 records
   where: {"attr":"color","op":"in","value":["Rosso","red"]}
2. value Product.category (string) = Calzature | synonym 0.95 for 'shoes', 100 records
   where: {"attr":"category","op":"eq","value":"Calzature"}
3. attribute Product.brand (string) | exact 1.0 for 'brand'"#,
        &[("5b0c41e2", &rev)],
    );
    let lines: Vec<&str> = resolved.text.lines().collect();
    assert_eq!(lines[..6].join("\n"), expected, "{}", resolved.text);
    // The rest differs with the question: `unmatched: how, many, per` is for the
    // longer question "How many red shoes per brand?".
    assert_eq!(lines[6], "unmatched: per");
    assert!(
        lines[7..]
            .iter()
            .all(|l| l.starts_with("skipped: ") || l.starts_with("coverage: "))
    );

    // The query written from the where fragments, grouped by the third candidate.
    let query = json!({"query": {"kind": "Product",
        "where": {"and": [{"attr": "color", "op": "in", "value": ["Rosso", "red"]},
                          {"attr": "category", "op": "eq", "value": "Calzature"}]},
        "aggregate": {"group_by": "brand"}}});
    let text = call(&t, "lorebase_query", query.clone()).await.text;
    let mut json_args = query;
    json_args["format"] = json!("json");
    let answer = call(&t, "lorebase_query", json_args)
        .await
        .structured
        .unwrap();
    let groups = answer["aggregate"]["groups"].as_array().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // It starts with one `count Product <brand>: <n>` line per value...
    for (line, g) in lines.iter().zip(groups) {
        assert_eq!(
            *line,
            format!(
                "count Product {}: {}",
                g["value"].as_str().unwrap(),
                g["count"]
            )
        );
    }
    // ...then the rows, `ref "title" | attr=value`, then the `rows: N of M`
    // footer and the coverage lines.
    let rows = &lines[groups.len()..];
    let n_rows = answer["rows"].as_array().unwrap().len();
    assert!(n_rows > 0);
    for (line, row) in rows.iter().zip(answer["rows"].as_array().unwrap()) {
        let head = format!(
            "{} \"{}\" | ",
            row["ref"].as_str().unwrap(),
            row["title"].as_str().unwrap()
        );
        assert!(line.starts_with(&head), "{line}");
        assert!(line.contains(&format!(
            "| brand={}",
            row["values"]["brand"].as_str().unwrap()
        )));
    }
    assert_eq!(
        rows[n_rows],
        format!(
            "rows: {n_rows} of {} (rev {}...)",
            answer["total"],
            &answer["revision"].as_str().unwrap()[..12]
        )
    );
    assert!(
        rows[n_rows + 1..]
            .iter()
            .all(|l| l.starts_with("coverage: ") || l.starts_with("next_cursor: "))
    );
    assert!(text.contains("coverage: color missing on"), "{text}");
}
