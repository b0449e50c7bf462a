//! No input panics a handler: random JSON arguments (real argument names with
//! values of any type, and unknown names) to every tool, with Keeper on a
//! closed port. Every answer is a result: an error without structured
//! content, or a success.

use crate::tools_support;

use herald_core::keeper::Credential;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use tools_support::toolbox_on;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("Supplier/S-1001"),
            Just("Kind/"),
            Just("/x"),
            Just("json"),
            Just("text"),
            Just("supply"),
            Just("97ce9a2ce272"),
            Just("ż🦀\u{0}")
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const ARGUMENT_NAMES: &[&str] = &[
    "domain",
    "branch",
    "at",
    "format",
    "ref",
    "records",
    "question",
    "depth",
    "relations",
    "traits",
    "lens",
    "token_budget",
    "kinds",
    "detail",
    "links",
    "text",
    "levels",
    "query_vector",
    "limit",
    "query",
    "cursor",
    "where",
    "seeds",
    "max_nodes",
    "max_edges",
    "values",
    "attributes",
    "since",
    "author",
    "origin_type",
    "from_revision",
    "to_revision",
    "operation",
    "parameters",
    "dry_run",
    "expected_head",
    "idempotency_key",
    "message",
    "task",
    "intent",
    "auto_propose",
    "auto_merge",
    "unknown_arg",
];

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((prop::sample::select(ARGUMENT_NAMES), json_value()), 0..6)
        .prop_map(|pairs| pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_arguments_never_panic_a_handler(args in arguments()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let t = toolbox_on(&format!("http://127.0.0.1:{port}"), "supply", |s| s.keeper.max_retries = 0);
        for def in t.definitions() {
            let out = rt.block_on(t.call(&def.name, args.clone(), &Credential::Configured)).unwrap();
            prop_assert!(!out.text.is_empty());
            if out.is_error {
                prop_assert!(out.structured.is_none());
                prop_assert!(out.text.starts_with('['), "{}", out.text);
            }
        }
    }
}

/// The footer lines an answer ends with, by their prefixes (the renderings'
/// footers: counts, cursors, coverage, truncation, Sources, Proposals,
/// search modes, next steps): the lines a cut must keep.
fn footer_lines(text: &str) -> Vec<&str> {
    const PREFIXES: &[&str] = &[
        "rows: ",
        "next_cursor: ",
        "coverage: ",
        "truncated",
        "SOURCES",
        "PROPOSAL",
        "SEARCH ",
        "next: ",
        "revision: ",
        "proposal: ",
        "unmatched: ",
        "skipped: ",
        "stopped: ",
        "not found: ",
        "trimmed to the budget",
    ];
    let mut lines: Vec<&str> = text
        .lines()
        .rev()
        .take_while(|l| PREFIXES.iter().any(|p| l.starts_with(p)))
        .collect();
    lines.reverse();
    lines
}

/// Every golden case that does not write (a write's second answer differs).
fn read_cases() -> Vec<crate::tools_golden::Case> {
    crate::tools_golden::cases()
        .into_iter()
        .filter(|c| c.args.get("dry_run") != Some(&serde_json::json!(false)))
        .collect()
}

