//! The arguments every Lorebase tool shares: `domain`, `branch` and `at`
//! where the tool takes them, and `format`; their schemas and how they fall
//! back to the settings.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::bounded::Name;
use super::checks::Checks;
use super::failure::invalid;
use super::parse::take;
use crate::config::{SettingKey, Settings};
use crate::error::ToolError;
use crate::keeper::model::ReadAt;
use crate::render::OutputFormat;

/// The shared arguments' names, in [`SharedArgs`]' order (a test holds them
/// to its fields).
const DOMAIN: &str = "domain";
const BRANCH: &str = "branch";
const AT: &str = "at";
const FORMAT: &str = "format";

/// The longest Domain name.
const DOMAIN_MAX: usize = 128;
/// The longest branch name.
const BRANCH_MAX: usize = 256;
/// The longest Revision id, prefix or tag.
const AT_MAX: usize = 128;

/// The shared arguments, as a model sees them in every tool: their short
/// form. What they mean and how they default is said once, in the server's
/// instructions (`server/src/mcp/instructions.rs`), not again in every tool.
#[derive(JsonSchema)]
#[allow(dead_code)] // only its schema is used: the values are taken one by one
struct SharedArgs {
    // No descriptions: the instructions say what they are and how they
    // default, once for every tool.
    domain: Option<Name<DOMAIN_MAX>>,
    branch: Option<Name<BRANCH_MAX>>,
    at: Option<Name<AT_MAX>>,
    format: Option<OutputFormat>,
}

/// Which of the shared arguments a tool takes besides `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scope {
    /// It takes `domain` (every Lorebase tool does).
    pub domain: bool,
    /// It takes `branch`.
    pub branch: bool,
    /// It takes `at`.
    pub at: bool,
}

impl Scope {
    /// Reads at a branch and a Revision.
    pub(crate) const READ: Scope = Scope {
        domain: true,
        branch: true,
        at: true,
    };
    /// On a branch, at its head.
    pub(crate) const BRANCH: Scope = Scope {
        domain: true,
        branch: true,
        at: false,
    };
    /// The Domain only.
    pub(crate) const DOMAIN: Scope = Scope {
        domain: true,
        branch: false,
        at: false,
    };
    /// `format` only (the KB tools).
    pub(crate) const FORMAT: Scope = Scope {
        domain: false,
        branch: false,
        at: false,
    };

    /// The names of the shared arguments taken, in schema order.
    fn names(self) -> impl Iterator<Item = &'static str> {
        [
            self.domain.then_some(DOMAIN),
            self.branch.then_some(BRANCH),
            self.at.then_some(AT),
            Some(FORMAT),
        ]
        .into_iter()
        .flatten()
    }

    /// The schemas of the shared arguments taken, in order, to append to a
    /// tool's own.
    pub(crate) fn schemas(self, shared: &Map<String, Value>) -> Vec<(String, Value)> {
        self.names()
            .filter_map(|name| Some((name.to_string(), shared.get(name)?.clone())))
            .collect()
    }
}

/// The schemas of every shared argument, by name.
pub(crate) fn shared_schemas(generator: &mut schemars::SchemaGenerator) -> Map<String, Value> {
    let root = generator.root_schema_for::<SharedArgs>();
    root.get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The arguments every tool shares, resolved against the settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Common {
    /// The Domain (the argument, else `settings.domain`).
    pub domain: String,
    /// `text` or `json`.
    pub format: OutputFormat,
    /// Branch (the argument, else `settings.branch`) and Revision.
    pub read: ReadAt,
}

/// Removes the shared arguments from `args` and resolves them.
pub(crate) fn take_common(
    args: &mut Map<String, Value>,
    settings: &Settings,
    scope: Scope,
) -> Result<Common, ToolError> {
    let mut v = Checks::default();
    let format: Option<OutputFormat> = v.keep(take(args, FORMAT)).flatten();
    // `None` when the argument did not parse (its error is kept).
    let domain: Option<Option<Name<DOMAIN_MAX>>> = v.keep(take(args, DOMAIN));
    let branch: Option<Name<BRANCH_MAX>> = if scope.branch {
        v.keep(take(args, BRANCH)).flatten()
    } else {
        None
    };
    let at: Option<Name<AT_MAX>> = if scope.at {
        v.keep(take(args, AT)).flatten()
    } else {
        None
    };
    let domain = match domain.map(|d| d.or_else(|| settings.domain.clone().map(Name::new))) {
        None => String::new(),
        Some(Some(d)) => v.check(d, DOMAIN),
        Some(None) => {
            v.keep::<()>(Err(ToolError {
                next: Some(format!(
                    "pass `{DOMAIN}`, or configure a default (LOREBASE_DOMAIN, herald.{})",
                    SettingKey::Domain
                )),
                ..invalid(DOMAIN, "no Domain given and no default Domain configured")
            }));
            String::new()
        }
    };
    let branch = match branch {
        Some(b) => Some(v.check(b, BRANCH)),
        None => settings.branch.clone(),
    };
    let at = v.check(at, AT);
    v.done()?;
    Ok(Common {
        domain,
        format: format.unwrap_or_default(),
        read: ReadAt { branch, at },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    /// The names taken are the fields of the struct whose schema a model sees.
    #[test]
    fn the_names_are_the_shared_fields() {
        let shared = shared_schemas(&mut schemars::SchemaGenerator::default());
        let fields: Vec<&str> = shared.keys().map(String::as_str).collect();
        assert_eq!(fields, [DOMAIN, BRANCH, AT, FORMAT]);
        assert_eq!(Scope::READ.names().collect::<Vec<_>>(), fields);
    }

    #[test]
    fn common_arguments_fall_back_to_settings() {
        let settings = Settings {
            domain: Some("supply".into()),
            branch: Some("main".into()),
            ..Settings::default()
        };
        let scope = Scope::READ;
        let mut args = map(json!({"format": "json", "at": "abc12345"}));
        let c = take_common(&mut args, &settings, scope).unwrap();
        assert_eq!(c.domain, "supply");
        assert_eq!(c.format, OutputFormat::Json);
        assert_eq!(c.read.branch.as_deref(), Some("main"));
        assert!(args.is_empty());
        let e = take_common(&mut map(json!({})), &Settings::default(), scope).unwrap_err();
        assert_eq!(e.issues[0].path, "domain");
        assert!(e.next.is_some());
        let e = take_common(&mut map(json!({"format": "xml"})), &settings, scope).unwrap_err();
        assert_eq!(e.issues[0].path, "format");
        let e = take_common(&mut map(json!({"domain": ""})), &settings, scope).unwrap_err();
        assert_eq!(e.issues[0].path, "domain");
        // Every bad shared argument at once, each with its path.
        let bad = json!({"domain": "", "format": "xml", "at": 7});
        let e = take_common(&mut map(bad), &settings, scope).unwrap_err();
        let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["format", "at", "domain"]);
    }
}
