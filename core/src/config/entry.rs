//! What an entry of the settings table ([`super::table`]) is: a key, its
//! type, default, bound, comment, check and other spellings, and the groups
//! the example file shows them in.

use super::error::ConfigError;
use super::field::{Bound, Field, PendingSecret};
use super::settings::Settings;

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

/// Keys shown together in the example file: one section (`keeper`, `http`,
/// ...), or top-level keys; `doc` is the comment above them.
#[derive(Clone, Copy)]
pub(super) struct Group {
    /// The comment above them.
    pub(super) doc: &'static [&'static str],
    /// The keys.
    pub(super) keys: &'static [Key],
}
