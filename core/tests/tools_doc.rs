//! docs/tools.md's reference of every tool (what it does, its arguments
//! with type, default and bounds, its annotations, its Keeper routes and its
//! `json` output's fields) is rendered here from the live tool table, the same definitions
//! `tools/list` sends, and checked against the block between
//! `<!-- tools:begin -->` and `<!-- tools:end -->`.
//! Each tool's declared Keeper routes are checked against what its own
//! example requests on the sandbox.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_doc::`
//! rewrites the block.

use herald_core::config::Settings;
use herald_core::tools::{ToolDefinition, Toolbox, keeper_routes};
use serde_json::{Map, Value};

const BEGIN: &str = "<!-- tools:begin -->";
const END: &str = "<!-- tools:end -->";

/// Every tool the table holds: the Lorebase tools, then the KB tools (served
/// with a catalog), with their output schemas.
fn definitions() -> Vec<ToolDefinition> {
    let catalog = tempfile::tempdir().unwrap();
    std::fs::write(
        catalog.path().join("entry.md"),
        "---\ntitle: A\n---\nbody\n",
    )
    .unwrap();
    let mut settings = Settings::default();
    settings.kb.dir = Some(catalog.path().to_path_buf());
    settings.output.schemas = true;
    Toolbox::new(settings).unwrap().definitions()
}

/// The generated block, markers excluded.
fn render(defs: &[ToolDefinition]) -> String {
    let mut out = String::from(
        "\n<!-- Generated from the tool table by core/tests/tools_doc.rs; do not edit by hand. -->\n",
    );
    out.push_str("\n| tool | what it does | annotations |\n| --- | --- | --- |\n");
    for d in defs {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            d.name,
            cell(&d.title),
            annotations(d)
        ));
    }
    for d in defs {
        out.push_str(&format!("\n### {}\n\n{}.\n\n", d.name, d.title));
        out.push_str(&d.description);
        out.push_str("\n\n");
        out.push_str(&format!("Annotations: {}.\n\n", annotations(d)));
        match keeper_routes(&d.name) {
            Some(routes) => {
                let routes: Vec<String> = routes.iter().map(|r| format!("`{r}`")).collect();
                out.push_str(&format!("Keeper: {}.\n\n", routes.join(", ")));
            }
            None => out.push_str("Keeper: none (the knowledge base is read by Herald).\n\n"),
        }
        out.push_str(
            "| argument | type | required | default | bounds | meaning |\n\
             | --- | --- | --- | --- | --- | --- |\n",
        );
        let schema = &d.input_schema;
        arguments(&mut out, "", schema);
        if let Some(output) = &d.output_schema {
            out.push_str(&format!("\nOutput (`json`): `{}`.\n", fields(output)));
        }
    }
    out.push('\n');
    out
}

fn annotations(d: &ToolDefinition) -> String {
    let a = &d.annotations;
    if a.read_only_hint {
        "read-only".to_string()
    } else {
        let mut words = vec!["writes"];
        if a.destructive_hint {
            words.push("destructive");
        }
        if !a.idempotent_hint {
            words.push("not idempotent");
        }
        words.join(", ")
    }
}

