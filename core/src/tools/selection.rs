//! The tool selection (`tools.read_only`, `tools.allow`, `tools.deny`): which
//! tools are served, and the check that `tools.allow` names real tools (a
//! typo would otherwise serve nothing, silently), the same for every front
//! end.

use crate::config::ToolSelection;
use crate::remote::NAME_SEPARATOR;

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
                "tools.allow names tools that are not served here: {}; available: {}",
                unknown.join(", "),
                served.join(", ")
            ));
        }
    }
    for denied in &selection.deny {
        if !existing.contains(&denied.as_str()) && !denied.contains(NAME_SEPARATOR) {
            tracing::warn!(tool = %denied, "tools.deny names a tool that does not exist");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ..Default::default()
        };
        assert_eq!(served(&sel), ["lorebase_get", "lorebase_schema"]);
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_execute".into(), "lorebase_get".into()]),
            deny: vec!["lorebase_execute".into(), "no_such_tool".into()],
            ..Default::default()
        };
        assert_eq!(served(&sel), ["lorebase_get"]);
    }

    #[test]
    fn an_unknown_allowed_name_is_an_error_unless_remote_shaped() {
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_gte".into()]),
            ..Default::default()
        };
        let err = check(&sel, &served(&sel), &ALL).unwrap_err();
        assert!(err.contains("lorebase_gte"), "{err}");
        let sel = ToolSelection {
            allow: Some(vec!["lorebase_get".into(), "runbooks__search".into()]),
            ..Default::default()
        };
        assert_eq!(check(&sel, &served(&sel), &ALL), Ok(()));
    }
}
