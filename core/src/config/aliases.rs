//! The other names of settings keys, in one table: each command-line flag,
//! Node option (`new Herald({...})`) and Python keyword (`Herald(...)`) that
//! stands for a key, beside the key it sets ([`SettingKey`]). The server's
//! flags, the Node binding's options and the Python package's keywords are
//! read from it (the bindings hand it on: `settingOptions()`,
//! `_native.setting_keywords()`), so none of them spells a key again.
//! Like the flag tables of uv and ripgrep.

use super::keys::SettingKey;

/// The names standing for one settings key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alias {
    /// The key they set.
    pub key: SettingKey,
    /// The server's flag, without its dashes (`port` is `--port`).
    pub flag: Option<&'static str>,
    /// The option of the Node binding's `new Herald(options)`.
    pub node_option: Option<&'static str>,
    /// Keywords of the Python `Herald(...)` besides the settings' own
    /// nested shape (`url=` beside `keeper={"base_url": ...}`).
    pub python_keywords: &'static [&'static str],
}

/// `Alias { key, flag, node_option, python_keywords }`, compactly.
const fn alias(
    key: SettingKey,
    flag: Option<&'static str>,
    node_option: Option<&'static str>,
    python_keywords: &'static [&'static str],
) -> Alias {
    Alias {
        key,
        flag,
        node_option,
        python_keywords,
    }
}

/// Every key that has another name, in the order the Node options list
/// them (`new Herald()`'s unknown-option error).
pub const ALIASES: &[Alias] = &[
    alias(
        SettingKey::KeeperBaseUrl,
        Some("keeper-url"),
        Some("baseUrl"),
        &["url", "base_url"],
    ),
    alias(SettingKey::KeeperApiKey, None, Some("apiKey"), &["api_key"]),
    alias(SettingKey::Domain, Some("domain"), Some("domain"), &[]),
    alias(SettingKey::Branch, Some("branch"), Some("branch"), &[]),
    alias(SettingKey::OutputMaxChars, None, Some("maxChars"), &[]),
    alias(SettingKey::OutputMaxItems, None, Some("maxItems"), &[]),
    alias(
        SettingKey::OutputMaxValueChars,
        None,
        Some("maxValueChars"),
        &[],
    ),
    alias(SettingKey::KeeperMaxRetries, None, Some("maxRetries"), &[]),
    alias(SettingKey::KbDir, Some("kb"), Some("kbDir"), &[]),
    alias(
        SettingKey::ToolsReadOnly,
        Some("read-only"),
        Some("readOnly"),
        &[],
    ),
    alias(SettingKey::ToolsAllow, Some("tools"), Some("tools"), &[]),
    alias(
        SettingKey::ToolsDeny,
        Some("exclude-tools"),
        Some("excludeTools"),
        &[],
    ),
    alias(SettingKey::Transport, Some("transport"), None, &[]),
    alias(SettingKey::HttpHost, Some("host"), None, &[]),
    alias(SettingKey::HttpPort, Some("port"), None, &[]),
    alias(SettingKey::LogFormat, Some("log-format"), None, &[]),
];

/// The alias of `key`; a key without one is an empty row.
const fn of(key: SettingKey) -> Alias {
    let mut i = 0;
    while i < ALIASES.len() {
        if ALIASES[i].key as usize == key as usize {
            return ALIASES[i];
        }
        i += 1;
    }
    alias(key, None, None, &[])
}

/// The flag of `key`, without its dashes (`port`); in a `const` context a key
/// without a flag does not compile.
pub const fn flag(key: SettingKey) -> &'static str {
    match of(key).flag {
        Some(flag) => flag,
        None => panic!("this settings key has no flag"),
    }
}

/// The Node option of `key`, if it has one.
pub fn node_option(key: SettingKey) -> Option<&'static str> {
    of(key).node_option
}

/// The flag of `key` as the command line and its errors show it (`--port`).
pub fn flag_label(key: SettingKey) -> Option<String> {
    of(key).flag.map(|flag| format!("--{flag}"))
}

/// Every Node option and the key it sets.
pub fn node_options() -> impl Iterator<Item = (&'static str, SettingKey)> {
    ALIASES.iter().filter_map(|a| Some((a.node_option?, a.key)))
}

/// Every Python keyword and the key it sets.
pub fn python_keywords() -> impl Iterator<Item = (&'static str, SettingKey)> {
    ALIASES
        .iter()
        .flat_map(|a| a.python_keywords.iter().map(move |k| (*k, a.key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_and_each_name_is_listed_once() {
        for (i, a) in ALIASES.iter().enumerate() {
            for b in &ALIASES[i + 1..] {
                assert_ne!(a.key, b.key);
                assert!(a.flag.is_none() || a.flag != b.flag, "{:?}", a.flag);
                assert!(a.node_option.is_none() || a.node_option != b.node_option);
                assert!(
                    a.python_keywords
                        .iter()
                        .all(|k| !b.python_keywords.contains(k))
                );
            }
        }
        assert_eq!(flag(SettingKey::HttpPort), "port");
        assert_eq!(node_option(SettingKey::KbDir), Some("kbDir"));
        assert_eq!(
            flag_label(SettingKey::ToolsDeny).as_deref(),
            Some("--exclude-tools")
        );
        assert_eq!(
            python_keywords().collect::<Vec<_>>(),
            [
                ("url", SettingKey::KeeperBaseUrl),
                ("base_url", SettingKey::KeeperBaseUrl),
                ("api_key", SettingKey::KeeperApiKey),
            ]
        );
    }
}
