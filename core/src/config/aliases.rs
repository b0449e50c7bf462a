//! The other names of settings keys, read from the settings table
//! ([`super::table`], where each is declared in its key's entry): the short
//! variables, the server's flags, the Node options (`new Herald({...})`) and
//! the Python keywords (`Herald(...)`). The server's flags, the Node
//! binding's options and the Python package's keywords are read from here
//! (the bindings hand them on: `settingOptions()`,
//! `_native.setting_keywords()`), so none of them spells a key again. Like
//! the flag tables of uv and ripgrep.

use super::entry::Group;
use super::keys::{SettingKey, entries, entry, groups, typed};

/// The flag of `key`, without its dashes (`port`); in a `const` context a key
/// without a flag does not compile.
pub const fn flag(key: SettingKey) -> &'static str {
    match entry(key).spellings.flag {
        Some(flag) => flag.name,
        None => panic!("this settings key has no flag"),
    }
}

/// The help line of `key`'s flag (`--help`); in a `const` context a key
/// without a flag does not compile.
pub const fn flag_help(key: SettingKey) -> &'static str {
    match entry(key).spellings.flag {
        Some(flag) => flag.help,
        None => panic!("this settings key has no flag"),
    }
}

/// The Node option of `key`, if it has one.
pub fn node_option(key: SettingKey) -> Option<&'static str> {
    entry(key).spellings.node
}

/// The flag of `key` as the command line and its errors show it (`--port`).
pub fn flag_label(key: SettingKey) -> Option<String> {
    entry(key)
        .spellings
        .flag
        .map(|flag| format!("--{}", flag.name))
}

/// Every flag standing for a key: its name without dashes, its help line
/// and the key, in the table's order.
pub fn flags() -> impl Iterator<Item = (&'static str, &'static str, SettingKey)> {
    flags_of(groups()).filter_map(|(flag, help, key)| Some((flag, help, SettingKey::named(key)?)))
}

/// Every short variable (`LOREBASE_URL`) and the key it sets, in the
/// table's order.
pub fn short_vars() -> impl Iterator<Item = (&'static str, SettingKey)> {
    entries().filter_map(|k| Some((k.spellings.env?, typed(k)?)))
}

/// Every Node option and the key it sets, in the table's order.
pub fn node_options() -> impl Iterator<Item = (&'static str, SettingKey)> {
    node_options_of(groups()).filter_map(|(option, key)| Some((option, SettingKey::named(key)?)))
}

/// Every Python keyword and the key it sets.
pub fn python_keywords() -> impl Iterator<Item = (&'static str, SettingKey)> {
    python_keywords_of(groups())
        .filter_map(|(keyword, key)| Some((keyword, SettingKey::named(key)?)))
}

/// The Python keywords of `groups`, with the key each sets.
pub(super) fn python_keywords_of(
    groups: &[Group],
) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    groups.iter().flat_map(|g| g.keys).flat_map(|k| {
        let key = k.key();
        k.spellings
            .python
            .iter()
            .map(move |keyword| (*keyword, key))
    })
}

/// The flags of `groups`: name, help line, key.
pub(super) fn flags_of(
    groups: &[Group],
) -> impl Iterator<Item = (&'static str, &'static str, &'static str)> + '_ {
    groups.iter().flat_map(|g| g.keys).filter_map(|k| {
        let flag = k.spellings.flag?;
        Some((flag.name, flag.help, k.key()))
    })
}

/// The Node options of `groups`, each with its key.
pub(super) fn node_options_of(
    groups: &[Group],
) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    groups
        .iter()
        .flat_map(|g| g.keys)
        .filter_map(|k| Some((k.spellings.node?, k.key())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_listed_once() {
        let mut seen = std::collections::BTreeSet::new();
        for k in entries() {
            let s = &k.spellings;
            let names = s.env.map(|e| format!("env {e}")).into_iter();
            let names = names.chain(s.flag.map(|f| format!("flag {}", f.name)));
            let names = names.chain(s.node.map(|n| format!("node {n}")));
            let names = names.chain(s.python.iter().map(|p| format!("python {p}")));
            for name in names {
                assert!(seen.insert(name.clone()), "{name} stands for two keys");
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
        assert_eq!(
            short_vars().collect::<Vec<_>>(),
            [
                ("LOREBASE_URL", SettingKey::KeeperBaseUrl),
                ("LOREBASE_API_KEY", SettingKey::KeeperApiKey),
                ("LOREBASE_DOMAIN", SettingKey::Domain),
                ("LOREBASE_BRANCH", SettingKey::Branch),
            ]
        );
    }
}
