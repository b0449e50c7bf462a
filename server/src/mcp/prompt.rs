//! The prompt `lorebase_guide(domain?, task?)`: herald.md's agent workflow
//! as a template. It makes no model calls and no Keeper calls.

use rmcp::ErrorData as McpError;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::Value;

/// The prompt's name.
pub(crate) const GUIDE_NAME: &str = "lorebase_guide";

/// Longest `domain` or `task` argument accepted, in characters.
pub(crate) const MAX_ARGUMENT_CHARS: usize = 2000;

/// The prompt's definition (`prompts/list`).
pub(crate) fn definition() -> Prompt {
    Prompt::new(
        GUIDE_NAME,
        Some(
            "How to work with a Lorebase Domain through Herald's tools: context first, ground the words, read, check provenance, write through Operations with a dry run and a Proposal.",
        ),
        Some(vec![
            PromptArgument::new("domain")
                .with_title("Domain")
                .with_description("The Domain to work on (default: the server's default Domain).")
                .with_required(false),
            PromptArgument::new("task")
                .with_title("Task")
                .with_description("What you want to find out or change, in your own words.")
                .with_required(false),
        ]),
    )
    .with_title("Lorebase agent guide")
}

/// Renders the prompt for `arguments` (unknown arguments are refused; so are
/// non-string or overlong values).
pub(crate) fn render(
    arguments: Option<&JsonObject>,
    default_domain: Option<&str>,
) -> Result<GetPromptResult, McpError> {
    let mut domain = None;
    let mut task = None;
    for (name, value) in arguments.into_iter().flatten() {
        let slot = match name.as_str() {
            "domain" => &mut domain,
            "task" => &mut task,
            other => {
                return Err(McpError::invalid_params(
                    format!("{GUIDE_NAME} takes domain and task; unknown argument {other:?}"),
                    None,
                ));
            }
        };
        match value {
            Value::Null => {}
            Value::String(s) if s.chars().count() <= MAX_ARGUMENT_CHARS => {
                let s = s.trim();
                if !s.is_empty() {
                    *slot = Some(s.to_string());
                }
            }
            Value::String(_) => {
                return Err(McpError::invalid_params(
                    format!("{name} is longer than {MAX_ARGUMENT_CHARS} characters"),
                    None,
                ));
            }
            _ => {
                return Err(McpError::invalid_params(
                    format!("{name} must be a string"),
                    None,
                ));
            }
        }
    }
    let domain = domain.or_else(|| default_domain.map(str::to_string));
    let text = guide_text(domain.as_deref(), task.as_deref());
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("The Lorebase agent workflow"),
    )
}

/// The guide's text.
pub(crate) fn guide_text(domain: Option<&str>, task: Option<&str>) -> String {
    let mut out = String::new();
    match domain {
        Some(d) => out.push_str(&format!(
            "You work on the Lorebase Domain `{d}` through the lorebase_* tools. Pass \"domain\": \"{d}\" when a call should not use the server's default.\n"
        )),
        None => out.push_str(
            "You work on a Lorebase Domain through the lorebase_* tools. Name it with \"domain\" in each call unless the server has a default Domain.\n",
        ),
    }
    if let Some(t) = task {
        out.push_str(&format!("\nYour task: {t}\n"));
    }
    out.push_str(WORKFLOW);
    out
}

const WORKFLOW: &str = r#"
Workflow:

1. Context first. Call lorebase_context with the Records the task is about (refs are Kind/key, for example Supplier/S-1001) or with a short question. One call returns the seeds, their Links, nearby Records and the schema of the Kinds involved, within a token budget.

2. Ground the words, then read. When the task names things in its own words ("red shoes", "stores in Milan"), call lorebase_resolve: it says which Kinds, Attributes and stored values the words stand for and gives ready-to-use `where` fragments; it never runs the query. Then:
   - lorebase_query with those fragments for filtered lists and counts ("aggregate": {"group_by": attr});
   - lorebase_get for one Record, lorebase_search to find Records by words, lorebase_neighborhood for more Links;
   - lorebase_explain (or lorebase_history and lorebase_lineage) before trusting a value;
   - lorebase_changes and lorebase_diff to catch up with what changed since a Revision you saw earlier.
   lorebase_query and lorebase_resolve end with `coverage:` lines (missing values, stale Sources, phrases unknown in the Domain): read them before answering "none". When no candidate fits, fall back to lorebase_schema and lorebase_search.

3. Write through Operations only. Call lorebase_execute with dry_run (the default), check the edits and violations, then commit with dry_run: false and expected_head set to the head the dry run reported. Operations with a review policy, and protected branches, need a Proposal: add task (a short slug) and intent; Keeper then runs the Operation on the branch agent/{agent}/{task} and answers with the Proposal's id, status and next steps. Keep one idempotency_key per intended change so retries commit once.

Errors come back as `[code] message` with a `next:` line: follow it. Do not retry forbidden or unauthorized; wait the given delay on rate-limited, branch-busy and keeper-unavailable; on stale-head re-read and retry with the current head.

Every tool takes format: "text" (compact lines, the default) or "json" (stable shapes). Long outputs are cut with a visible marker and a next_cursor where paging applies.
"#;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn definition_has_two_optional_arguments() {
        let p = definition();
        assert_eq!(p.name, GUIDE_NAME);
        let a = p.arguments.unwrap();
        assert_eq!(a.len(), 2);
        assert!(a.iter().all(|a| a.required == Some(false)));
    }

    #[test]
    fn renders_domain_and_task() {
        let r = render(
            Some(&args(
                json!({"domain": "retail", "task": "count red shoes per brand"}),
            )),
            Some("supply"),
        )
        .unwrap();
        assert_eq!(r.messages.len(), 1);
        let text = serde_json::to_value(&r.messages[0]).unwrap()["content"]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(text.contains("`retail`"));
        assert!(text.contains("Your task: count red shoes per brand"));
        assert!(text.contains("lorebase_resolve"));
        assert!(text.contains("dry_run"));
    }

    #[test]
    fn defaults_and_no_arguments() {
        let text = guide_text(Some("supply"), None);
        assert!(text.contains("`supply`"));
        assert!(!text.contains("Your task"));
        assert!(render(None, None).is_ok());
        let r = render(Some(&args(json!({"domain": null}))), Some("supply")).unwrap();
        assert!(serde_json::to_string(&r).unwrap().contains("supply"));
    }

    #[test]
    fn bad_arguments_are_invalid_params() {
        for bad in [
            json!({"domain": 3}),
            json!({"colour": "red"}),
            json!({"task": "x".repeat(MAX_ARGUMENT_CHARS + 1)}),
        ] {
            let err = render(Some(&args(bad)), None).unwrap_err();
            assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        }
    }
}
