//! No settings key is spelled outside the settings table
//! (`core/src/config/table.rs`): the server, the core and the bindings name a
//! key by its type (`SettingKey::HttpPort`, its `Display` in a message), so a
//! mistyped key does not compile. This reads every string literal of the
//! product's sources (Rust, Python, JavaScript; comments are prose and may
//! name keys) and fails on one that holds a dotted key (`http.port`, also
//! inside a sentence: `"http.port is 0"`). The top-level keys (`domain`,
//! `branch`, `transport`) are also argument names and words, so a string
//! cannot tell them apart: for them the typed setters (`Overrides::set`
//! takes a `SettingKey`) are the check. Tests may spell keys: they assert
//! what operators read.

use std::path::{Path, PathBuf};

use herald_core::config::keys;

/// The sources read, below the workspace root.
const SOURCES: &[&str] = &[
    "core/src",
    "server/src",
    "bindings-node/src",
    "bindings-python/src",
    "bindings-c/src",
    "python/lorebase_herald",
    "npm/index.js",
    "npm/native.js",
    "npm/adapters",
];

/// The settings table, where each key is spelled once.
const TABLE: &str = "core/src/config/table.rs";

/// How a language writes comments and strings.
struct Syntax {
    line_comment: &'static str,
    block_comments: bool,
    quotes: &'static [char],
    rust: bool,
}

const RUST: Syntax = Syntax {
    line_comment: "//",
    block_comments: true,
    quotes: &['"'],
    rust: true,
};
const PYTHON: Syntax = Syntax {
    line_comment: "#",
    block_comments: false,
    quotes: &['"', '\''],
    rust: false,
};
const JAVASCRIPT: Syntax = Syntax {
    line_comment: "//",
    block_comments: true,
    quotes: &['"', '\'', '`'],
    rust: false,
};

/// The string literals of `text`, each with the line it starts on.
fn string_literals(text: &str, syntax: &Syntax) -> Vec<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '\n' {
            line += 1;
            i += 1;
        } else if starts(i, syntax.line_comment) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if syntax.block_comments && starts(i, "/*") {
            i += 2;
            while i < chars.len() && !starts(i, "*/") {
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
        } else if syntax.rust && c == '\'' {
            // A char literal ('"', '\''), else a lifetime or label.
            match (chars.get(i + 1), chars.get(i + 2)) {
                (Some('\\'), _) => {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                }
                (Some(_), Some('\'')) => i += 3,
                _ => i += 1,
            }
        } else if syntax.rust
            && c == 'r'
            && !word_before
            && matches!(chars.get(i + 1), Some('"' | '#'))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let (start, first_line) = (j + 1, line);
            j = start;
            while j < chars.len() && !starts(j, &close) {
                line += usize::from(chars[j] == '\n');
                j += 1;
            }
            out.push((
                first_line,
                chars[start..j.min(chars.len())].iter().collect(),
            ));
            i = j + close.chars().count();
        } else if syntax.quotes.contains(&c) {
            let (first_line, mut j, mut content) = (line, i + 1, String::new());
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' {
                    j += 1;
                }
                if let Some(&ch) = chars.get(j) {
                    line += usize::from(ch == '\n');
                    content.push(ch);
                }
                j += 1;
            }
            out.push((first_line, content));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `text` holds `key` as a whole name (not `http.port_x`).
fn names(text: &str, key: &str) -> bool {
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(key).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + key.len()..].chars().next();
        !before.is_some_and(is_name) && !after.is_some_and(is_name)
    })
}

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            if entry.file_name().is_some_and(|n| n != "node_modules") {
                files(&entry, out);
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
}

/// Every dotted key spelled in a string of `text`, as `line: key`.
fn spellings(text: &str, syntax: &Syntax) -> Vec<String> {
    let dotted: Vec<&str> = keys().filter(|k| k.contains('.')).collect();
    let mut found = Vec::new();
    for (line, literal) in string_literals(text, syntax) {
        for key in dotted.iter().filter(|k| names(&literal, k)) {
            found.push(format!("{line}: {key} in {literal:?}"));
        }
    }
    found
}

#[test]
fn no_settings_key_is_spelled_outside_its_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = Vec::new();
    for source in SOURCES {
        files(&root.join(source), &mut paths);
    }
    let mut found = Vec::new();
    for path in &paths {
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let syntax = match path.extension().and_then(|e| e.to_str()) {
            _ if relative == TABLE => continue,
            Some("rs") => &RUST,
            Some("py" | "pyi") => &PYTHON,
            Some("js" | "mjs" | "cjs") => &JAVASCRIPT,
            _ => continue,
        };
        let text = std::fs::read_to_string(path).unwrap();
        for spelling in spellings(&text, syntax) {
            found.push(format!("{relative}:{spelling}"));
        }
    }
    assert!(paths.len() > 100, "the sources were found: {}", paths.len());
    assert!(
        found.is_empty(),
        "settings keys spelled outside {TABLE} (name them by herald_core::config::SettingKey, \
         or the bindings' settingOptions() / setting_keywords()):\n{}",
        found.join("\n")
    );
}

/// The check sees a key in a string, in a sentence and in each language,
/// and not in a comment, a longer name or a field access.
#[test]
fn the_check_finds_keys_in_strings_only() {
    let rust = "// http.port in a comment\n/* keeper.base_url */ let a = s.http.port;\n\
                let b = \"http.port\"; let c = r#\"x \"keeper.base_url\" y\"#;\n\
                let d = format!(\"{}: tools.allow names\", '\"'); let e = \"http.port_x\";";
    assert_eq!(
        spellings(rust, &RUST),
        [
            "3: http.port in \"http.port\"",
            "3: keeper.base_url in \"x \\\"keeper.base_url\\\" y\"",
            "4: tools.allow in \"{}: tools.allow names\"",
        ]
    );
    let python = "# keeper.base_url\nx = ('keeper', 'base_url')\ny = \"keeper.api_key\"\n";
    assert_eq!(
        spellings(python, &PYTHON),
        ["3: keeper.api_key in \"keeper.api_key\""]
    );
    let js = "// http.port\nconst k = `output.max_chars`\n";
    assert_eq!(
        spellings(js, &JAVASCRIPT),
        ["2: output.max_chars in \"output.max_chars\""]
    );
}
