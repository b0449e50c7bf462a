//! The query DSL: any JSON as a `Query` (a parsed query serializes back to
//! the same query), then as `lorebase_query`'s `query` argument (checked
//! before Keeper; the answer well formed and within the caps).
#![no_main]

use herald_core::keeper::model::Query;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    if let Ok(query) = serde_json::from_value::<Query>(value.clone()) {
        let written = serde_json::to_value(&query).expect("a query serializes");
        let again: Query = serde_json::from_value(written).expect("a written query parses");
        assert_eq!(query, again);
    }
    let mut arguments = Map::new();
    arguments.insert("query".into(), value);
    herald_fuzz::call_and_check("lorebase_query", arguments);
});
