//! The tool selection (`tools.read_only`, `tools.allow`, `tools.deny`): which
//! tools are served, and the check that `tools.allow` names real tools (a
//! typo would otherwise serve nothing, silently), the same for every front
//! end; and the narrowing of one request ([`ToolNarrowing`], the
//! `X-MCP-Readonly` / `X-MCP-Toolsets` / `X-MCP-Tools` headers over HTTP),
//! which applies on top of the selection and so can never widen it.

use crate::config::{SettingKey, ToolSelection};
use crate::remote::NAME_SEPARATOR;

/// The group of the KB tools.
pub const KB_GROUP: &str = "kb";
/// The group of every remote MCP server's tools.
pub const REMOTE_GROUP: &str = "remote";

/// How one request narrows the tools the settings serve: only tools that do
/// not write, and only the tools of some groups or some tools by name (their
/// union, when either is given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNarrowing {
    /// Only tools that do not write.
    pub read_only: bool,
    /// Only the tools of these groups (`reads`, `provenance`, `revisions`,
    /// `agent`, `kb`, `remote`), besides `tools`.
    pub groups: Option<Vec<String>>,
    /// Only these tools, besides those of `groups`.
    pub tools: Option<Vec<String>>,
}

impl ToolNarrowing {
    /// Whether it narrows nothing.
    pub fn is_none(&self) -> bool {
        !self.read_only && self.groups.is_none() && self.tools.is_none()
    }

    /// Whether a served tool (its name, group and whether it writes) stays
    /// served for this request.
    pub fn serves(&self, name: &str, group: Option<&str>, writes: bool) -> bool {
        if self.read_only && writes {
            return false;
        }
        if self.groups.is_none() && self.tools.is_none() {
            return true;
        }
        let named = self.tools.iter().flatten().any(|t| t == name);
        let in_group = group.is_some_and(|g| self.groups.iter().flatten().any(|x| x == g));
        named || in_group
    }
}

/// Whether a tool of that name (writing or not) is served.
pub(crate) fn serves(selection: &ToolSelection, name: &str, writes: bool) -> bool {
    if selection.read_only && writes {
        return false;
    }
    if selection.deny.iter().any(|d| d == name) {
        return false;
    }
    selection
        .allow
        .as_ref()
        .is_none_or(|allow| allow.iter().any(|a| a == name))
}

/// Checks `tools.allow` against the built-in tools `served`: a name that is
/// not among them is an error, unless it has the shape of a remote tool
/// (`<server>__<tool>`, discovered later). A denied name that is no built-in
/// tool (`existing`) is only logged.
pub(crate) fn check(
    selection: &ToolSelection,
    served: &[&str],
    existing: &[&str],
) -> Result<(), String> {
    if let Some(allow) = &selection.allow {
        let unknown: Vec<&str> = allow
            .iter()
            .map(String::as_str)
            .filter(|n| !served.contains(n) && !n.contains(NAME_SEPARATOR))
            .collect();
        if !unknown.is_empty() {
            return Err(format!(
                "{} names tools that are not served here: {}; available: {}",
                SettingKey::ToolsAllow,
                unknown.join(", "),
                served.join(", ")
            ));
        }
    }
    for denied in &selection.deny {
        if !existing.contains(&denied.as_str()) && !denied.contains(NAME_SEPARATOR) {
            tracing::warn!(tool = %denied, "{} names a tool that does not exist", SettingKey::ToolsDeny);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    #[test]
    fn a_narrowing_keeps_named_tools_and_groups_and_drops_writers_when_read_only() {
        let none = ToolNarrowing::default();
        assert!(none.is_none() && none.serves("lorebase_execute", Some("agent"), true));
        let read_only = ToolNarrowing {
            read_only: true,
            ..Default::default()
        };
        assert!(!read_only.serves("lorebase_execute", Some("agent"), true));
        assert!(read_only.serves("lorebase_context", Some("agent"), false));
        let some = ToolNarrowing {
            read_only: false,
            groups: Some(vec!["provenance".into()]),
            tools: Some(vec!["lorebase_get".into()]),
        };
        assert!(some.serves("lorebase_get", Some("reads"), false));
        assert!(some.serves("lorebase_history", Some("provenance"), false));
        assert!(!some.serves("lorebase_schema", Some("reads"), false));
        assert!(!some.serves("kb_get", Some("kb"), false));
    }

    const ALL: [&str; 3] = ["lorebase_get", "lorebase_schema", "lorebase_execute"];

    fn served(selection: &ToolSelection) -> Vec<&'static str> {
        ALL.iter()
            .copied()
            .filter(|n| serves(selection, n, *n == "lorebase_execute"))
            .collect()
    }

    #[test]
    fn read_only_allow_and_deny() {
        let sel = ToolSelection {
            read_only: true,
            ..Settings::default().tools
        };
        assert_eq!(served(&sel), ["lorebase_get", "lorebase_schema"]);
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_execute".into(), "lorebase_get".into()]),
            deny: vec!["lorebase_execute".into(), "no_such_tool".into()],
            ..Settings::default().tools
        };
        assert_eq!(served(&sel), ["lorebase_get"]);
    }

    #[test]
    fn an_unknown_allowed_name_is_an_error_unless_remote_shaped() {
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_gte".into()]),
            ..Settings::default().tools
        };
        let err = check(&sel, &served(&sel), &ALL).unwrap_err();
        assert!(err.contains("lorebase_gte"), "{err}");
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_get".into(), "runbooks__search".into()]),
            ..Settings::default().tools
        };
        assert_eq!(check(&sel, &served(&sel), &ALL), Ok(()));
    }
}
