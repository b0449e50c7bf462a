//! Shared helpers of the KB tests: catalog folders on disk, log capture, tool
//! calls.

#![allow(dead_code)]

use crate::log_capture;

use std::path::Path;

use herald_core::config::OutputSettings;
use herald_core::kb::{KbCatalog, KbOptions};
use herald_core::tools::RenderedOutput;
use serde_json::{Map, Value};

/// Writes `text` at `dir/relative`, creating folders.
pub(crate) fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// An entry with frontmatter `fields` (YAML lines) and `body`.
pub(crate) fn entry(fields: &str, body: &str) -> String {
    format!("---\n{fields}\n---\n\n{body}\n")
}

/// Opens `dir` without a watcher.
pub(crate) fn open(dir: &Path) -> KbCatalog {
    KbCatalog::open_with(
        dir,
        KbOptions {
            watch: false,
            ..KbOptions::default()
        },
    )
    .expect("the catalog opens")
}

/// The default output caps.
pub(crate) fn caps() -> OutputSettings {
    herald_core::config::Settings::default().output
}

/// Calls a KB tool with JSON arguments.
pub(crate) fn call(catalog: &KbCatalog, name: &str, arguments: Value) -> RenderedOutput {
    let arguments: Map<String, Value> = match arguments {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    };
    herald_core::tools::kb::call(catalog, name, &arguments, &caps()).expect("a KB tool")
}

/// The JSON answer of a KB tool call (format json).
pub(crate) fn call_json(catalog: &KbCatalog, name: &str, mut arguments: Value) -> Value {
    arguments["format"] = Value::String("json".into());
    let output = call(catalog, name, arguments);
    assert!(!output.is_error, "unexpected tool error: {}", output.text);
    let structured = output.structured.expect("structured content");
    let text: Value = serde_json::from_str(&output.text).expect("the text block is JSON");
    assert_eq!(text, structured);
    structured
}

/// Runs `f` with this thread's logs captured (plain text, one line per
/// event, INFO and more severe).
pub(crate) fn capture_logs<T>(f: impl FnOnce() -> T) -> (T, String) {
    let (captured, guard) = log_capture::Captured::start_up_to(tracing::Level::INFO);
    let result = f();
    drop(guard);
    (result, captured.text())
}

/// The paths of a `kb_search` JSON answer, in order.
pub(crate) fn hit_paths(answer: &Value) -> Vec<String> {
    answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| hit["path"].as_str().expect("a path").to_string())
        .collect()
}
