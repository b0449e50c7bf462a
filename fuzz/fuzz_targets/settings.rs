//! The settings loader (YAML file + environment): the input is a YAML file,
//! a NUL byte, then `NAME=value` lines for the environment. Loading never
//! panics; the configured API key never shows in an error or in the
//! settings' debug print (when it is not also another setting's value).
#![no_main]

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::OnceLock;

use herald_core::config::{CONFIG_FILE_VAR, Overrides, Settings};
use libfuzzer_sys::fuzz_target;

/// The YAML file every run rewrites.
fn yaml_file() -> &'static tempfile::NamedTempFile {
    static FILE: OnceLock<tempfile::NamedTempFile> = OnceLock::new();
    FILE.get_or_init(|| tempfile::NamedTempFile::new().expect("a temporary file"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (yaml, env_text) = text.split_once('\0').unwrap_or((text, ""));
    let file = yaml_file();
    let mut handle = file.reopen().expect("the file");
    handle.set_len(0).expect("truncate");
    handle.write_all(yaml.as_bytes()).expect("write");
    let mut env: BTreeMap<String, String> = env_text
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.insert(
        CONFIG_FILE_VAR.into(),
        file.path().to_string_lossy().into_owned(),
    );
    let key = env.get("LOREBASE_API_KEY").cloned().unwrap_or_default();
    // A key written once in the input, long enough not to be a common word.
    let secret =
        key.len() >= 8 && !key.starts_with("secret://") && text.matches(key.as_str()).count() == 1;
    let with_key = shown(&env);
    if secret && with_key.contains(&key) {
        // Only where any key would show the same text (the error's fixed
        // wording, another setting's value): loaded again with another key,
        // the text must still contain it.
        env.insert("LOREBASE_API_KEY".into(), "\u{1}another key\u{1}".into());
        assert!(shown(&env).contains(&key), "the API key shows: {with_key}");
    }
});

/// The settings' debug print, or the error, as text.
fn shown(env: &BTreeMap<String, String>) -> String {
    match Settings::load_with_env(env, &Overrides::new()) {
        Ok(settings) => format!("{settings:?}"),
        Err(e) => e.to_string(),
    }
}
