//! The checked-in header `include/lorebase_herald.h` is what cbindgen makes of
//! the crate today. Set `LOREBASE_HERALD_BLESS=1` to rewrite it after changing
//! the API.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn generate() -> String {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut builder = cbindgen::Builder::new().with_config(config);
    // Every source file of the crate, in a stable order (cbindgen keeps the
    // items of the C API, wherever they are declared).
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir.join("src"))
        .expect("src/")
        .map(|entry| entry.expect("src/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    sources.sort();
    for source in sources {
        builder = builder.with_src(source);
    }
    let mut header = Vec::new();
    builder
        .generate()
        .expect("cbindgen parses the crate")
        .write(&mut header);
    String::from_utf8(header).expect("the header is UTF-8")
}

#[test]
fn the_checked_in_header_is_current() {
    let path = crate_dir().join("include/lorebase_herald.h");
    let generated = generate();
    if std::env::var_os("LOREBASE_HERALD_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is stale: regenerate it with `LOREBASE_HERALD_BLESS=1 cargo test -p lorebase-herald-capi --test header`\n\
         first difference at line {}",
        relative(&path),
        first_difference(&checked_in, &generated),
    );
}

#[test]
fn the_header_declares_the_whole_api() {
    let generated = generate();
    for name in [
        "lorebase_herald_new",
        "lorebase_herald_free",
        "lorebase_herald_tools",
        "lorebase_herald_call",
        "lorebase_herald_call_with_key",
        "lorebase_herald_string_free",
        "lorebase_herald_last_error_code",
        "lorebase_herald_last_error_message",
        "lorebase_herald_version",
        "typedef struct LorebaseHerald LorebaseHerald;",
        "LOREBASE_HERALD_ERROR_CODE_INTERNAL = 8",
        "LOREBASE_HERALD_ERROR_CODE_CANCELLED = 9",
    ] {
        assert!(generated.contains(name), "the header lacks {name}");
    }
}

fn relative(path: &Path) -> String {
    path.strip_prefix(crate_dir().parent().unwrap_or(Path::new("/")))
        .unwrap_or(path)
        .display()
        .to_string()
}

fn first_difference(a: &str, b: &str) -> usize {
    a.lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
        + 1
}
