//! The surfaces generated from the settings table ([`super::table`]): the
//! example file (`config/lorebase.example.yaml`), the settings reference
//! (`docs/settings.md`), the Node options' table of `npm/README.md` and
//! declarations of `npm/index.d.ts`, and the short variables' and Python
//! keywords' table of `python/README.md`. Each takes the table as input, so a test
//! can hand it one more entry and find it on every surface; the checked-in
//! files are compared with the real table's output by the tests of
//! `core/tests/config_settings.rs`, which rewrite them under
//! `UPDATE_EXAMPLE=1` / `UPDATE_SNAPSHOTS=1`.

use std::fmt::Write as _;

use super::entry::{Group, Key};
use super::keys::{groups, section_of};
use super::layers::ENV_PREFIX;
use super::table::HEADER;

/// The text of `config/lorebase.example.yaml`: every key with its comment and
/// its default, generated from the settings table.
pub fn example_yaml() -> String {
    example_yaml_of(groups())
}

/// `docs/settings.md`: every key with its type, default, bound, comment and
/// spellings, generated from the settings table.
pub fn settings_reference() -> String {
    settings_reference_of(groups())
}

/// The table of the Node options in `npm/README.md` (between its markers).
pub fn node_options_table() -> String {
    node_options_table_of(groups())
}

/// The table of the short variables and the Python keywords in
/// `python/README.md` (between its markers).
pub fn python_settings_table() -> String {
    python_settings_table_of(groups())
}

/// The property lines of `HeraldOptions` in `npm/index.d.ts` that stand for a
/// settings key (`  baseUrl?: string`), in order.
pub fn node_option_declarations() -> Vec<String> {
    node_option_declarations_of(groups())
}

fn comment(out: &mut String, indent: &str, lines: impl IntoIterator<Item = impl AsRef<str>>) {
    for line in lines {
        let line = line.as_ref();
        let sep = if line.is_empty() { "" } else { " " };
        let _ = writeln!(out, "{indent}#{sep}{line}");
    }
}

/// [`example_yaml`] of `groups`.
pub(super) fn example_yaml_of(groups: &[Group]) -> String {
    let mut out = String::new();
    comment(&mut out, "", HEADER);
    out.push_str("\nherald:\n");
    for (i, group) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        comment(&mut out, "  ", group.doc);
        let section = group.keys.first().and_then(|k| section_of(k.key()));
        let indent = match section {
            Some(section) => {
                let _ = writeln!(out, "  {section}:");
                "    "
            }
            None => "  ",
        };
        for key in group.keys {
            comment(&mut out, indent, key.doc_lines());
            let name = key.key().rsplit('.').next().unwrap_or(key.key());
            let _ = writeln!(out, "{indent}{name}: {}", key.default);
        }
    }
    out
}

/// The long variable of a key (`LOREBASE__HERALD__HTTP__PORT`).
fn long_variable(key: &Key) -> String {
    format!(
        "{ENV_PREFIX}{}",
        key.key().replace('.', "__").to_ascii_uppercase()
    )
}

/// `text` in backticks, or a dash when there is none.
fn code_or_dash(text: Option<String>) -> String {
    text.map_or_else(|| "-".to_string(), |t| format!("`{t}`"))
}

/// A key's bound as the reference shows it (`0 to 10`).
fn bound_text(key: &Key) -> String {
    key.bound
        .map_or_else(|| "-".to_string(), |b| format!("{} to {}", b.min, b.max))
}

