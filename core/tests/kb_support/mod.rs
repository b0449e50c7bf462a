//! Shared helpers of the KB tests: catalog folders on disk, log capture, tool
//! calls.

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use herald_core::config::OutputSettings;
use herald_core::kb::{KbCatalog, KbOptions};
use herald_core::tools::RenderedOutput;
use serde_json::{Map, Value};

/// Writes `text` at `dir/relative`, creating folders.
pub fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// An entry with frontmatter `fields` (YAML lines) and `body`.
pub fn entry(fields: &str, body: &str) -> String {
    format!("---\n{fields}\n---\n\n{body}\n")
}

/// Opens `dir` without a watcher.
pub fn open(dir: &Path) -> KbCatalog {
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
pub fn caps() -> OutputSettings {
    herald_core::config::Settings::default().output
}

/// Calls a KB tool with JSON arguments.
pub fn call(catalog: &KbCatalog, name: &str, arguments: Value) -> RenderedOutput {
    let arguments: Map<String, Value> = match arguments {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    };
    herald_core::kb::tools::call(catalog, name, &arguments, &caps()).expect("a KB tool")
}

/// The JSON answer of a KB tool call (format json).
pub fn call_json(catalog: &KbCatalog, name: &str, mut arguments: Value) -> Value {
    arguments["format"] = Value::String("json".into());
    let output = call(catalog, name, arguments);
    assert!(!output.is_error, "unexpected tool error: {}", output.text);
    let structured = output.structured.expect("structured content");
    let text: Value = serde_json::from_str(&output.text).expect("the text block is JSON");
    assert_eq!(text, structured);
    structured
}

#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` with this thread's logs captured (plain text, one line per event).
pub fn capture_logs<T>(f: impl FnOnce() -> T) -> (T, String) {
    let buffer = LogBuffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    let result = tracing::subscriber::with_default(subscriber, f);
    let logs = String::from_utf8(buffer.0.lock().expect("log lock").clone()).expect("UTF-8 logs");
    (result, logs)
}

/// The paths of a `kb_search` JSON answer, in order.
pub fn hit_paths(answer: &Value) -> Vec<String> {
    answer["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|hit| hit["path"].as_str().expect("a path").to_string())
        .collect()
}
