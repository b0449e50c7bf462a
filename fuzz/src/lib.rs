//! What Herald's fuzz targets share: one runtime, one toolbox whose Keeper
//! never answers (a refused loopback port, no retry: every call fails fast
//! after its arguments were checked), and the checks every tool answer must
//! pass. See `docs/reliability.md`, "Fuzzing".

use std::sync::OnceLock;

use herald_core::config::{OutputSettings, Settings};
use herald_core::keeper::Credential;
use herald_core::tools::{RenderedOutput, Toolbox};
use serde_json::{Map, Value};
use tokio::runtime::Runtime;

/// The runtime every target's async work runs on.
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        herald_core::runtime::multi_thread("fuzz", Some(1)).expect("a Tokio runtime")
    })
}

/// The settings of the fuzzed Herald: Domain `supply`, Keeper on a port
/// nothing listens on, no retry.
pub fn settings() -> Settings {
    let mut settings = Settings::default();
    settings.keeper.base_url = "http://127.0.0.1:9".into();
    settings.keeper.max_retries = 0;
    settings.domain = Some("supply".into());
    settings
}

/// The toolbox of [`settings`] (built once).
pub fn toolbox() -> &'static Toolbox {
    static TOOLBOX: OnceLock<Toolbox> = OnceLock::new();
    TOOLBOX.get_or_init(|| {
        let _guard = runtime().enter();
        Toolbox::new(settings()).expect("the toolbox")
    })
}

/// The names of the tools served, in table order.
pub fn tool_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        toolbox()
            .definitions()
            .into_iter()
            .map(|d| d.name)
            .collect()
    })
}

/// Calls `name` with `arguments` and checks the answer ([`check_output`]).
pub fn call_and_check(name: &str, arguments: Map<String, Value>) -> RenderedOutput {
    let out = runtime()
        .block_on(toolbox().call(name, arguments, &Credential::Configured))
        .expect("a served tool");
    check_output(&out, &toolbox().settings().output);
    out
}

/// What every tool answer must be: a failure is `[code] message`, issue
/// lines, `next: ...` last, within `max_chars` unless only the head and
/// next lines (each bounded by `max_value_chars`) are left; a text success
/// is within `max_chars`.
pub fn check_output(out: &RenderedOutput, caps: &OutputSettings) {
    let chars = out.text.chars().count();
    if !out.is_error {
        if out.structured.is_none() || !out.text.starts_with('{') {
            assert!(chars <= caps.max_chars, "a text answer of {chars} chars");
        }
        return;
    }
    let lines: Vec<&str> = out.text.split('\n').collect();
    let head = lines[0];
    assert!(
        head.starts_with('[') && head.contains("] "),
        "head: {head:?}"
    );
    let last = lines[lines.len() - 1];
    assert!(last.starts_with("next: "), "last line: {last:?}");
    assert!(
        chars <= caps.max_chars || lines.len() <= 3,
        "an error of {chars} chars, {} lines",
        lines.len()
    );
    // A field is at most max_value_chars plus its cut marker.
    let longest_line = 2 * caps.max_value_chars + 256;
    for line in &lines {
        assert!(
            line.chars().count() <= longest_line,
            "a line of {} chars",
            line.chars().count()
        );
    }
}