/// [`settings_reference`] of `groups`.
pub(super) fn settings_reference_of(groups: &[Group]) -> String {
    let mut out = String::from(
        "# Settings reference\n\n\
         <!-- Generated from the settings table (core/src/config/table.rs); do not edit.\n\
         \x20    Regenerate: UPDATE_SNAPSHOTS=1 cargo test -p lorebase-herald-core --test integration settings_reference:: -->\n\n\
         Every key of the `herald` section of the Lorebase settings: its type, its default, the values it\n\
         accepts, what it does, and the other names that set it. `config/lorebase.example.yaml` shows the\n\
         same keys with their defaults, under this header:\n\n```text\n",
    );
    for line in HEADER {
        let _ = writeln!(out, "{line}");
    }
    out.push_str(
        "```\n\n| key | type | default | bound | short variable | flag | Node option | Python keyword |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for key in groups.iter().flat_map(|g| g.keys) {
        let s = &key.spellings;
        let python = (!s.python.is_empty()).then(|| s.python.join("`, `"));
        let _ = writeln!(
            out,
            "| [`{name}`](#{anchor}) | {kind} | `{default}` | {bound} | {env} | {flag} | {node} | {python} |",
            name = key.key(),
            anchor = key.key().replace('.', ""),
            kind = key.kind.reference_name(),
            default = key.default,
            bound = bound_text(key),
            env = code_or_dash(s.env.map(str::to_string)),
            flag = code_or_dash(s.flag.map(|f| format!("--{}", f.name))),
            node = code_or_dash(s.node.map(str::to_string)),
            python = code_or_dash(python),
        );
    }
    for group in groups {
        let section = group.keys.first().and_then(|k| section_of(k.key()));
        let _ = write!(out, "\n## {}\n", section.unwrap_or("Top-level keys"));
        if !group.doc.is_empty() {
            out.push('\n');
            for line in group.doc {
                let _ = writeln!(out, "{line}");
            }
        }
        for key in group.keys {
            let _ = write!(
                out,
                "\n### {}\n\n{}, default `{}`",
                key.key(),
                key.kind.reference_name(),
                key.default
            );
            if key.bound.is_some() {
                let _ = write!(out, ", from {}", bound_text(key));
            }
            let _ = writeln!(out, ". Variable `{}`.", long_variable(key));
            let s = &key.spellings;
            let mut names = Vec::new();
            if let Some(env) = s.env {
                names.push(format!("short variable `{env}`"));
            }
            if let Some(flag) = s.flag {
                names.push(format!("flag `--{}`", flag.name));
            }
            if let Some(node) = s.node {
                names.push(format!("Node option `{node}`"));
            }
            for python in s.python {
                names.push(format!("Python keyword `{python}`"));
            }
            if !names.is_empty() {
                let _ = writeln!(out, "Also set by: {}.", names.join("; "));
            }
            let doc = key.doc_lines();
            if !doc.is_empty() {
                out.push_str("\n```text\n");
                for line in doc {
                    let _ = writeln!(out, "{line}");
                }
                out.push_str("```\n");
            }
        }
    }
    out
}

/// [`node_options_table`] of `groups`.
pub(super) fn node_options_table_of(groups: &[Group]) -> String {
    let mut out = String::from(
        "| option | type | settings key | default | bound |\n| --- | --- | --- | --- | --- |\n",
    );
    for key in groups.iter().flat_map(|g| g.keys) {
        if let Some(node) = key.spellings.node {
            let _ = writeln!(
                out,
                "| `{node}` | `{}` | `{}` | `{}` | {} |",
                key.kind.typescript(),
                key.key(),
                key.default,
                bound_text(key),
            );
        }
    }
    out
}

/// [`node_option_declarations`] of `groups`.
pub(super) fn node_option_declarations_of(groups: &[Group]) -> Vec<String> {
    groups
        .iter()
        .flat_map(|g| g.keys)
        .filter_map(|key| {
            let node = key.spellings.node?;
            Some(format!("  {node}?: {}", key.kind.typescript()))
        })
        .collect()
}

/// [`python_settings_table`] of `groups`.
pub(super) fn python_settings_table_of(groups: &[Group]) -> String {
    let mut out = String::from(
        "| variable or keyword | setting | type | default |\n| --- | --- | --- | --- |\n",
    );
    let keys = || groups.iter().flat_map(|g| g.keys);
    let rows = keys()
        .filter_map(|key| Some((format!("`{}`", key.spellings.env?), key)))
        .chain(keys().flat_map(|key| {
            key.spellings
                .python
                .iter()
                .map(move |keyword| (format!("`Herald({keyword}=...)`"), key))
        }));
    for (name, key) in rows {
        let _ = writeln!(
            out,
            "| {name} | `{}` | {} | `{}` |",
            key.key(),
            key.kind.reference_name(),
            key.default
        );
    }
    out
}
