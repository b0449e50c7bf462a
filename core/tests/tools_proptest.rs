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