/// A cut text answer of every tool still ends with every footer line the
/// uncut one had, is within `max_chars`, and marks the cut.
#[test]
fn a_cut_text_answer_keeps_its_footer_within_max_chars() {
    use lorebase_sandbox::{Sandbox, SandboxOptions};
    use tools_support::call;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sandbox = rt
        .block_on(Sandbox::start(SandboxOptions::default()))
        .unwrap();
    let cases = read_cases();
    let mut tools: Vec<&str> = cases.iter().map(|c| c.tool).collect();
    tools.dedup();
    assert_eq!(tools.len(), 14, "every Lorebase tool: {tools:?}");
    let uncut: Vec<String> = cases
        .iter()
        .map(|c| {
            let t = toolbox_on(&sandbox.url(), c.domain, |_| {});
            rt.block_on(call(&t, c.tool, c.args.clone())).text
        })
        .collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(64));
    let strategy = (0..cases.len(), 500usize..3000);
    runner
        .run(&strategy, |(i, max)| {
            let (case, whole) = (&cases[i], &uncut[i]);
            let t = toolbox_on(&sandbox.url(), case.domain, |s| s.output.max_chars = max);
            let out = rt.block_on(call(&t, case.tool, case.args.clone()));
            prop_assert!(!out.is_error, "{}", out.text);
            let len = out.text.chars().count();
            prop_assert!(
                len <= max,
                "{} at {max}: {len} chars\n{}",
                case.stem,
                out.text
            );
            if whole.chars().count() <= max {
                prop_assert_eq!(&out.text, whole);
                return Ok(());
            }
            prop_assert!(out.text.contains("[truncated: "), "{}", out.text);
            let footer = footer_lines(whole).join("\n");
            // A footer with the marker line fits: it is kept whole, last.
            if footer.chars().count() + 120 <= max {
                prop_assert!(
                    out.text.ends_with(&footer),
                    "{} at {max} lost its footer {footer:?}:\n{}",
                    case.stem,
                    out.text
                );
            }
            Ok(())
        })
        .unwrap();
}

fn lines(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec("[a-zż🦀 =|:/.-]{0,80}", 0..max).prop_map(|l| l.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any answer, whatever it holds (a remote tool's fenced text, a KB
    /// entry, Herald's own): cut within `max_chars` from the settings'
    /// minimum (500), its head first and its footer last when they fit with the
    /// marker, and never cut silently.
    #[test]
    fn any_cut_text_keeps_its_head_and_footer_within_max_chars(
        head in lines(3), body in lines(40), footer in lines(4), max in 500usize..2500,
    ) {
        use herald_core::render::text::{Text, cut};
        let text = Text { head: head.clone(), body: body.clone(), footer: footer.clone() };
        let whole = text.joined();
        let out = cut(&text, max);
        let len = out.chars().count();
        prop_assert!(len <= max, "{len} > {max}");
        if whole.chars().count() <= max {
            prop_assert_eq!(out, whole);
        } else {
            prop_assert!(out.contains("[truncated: "), "{}", out);
            let marker = 120;
            let (h, f) = (head.chars().count(), footer.chars().count());
            if !footer.is_empty() && !body.is_empty() && h + f + marker + 2 <= max {
                prop_assert!(out.ends_with(&format!("\n{footer}")), "{}", out);
            }
            if !head.is_empty() && h + f + marker + 2 <= max {
                prop_assert!(out.starts_with(&format!("{head}\n")), "{}", out);
            }
        }
    }
}

/// The KB tools' text answers are within `max_chars` too, from the minimum,
/// and marked when cut.
#[test]
fn kb_answers_are_cut_within_max_chars() {
    use crate::kb_support::{entry, open, write};
    let dir = tempfile::tempdir().unwrap();
    for i in 0..30 {
        let body = format!("The disk of node {i} fills up. {}", "żółw ".repeat(700));
        let fields = format!(
            "type: runbook\ntitle: Disk full on node {i}\ndescription: {}",
            "d".repeat(120)
        );
        write(dir.path(), &format!("n{i}.md"), &entry(&fields, &body));
    }
    let catalog = open(dir.path());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(48));
    let calls = [
        (
            "kb_search",
            serde_json::json!({"query": "disk node", "k": 20}),
        ),
        ("kb_get", serde_json::json!({"path": "n7.md"})),
    ];
    runner
        .run(&(0..calls.len(), 500usize..3000), |(i, max)| {
            let (name, args) = &calls[i];
            let caps = herald_core::config::OutputSettings {
                max_chars: max,
                ..crate::kb_support::caps()
            };
            let args = args.as_object().unwrap().clone();
            let out = herald_core::tools::kb::call(&catalog, name, &args, &caps).unwrap();
            prop_assert!(!out.is_error, "{}", out.text);
            prop_assert!(out.text.chars().count() <= max, "{name} at {max}");
            prop_assert!(out.text.contains("[truncated: "), "{name} at {max} is cut");
            Ok(())
        })
        .unwrap();
}
