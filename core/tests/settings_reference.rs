//! The files generated from the settings table (`core/src/config/table.rs`)
//! are what it generates: `docs/settings.md` whole, the Node options' table
//! of `npm/README.md` between `<!-- node-options:begin -->` and
//! `<!-- node-options:end -->`, the short variables' and Python keywords'
//! table of `python/README.md` between `<!-- settings:begin -->` and
//! `<!-- settings:end -->`, and the options of `HeraldOptions` that
//! stand for a key in `npm/index.d.ts` (which napi generates from the
//! binding's struct; this holds that struct to the table). The example file
//! has its own check in `config_settings`.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration settings_reference::`
//! rewrites `docs/settings.md` and the READMEs' tables.

use std::path::{Path, PathBuf};

use herald_core::config::{
    SettingKey, node_option_declarations, node_options_table, python_settings_table,
    settings_reference,
};

const REGENERATE: &str =
    "UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration settings_reference::";

fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// Compares `generated` with the part of `relative` between `begin` and
/// `end` (the whole file without markers), or rewrites it under
/// `UPDATE_SNAPSHOTS`.
fn check_generated(relative: &str, markers: Option<(&str, &str)>, generated: &str) {
    let path = repo_file(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (start, end) = match markers {
        Some((begin, end)) => (
            text.find(begin)
                .unwrap_or_else(|| panic!("{relative} lacks {begin}"))
                + begin.len(),
            text.find(end)
                .unwrap_or_else(|| panic!("{relative} lacks {end}")),
        ),
        None => (0, text.len()),
    };
    let wanted = match markers {
        Some(_) => format!("\n{generated}"),
        None => generated.to_string(),
    };
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, format!("{}{wanted}{}", &text[..start], &text[end..])).unwrap();
        return;
    }
    assert!(
        text[start..end] == wanted,
        "{relative} differs from the settings table (core/src/config/table.rs); review the \
         change, then run: {REGENERATE}"
    );
}

#[test]
fn docs_settings_md_is_generated_from_the_settings_table() {
    check_generated("docs/settings.md", None, &settings_reference());
}

#[test]
fn the_npm_readme_options_table_is_generated_from_the_settings_table() {
    check_generated(
        "npm/README.md",
        Some(("<!-- node-options:begin -->", "<!-- node-options:end -->")),
        &node_options_table(),
    );
}

#[test]
fn the_python_readme_settings_table_is_generated_from_the_settings_table() {
    check_generated(
        "python/README.md",
        Some(("<!-- settings:begin -->", "<!-- settings:end -->")),
        &python_settings_table(),
    );
}

/// `HeraldOptions` in `npm/index.d.ts` declares the table's Node options, in
/// its order and with the type of their key, besides `configFile` and
/// `settings`, and each one's comment names the key it sets.
#[test]
fn index_d_ts_declares_the_node_options_of_the_settings_table() {
    let dts = std::fs::read_to_string(repo_file("npm/index.d.ts")).unwrap();
    let options = dts
        .split("export interface HeraldOptions {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("npm/index.d.ts declares HeraldOptions");
    let mut declared = Vec::new();
    let mut comment = String::new();
    for line in options.lines() {
        if line.starts_with("  ") && line.contains("?: ") && !line.trim_start().starts_with('*') {
            if !line.starts_with("  configFile?:") && !line.starts_with("  settings?:") {
                declared.push((line.to_string(), std::mem::take(&mut comment)));
            }
            comment.clear();
        } else {
            comment.push_str(line);
        }
    }
    let lines: Vec<&str> = declared.iter().map(|(line, _)| line.as_str()).collect();
    assert_eq!(
        lines,
        node_option_declarations(),
        "npm/index.d.ts's HeraldOptions (from bindings-node/src/options.rs) differs from the \
         settings table's Node options"
    );
    let keys = SettingKey::ALL
        .iter()
        .filter(|k| herald_core::config::aliases::node_option(**k).is_some());
    for ((line, comment), key) in declared.iter().zip(keys) {
        assert!(
            comment.contains(&format!("`herald.{key}`")),
            "the comment of {line} does not name `herald.{key}`: {comment}"
        );
    }
}
