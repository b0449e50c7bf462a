//! What an entry of the settings table ([`super::table`]) is, and what is
//! read from the table: the key list ([`keys`]), the entry of a key, the
//! parsing of every layer's values ([`apply`]) and each comment with its
//! bound and spellings filled in.

use serde_json::Value;

use super::error::{ConfigError, SettingSource};
use super::field::Field;
use super::raw::RawValue;
use super::settings::Settings;
use super::table::GROUPS;
pub use super::table::SettingKey;

/// Checks a key's value and stores it (`keeper.api_key` in the pending secret).
pub(super) type Setter =
    fn(&Field<'_>, &mut Settings, &mut Option<PendingSecret>) -> Result<(), ConfigError>;

/// What a key holds, as the reference shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A string (a URL, a path, a name, one of a few words).
    Text,
    /// A whole number within its [`Bound`].
    Int,
    /// `true` or `false`.
    Bool,
    /// A list of strings.
    List,
    /// A secret: a literal, `secret://env/NAME` or `secret://file/PATH`.
    Secret,
    /// A list of remote server entries.
    Servers,
}

impl Kind {
    /// Its name in `docs/settings.md`.
    pub(super) fn reference_name(self) -> &'static str {
        match self {
            Kind::Text => "string",
            Kind::Int => "integer",
            Kind::Bool => "boolean",
            Kind::List => "list of strings",
            Kind::Secret => "secret",
            Kind::Servers => "list of servers",
        }
    }

    /// Its TypeScript type, as a Node option.
    pub(super) fn typescript(self) -> &'static str {
        match self {
            Kind::Text | Kind::Secret => "string",
            Kind::Int => "number",
            Kind::Bool => "boolean",
            Kind::List => "Array<string>",
            Kind::Servers => "Array<Record<string, unknown>>",
        }
    }
}

/// The values an integer key accepts, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Bound {
    /// The least.
    pub(super) min: u64,
    /// The greatest.
    pub(super) max: u64,
}

impl std::fmt::Display for Bound {
    /// `(0-10)`, as the comments show it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}-{})", self.min, self.max)
    }
}

/// A server flag standing for a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Flag {
    /// Without its dashes (`port` is `--port`).
    pub(super) name: &'static str,
    /// Its line in `--help`.
    pub(super) help: &'static str,
}

/// A key's other spellings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Spellings {
    /// The short variable (`LOREBASE_URL`).
    pub(super) env: Option<&'static str>,
    /// The server's flag.
    pub(super) flag: Option<Flag>,
    /// The option of the Node binding's `new Herald(options)`.
    pub(super) node: Option<&'static str>,
    /// Keywords of the Python `Herald(...)` besides the settings' own nested
    /// shape (`url=` beside `keeper={"base_url": ...}`).
    pub(super) python: &'static [&'static str],
}

/// One entry of the settings table.
#[derive(Clone, Copy)]
pub(super) struct Key {
    /// Its typed key.
    pub(super) id: SettingKey,
    /// The key, dotted below `herald` (`keeper.base_url`, `domain`).
    pub(super) name: &'static str,
    /// What it holds.
    pub(super) kind: Kind,
    /// Its comment, one entry a line; `{bound}`, `{min}`, `{env}` and
    /// `{flag}` stand for the entry's own (see [`Key::doc_lines`]).
    pub(super) doc: &'static [&'static str],
    /// Its default, as the example file shows it (YAML).
    pub(super) default: &'static str,
    /// The values it accepts, for an integer.
    pub(super) bound: Option<Bound>,
    /// Its other spellings.
    pub(super) spellings: Spellings,
    /// Its check.
    pub(super) set: Setter,
}

impl Key {
    /// Dotted below `herald` (`keeper.base_url`, `domain`).
    pub(super) fn key(&self) -> &'static str {
        self.name
    }

    /// Its comment with its own bound (`{bound}`: `(0-10)`, `{min}`: `0`),
    /// short variable (`{env}`) and flag (`{flag}`: `--port`) written in, so
    /// each is declared once and the comment cannot differ from it.
    pub(super) fn doc_lines(&self) -> Vec<String> {
        self.doc
            .iter()
            .map(|line| {
                let mut line = (*line).to_string();
                if let Some(bound) = self.bound {
                    line = line
                        .replace("{bound}", &bound.to_string())
                        .replace("{min}", &bound.min.to_string());
                }
                if let Some(env) = self.spellings.env {
                    line = line.replace("{env}", env);
                }
                if let Some(flag) = self.spellings.flag {
                    line = line.replace("{flag}", &format!("--{}", flag.name));
                }
                line
            })
            .collect()
    }
}

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

/// Keys shown together in the example file: one section (`keeper`, `http`,
/// ...), or top-level keys; `doc` is the comment above them.
#[derive(Clone, Copy)]
pub(super) struct Group {
    /// The comment above them.
    pub(super) doc: &'static [&'static str],
    /// The keys.
    pub(super) keys: &'static [Key],
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
    let mut g = 0;
    while g < GROUPS.len() {
        let keys = GROUPS[g].keys;
        let mut k = 0;
        while k < keys.len() {
            if keys[k].id as usize == key as usize {
                return &keys[k];
            }
            k += 1;
        }
        g += 1;
    }
    panic!("every settings key has an entry in the table")
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

/// `keeper.api_key` before its reference is resolved.
pub(crate) struct PendingSecret {
    pub(crate) text: String,
    pub(crate) source: SettingSource,
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

/// A secret reference, kept unresolved (`Settings::load` resolves it).
pub(super) fn secret_reference(f: &Field<'_>) -> Result<Option<super::Secret>, ConfigError> {
    let Some(text) = f.optional_string()? else {
        return Ok(None);
    };
    if !text.starts_with(super::SECRET_REF_PREFIX) {
        return Err(f.invalid(
            "must say where the secret comes from (secret://env/NAME or secret://file/PATH), not be the secret",
        ));
    }
    Ok(Some(super::Secret::new(text)))
}

/// A key or a secret reference, resolved after the layers are merged.
pub(super) fn api_key(f: &Field<'_>) -> Result<Option<PendingSecret>, ConfigError> {
    match f.raw {
        RawValue::Json(Value::Null) => Ok(None),
        RawValue::Json(Value::String(s)) | RawValue::Text(s) if s.trim().is_empty() => Ok(None),
        RawValue::Json(Value::String(s)) | RawValue::Text(s) => Ok(Some(PendingSecret {
            text: s.trim().to_string(),
            source: f.source.clone(),
        })),
        // Never quote a secret's value, even a mistyped one.
        _ => Err(f.invalid("expected a string (a key, secret://env/NAME or secret://file/PATH)")),
    }
}
