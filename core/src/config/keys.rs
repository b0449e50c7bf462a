//! What is read from the settings table ([`super::table`]): the key list
//! ([`keys`]), the entry of a key, and the parsing of every layer's values
//! ([`apply`]).

use super::entry::{Group, Key};
use super::error::{ConfigError, SettingSource};
use super::field::{Field, PendingSecret};
use super::raw::RawValue;
use super::settings::Settings;
use super::table::GROUPS;
pub use super::table::SettingKey;

impl std::fmt::Display for SettingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl SettingKey {
    /// The key named `name` (dotted below `herald`), if there is one.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// Every settings key, dotted below `herald`, in the order of
/// `config/lorebase.example.yaml`.
pub fn keys() -> impl Iterator<Item = &'static str> {
    entries().map(Key::key)
}

/// Every entry of the table, in the example file's order.
pub(super) fn entries() -> impl Iterator<Item = &'static Key> {
    GROUPS.iter().flat_map(|g| g.keys)
}

/// The table's groups.
pub(super) fn groups() -> &'static [Group] {
    GROUPS
}

/// The entry of `key`; usable in a `const` (the server's flag names).
pub(super) const fn entry(key: SettingKey) -> &'static Key {
    let name = key.name().as_bytes();
    let mut g = 0;
    while g < GROUPS.len() {
        let keys = GROUPS[g].keys;
        let mut k = 0;
        while k < keys.len() {
            if same_bytes(keys[k].name.as_bytes(), name) {
                return &keys[k];
            }
            k += 1;
        }
        g += 1;
    }
    panic!("every settings key has an entry in the table")
}

/// Whether `a` and `b` are equal, in a `const`.
const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The typed key of `entry` (every entry of the table has one).
pub(super) fn typed(entry: &Key) -> Option<SettingKey> {
    SettingKey::named(entry.key())
}

/// The section of a dotted key (`keeper` of `keeper.base_url`), none for a
/// top-level key.
pub(super) fn section_of(key: &str) -> Option<&str> {
    key.split_once('.').map(|(section, _)| section)
}

/// Whether `key` is a settings key.
pub(crate) fn is_known_key(key: &str) -> bool {
    entries().any(|k| k.key() == key)
}

/// Whether `name` is a section of the `herald` mapping (`keeper`, `http`, ...).
pub(crate) fn is_section(name: &str) -> bool {
    entries().any(|k| section_of(k.key()) == Some(name))
}

/// Checks one key's value and stores it in `settings`. The API key is returned
/// in `api_key` for resolution after every layer is merged.
pub(crate) fn apply(
    settings: &mut Settings,
    api_key: &mut Option<PendingSecret>,
    key: &str,
    raw: &RawValue,
    source: &SettingSource,
) -> Result<(), ConfigError> {
    let Some(entry) = entries().find(|k| k.key() == key) else {
        return Err(ConfigError::UnknownKey {
            key: key.to_string(),
            origin: source.clone(),
        });
    };
    apply_entry(entry, settings, api_key, raw, source)
}

/// Checks `raw` against `entry` (its type and bound) and stores it.
pub(super) fn apply_entry(
    entry: &Key,
    settings: &mut Settings,
    api_key: &mut Option<PendingSecret>,
    raw: &RawValue,
    source: &SettingSource,
) -> Result<(), ConfigError> {
    let field = Field {
        key: entry.key(),
        raw,
        source,
        bound: entry.bound,
    };
    (entry.set)(&field, settings, api_key)
}
