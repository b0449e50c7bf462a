//! Herald core's integration tests, linked into one test binary.
//!
//! Each file under `tests/` would otherwise be a binary of its own: every one
//! links the whole dependency graph again (about 140 MB and seconds of link
//! time apiece), which is most of the disk and time a clean `cargo test`
//! takes. The files stay one concern each, as modules of this crate; run one
//! with a filter, e.g. `cargo test -p lorebase-herald-core --test integration tools_list::`.

mod kb_support;
mod log_capture;
mod remote_support;
mod tools_support;

mod config_settings;
mod errors_render;
mod kb_catalog;
mod kb_ranking;
mod kb_reload;
mod kb_tools;
mod keeper_client;
mod keeper_limits;
mod keeper_retries;
mod keeper_secrets;
mod remote_credentials;
mod remote_tools;
mod settings_keys_spelled_once;
mod settings_reference;
mod telemetry_calls;
mod tools_caps;
mod tools_doc;
mod tools_errors;
mod tools_golden;
mod tools_hostile_text;
mod tools_list;
mod tools_newer_keeper;
mod tools_proptest;
mod tools_search;

/// `autotests = false` (Cargo.toml): a file under `tests/` runs only when a
/// `mod` line above names it. This fails when one does not, so a new test
/// file cannot be silently left out.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("integration.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            path.join("mod.rs").exists()
        } else {
            path.extension().is_some_and(|e| e == "rs") && name != "integration"
        };
        if module && !this.lines().any(|l| l.trim() == format!("mod {name};")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "add `mod NAME;` to tests/integration.rs for: {missing:?}"
    );
}
