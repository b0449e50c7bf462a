//! Record refs (`Kind/key`): a parsed ref prints as the text it came from
//! and parses again to itself; any text as `lorebase_get`'s `ref` gives a
//! well-formed answer within the caps.
#![no_main]

use herald_core::keeper::model::RecordRef;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.parse::<RecordRef>() {
        Ok(record) => {
            assert_eq!(record.to_string(), text);
            assert_eq!(text.parse::<RecordRef>().ok(), Some(record));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    let mut arguments = Map::new();
    arguments.insert("ref".into(), Value::String(text.to_string()));
    herald_fuzz::call_and_check("lorebase_get", arguments);
});