/// One row per argument, then the named fields of an object argument
/// (`query.kind`) under it.
fn arguments(out: &mut String, prefix: &str, schema: &Value) {
    let Some(props) = schema["properties"].as_object() else {
        return;
    };
    let required = required(schema);
    for (name, p) in props {
        let path = format!("{prefix}{name}");
        let meaning = match p.get("description").and_then(Value::as_str) {
            Some(d) => cell(d),
            None if prefix.is_empty() => "shared: see above".to_string(),
            None => String::new(),
        };
        out.push_str(&format!(
            "| `{path}` | {} | {} | {} | {} | {meaning} |\n",
            cell(&type_of(p)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            p.get("default")
                .map(|v| format!("`{v}`"))
                .unwrap_or_default(),
            cell(&bounds(p)),
        ));
        if p["type"] == "object" {
            arguments(out, &format!("{path}."), p);
        }
    }
}

fn type_of(p: &Value) -> String {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match p.get("type") {
        Some(Value::String(t)) if t == "array" => format!("{}[]", type_of(&p["items"])),
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_string(),
    }
}

/// The schema's bounds in words: `1-1000`, `1-20 items`, `length ≤ 1000`.
fn bounds(p: &Value) -> String {
    let n = |k: &str| p.get(k).and_then(Value::as_u64);
    let range = |min: Option<u64>, max: Option<u64>, unit: &str| match (min, max) {
        (Some(a), Some(b)) => Some(format!("{a}-{b}{unit}")),
        (Some(a), None) => Some(format!("at least {a}{unit}")),
        (None, Some(b)) => Some(format!("at most {b}{unit}")),
        (None, None) => None,
    };
    let mut words: Vec<String> = [
        range(n("minimum"), n("maximum"), ""),
        range(n("minItems"), n("maxItems"), " items"),
        match (n("minLength"), n("maxLength")) {
            (Some(1), None) => Some("non-empty".to_string()),
            (min, max) => range(min, max, " chars"),
        },
        n("minProperties").map(|m| format!("at least {m} field(s)")),
        p.get("pattern")
            .and_then(Value::as_str)
            .map(|s| format!("`{s}`")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if let Some(items) = p.get("items") {
        let inner = bounds(items);
        if !inner.is_empty() {
            words.push(format!("each {inner}"));
        }
    }
    words.join(", ")
}

/// The output's top-level fields, `?` after those that may be absent.
fn fields(schema: &Value) -> String {
    let required = required(schema);
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_else(Map::new);
    let names: Vec<String> = props
        .keys()
        .map(|k| {
            if required.contains(&k.as_str()) {
                k.clone()
            } else {
                format!("{k}?")
            }
        })
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// The names `schema` requires.
fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Text made safe for one table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[test]
fn docs_tools_md_lists_every_tool_as_the_table_defines_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tools.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc
        .find(BEGIN)
        .expect("docs/tools.md lacks <!-- tools:begin -->")
        + BEGIN.len();
    let end = doc
        .find(END)
        .expect("docs/tools.md lacks <!-- tools:end -->");
    let actual = render(&definitions());
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let updated = format!("{}{actual}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert!(
        doc[start..end] == actual,
        "docs/tools.md's tool reference differs from the tool table; review the change, then run: \
         UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration tools_doc::"
    );
}

/// The Keeper request counts by route, as the metrics expose them.
fn keeper_requests(toolbox: &Toolbox) -> std::collections::BTreeMap<String, u64> {
    let mut registry = prometheus_client::registry::Registry::with_prefix("herald");
    herald_core::telemetry::metrics::register(
        &mut registry,
        toolbox.call_metrics(),
        toolbox.keeper().metrics(),
    );
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("herald_keeper_requests_total{endpoint=\"") else {
            continue;
        };
        let route = rest.split('"').next().unwrap().to_string();
        let n: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        *counts.entry(route).or_default() += n;
    }
    counts
}

/// What the reference says of each tool's Keeper routes is what it calls:
/// each tool's own example, run on the sandbox, requests only routes it
/// declares, and at least one.
#[tokio::test]
async fn each_tool_calls_only_the_keeper_routes_it_declares() {
    use crate::tools_support::{call, example_of, sandbox_toolbox};
    let (_sandbox, toolbox) = sandbox_toolbox("supply").await;
    for d in toolbox.definitions() {
        let declared = keeper_routes(&d.name).expect("a Lorebase tool");
        let before = keeper_requests(&toolbox);
        call(&toolbox, &d.name, example_of(&d.description)).await;
        let after = keeper_requests(&toolbox);
        let called: Vec<&String> = after
            .iter()
            .filter(|(route, n)| before.get(*route) != Some(*n))
            .map(|(route, _)| route)
            .collect();
        assert!(!called.is_empty(), "{} called no Keeper route", d.name);
        for route in called {
            assert!(
                declared.contains(&route.as_str()),
                "{} called {route}, not among its declared {declared:?}",
                d.name
            );
        }
    }
}
