//! `secret://` references: the input is a reference, a NUL byte, then the
//! secret's value (in the variable `HERALD_FUZZ_SECRET`, and in the file
//! every `secret://file/...` reference is pointed at, so nothing outside the
//! fuzzer's temporary folder is read). A resolved secret prints as `***`;
//! an error names the reference, never the value.
#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use herald_core::config::resolve_secret;
use libfuzzer_sys::fuzz_target;

/// The folder of the secret file.
fn folder() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("a temporary folder"))
}

/// Resolves `reference` with `value` as the secret (in the variable and in
/// the file); the resolved secret's printouts or the error, as text.
fn shown(reference: &str, value: &str) -> String {
    let mut env = BTreeMap::new();
    env.insert("HERALD_FUZZ_SECRET".to_string(), value.to_string());
    std::fs::write(folder().path().join("secret"), value).expect("write the secret file");
    match resolve_secret(reference, &env) {
        Ok(secret) => format!("{secret:?} {secret}"),
        Err(e) => e.to_string(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (reference, value) = text.split_once('\0').unwrap_or((text, "fuzz-secret-value"));
    let path = folder().path().join("secret");
    let reference = match reference.strip_prefix("secret://file/") {
        Some(_) => format!("secret://file/{}", path.display()),
        None => reference.to_string(),
    };
    let kept = value.trim_end_matches(['\n', '\r']);
    if kept.len() < 4 {
        return;
    }
    // The value may show only where any value would show the same text (the
    // reference itself, the error's fixed wording): resolved again with
    // another value, the text must still contain it.
    let with_value = shown(&reference, value);
    if with_value.contains(kept) {
        let with_other = shown(&reference, "\u{1}another value\u{1}");
        assert!(
            with_other.contains(kept),
            "the secret value shows: {with_value}"
        );
    }
});
