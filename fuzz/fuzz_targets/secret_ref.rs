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

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (reference, value) = text.split_once('\0').unwrap_or((text, "fuzz-secret-value"));
    let mut env = BTreeMap::new();
    env.insert("HERALD_FUZZ_SECRET".to_string(), value.to_string());
    let path = folder().path().join("secret");
    std::fs::write(&path, value).expect("write the secret file");
    let reference = match reference.strip_prefix("secret://file/") {
        Some(_) => format!("secret://file/{}", path.display()),
        None => reference.to_string(),
    };
    let kept = value.trim_end_matches(['\n', '\r']);
    // The value is checked for when it is not in the reference itself.
    let telling = kept.len() >= 4 && !reference.contains(kept);
    match resolve_secret(&reference, &env) {
        Ok(secret) => {
            let shown = format!("{secret:?} {secret}");
            if telling {
                assert!(!shown.contains(kept), "a secret printed: {shown}");
            }
        }
        Err(e) => {
            if telling {
                assert!(!e.to_string().contains(kept), "a secret in an error: {e}");
            }
        }
    }
});
