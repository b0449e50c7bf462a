//! A remote tool's answer as Herald returns it: untrusted data under the same
//! output caps as Herald's own tools, and failures as tool errors.

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::config::OutputSettings;
use crate::render::caps::{cap_json, cut_text};
use crate::tool::RenderedOutput;

/// The answer of a remote tool: its text blocks (other blocks named, not
/// inlined), or its structured content as JSON when it sent no text; cut to
/// `max_chars`. `structuredContent` is passed on, capped like Herald's own
/// JSON answers, on success only.
pub(crate) fn rendered(result: CallToolResult, caps: &OutputSettings) -> RenderedOutput {
    let is_error = result.is_error == Some(true);
    let structured = result
        .structured_content
        .filter(|v| !v.is_null())
        .map(|v| cap_json(v, caps));
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        let value = serde_json::to_value(block).unwrap_or(Value::Null);
        parts.push(block_text(&value));
    }
    let mut text = parts.join("\n");
    if text.trim().is_empty()
        && let Some(s) = &structured
    {
        text = serde_json::to_string(s).unwrap_or_default();
    }
    if text.trim().is_empty() {
        text = if is_error {
            "the remote tool failed without a message".into()
        } else {
            "(the remote tool returned no content)".into()
        };
    }
    RenderedOutput {
        text: cut_text(&text, caps.max_chars),
        is_error,
        structured: if is_error { None } else { structured },
    }
}

/// One content block as text: text blocks as they are, embedded text
/// resources by their text, anything else by a short note.
fn block_text(block: &Value) -> String {
    let kind = block["type"].as_str().unwrap_or("unknown");
    match kind {
        "text" => block["text"].as_str().unwrap_or_default().to_string(),
        "resource" => {
            let r = &block["resource"];
            match r["text"].as_str() {
                Some(t) => t.to_string(),
                None => format!(
                    "[resource {} ({}) not shown]",
                    r["uri"].as_str().unwrap_or("?"),
                    r["mimeType"].as_str().unwrap_or("binary")
                ),
            }
        }
        "resource_link" => format!("[resource link: {}]", block["uri"].as_str().unwrap_or("?")),
        "image" | "audio" => format!(
            "[{kind} ({}) not shown]",
            block["mimeType"].as_str().unwrap_or("?")
        ),
        other => format!("[{other} content not shown]"),
    }
}

/// A tool error for a failed remote call. The call is never resent: the
/// next line says so.
pub(crate) fn failure(server: &str, tool: &str, reason: &str) -> RenderedOutput {
    RenderedOutput {
        text: format!(
            "[remote-unavailable] the call of {tool} on the MCP server \"{server}\" failed: {reason}\n\
             next: it was not retried (remote tools are not assumed idempotent); check whether it took effect before calling it again"
        ),
        is_error: true,
        structured: None,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use serde_json::json;

    use super::*;

    fn caps(max_chars: usize) -> OutputSettings {
        OutputSettings {
            max_chars,
            max_items: 50,
            max_value_chars: 500,
            schemas: true,
        }
    }

    #[test]
    fn text_blocks_are_joined_and_capped() {
        let r = CallToolResult::success(vec![
            ContentBlock::text("first"),
            ContentBlock::text("x".repeat(5000)),
        ]);
        let out = rendered(r, &caps(200));
        assert!(!out.is_error);
        assert!(out.text.starts_with("first"));
        assert!(out.text.chars().count() <= 200, "{}", out.text.len());
        assert!(out.text.contains("[truncated:"));
    }

    #[test]
    fn errors_stay_errors_without_structure() {
        let mut r = CallToolResult::error(vec![ContentBlock::text("boom")]);
        r.structured_content = Some(json!({"a": 1}));
        let out = rendered(r, &caps(1000));
        assert!(out.is_error && out.structured.is_none());
        assert_eq!(out.text, "boom");
    }

    #[test]
    fn structured_only_answers_become_text() {
        let mut r = CallToolResult::success(vec![]);
        r.structured_content = Some(json!({"items": (0..100).collect::<Vec<_>>()}));
        let out = rendered(r, &caps(1000));
        let s = out.structured.unwrap();
        assert_eq!(s["items"].as_array().unwrap().len(), 50);
        assert!(out.text.starts_with('{'));
    }
}
