//! The prompt `lorebase_guide(domain?, task?)`: the agent workflow
//! as a template. It makes no model calls and no Keeper calls.

use rmcp::ErrorData as McpError;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::Value;

use crate::mcp::workflow::{WORKFLOW, Workflow};

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
    guide_text_from(&WORKFLOW, domain, task)
}

/// The guide's text built from the workflow `w`.
pub(crate) fn guide_text_from(
    w: &Workflow<'_>,
    domain: Option<&str>,
    task: Option<&str>,
) -> String {
    let mut out = match domain {
        Some(d) => w.guide_domain.replace("{domain}", d),
        None => w.guide_no_domain.to_string(),
    };
    out.push('\n');
    if let Some(t) = task {
        out.push_str(&format!("\n{}{t}\n", w.guide_task));
    }
    out.push_str(&format!("\n{}\n\n", w.steps_heading));
    let steps = [w.context_step, w.read_step, w.write_step];
    for (n, step) in steps.iter().enumerate() {
        out.push_str(&format!("{}. {step}\n\n", n + 1));
    }
    out.push_str(&format!(
        "{}{}.\n\n{}\n",
        w.errors_read, w.errors_write, w.format
    ));
    out
}

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
