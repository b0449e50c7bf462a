//! What the tool list costs a model, in tokens, counted with OpenAI's
//! `o200k_base` ranks (offline: they ship inside `tiktoken-rs`; js-tiktoken
//! counts the same). What a host sends its model of each tool is its name,
//! description and input schema (Claude Code's `input_schema`, Gemini's
//! `parametersJsonSchema`, OpenAI's `parameters`); the title and annotations
//! stay with the host. Hosts re-send that on every turn, so every agent pays
//! it on every turn: [`TOOL_LIST_BUDGET`] bounds it (the test command fails
//! past it), and `lorebase-herald tools --tokens` prints each tool's share
//! and the whole `tools/list` entry's size beside it.

use rmcp::model::Tool;
use tiktoken_rs::CoreBPE;

/// The most tokens the 14 Lorebase tools and the two KB tools may cost
/// together (docs/benchmarks.md, "The tool list's size").
pub(crate) const TOOL_LIST_BUDGET: usize = 4_000;

/// One tool's share of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolTokens {
    /// The tool's name.
    pub name: String,
    /// Tokens of what a model is sent: its name, description and input
    /// schema, as compact JSON.
    pub tokens: usize,
    /// Characters of the same.
    pub chars: usize,
    /// Tokens of its whole `tools/list` entry (title, annotations, `_meta`).
    pub entry_tokens: usize,
}

/// What a host sends its model of `tool`, as compact JSON.
pub(crate) fn model_view(tool: &Tool) -> String {
    serde_json::json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
    })
    .to_string()
}

/// The tokenizer (its ranks are parsed once, some 100 ms).
fn encoder() -> &'static CoreBPE {
    static BPE: std::sync::OnceLock<CoreBPE> = std::sync::OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("the o200k_base ranks ship with the crate"))
}

/// The tokens of `text`.
pub(crate) fn count(text: &str) -> usize {
    encoder().encode_ordinary(text).len()
}

/// Each tool's tokens, in list order.
pub(crate) fn per_tool(tools: &[Tool]) -> Vec<ToolTokens> {
    tools
        .iter()
        .map(|tool| {
            let seen = model_view(tool);
            ToolTokens {
                name: tool.name.to_string(),
                tokens: count(&seen),
                chars: seen.chars().count(),
                entry_tokens: count(&serde_json::to_string(tool).unwrap_or_default()),
            }
        })
        .collect()
}

/// The table `tools --tokens` prints: one line per tool (the tokens a
/// model is sent, their share, characters, the whole entry's tokens), then
/// the totals against [`TOOL_LIST_BUDGET`].
pub(crate) fn table(tools: &[Tool]) -> String {
    let rows = per_tool(tools);
    let total: usize = rows.iter().map(|r| r.tokens).sum();
    let chars: usize = rows.iter().map(|r| r.chars).sum();
    let entries: usize = rows.iter().map(|r| r.entry_tokens).sum();
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(5);
    let mut out = format!(
        "{:width$}  {:>6}  {:>6}  {:>6}  {:>6}\n",
        "tool", "tokens", "share", "chars", "entry"
    );
    for r in &rows {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * r.tokens as f64 / total as f64
        };
        out.push_str(&format!(
            "{:width$}  {:>6}  {share:>5.1}%  {:>6}  {:>6}\n",
            r.name, r.tokens, r.chars, r.entry_tokens
        ));
    }
    out.push_str(&format!(
        "{:width$}  {total:>6}  100.0%  {chars:>6}  {entries:>6}\n\
         tokens: o200k_base, of what a model is sent (name, description, input schema); \
         entry: the whole tools/list entry. Budget of the Lorebase and KB tools: {TOOL_LIST_BUDGET}.\n",
        "total"
    ));
    out
}

#[cfg(test)]
mod tests {
    use herald_core::config::Settings;
    use herald_core::tools::{Audience, Toolbox};

    use super::*;
    use crate::mcp::tool_forms::ToolForms;

    /// The 14 Lorebase tools and the two KB tools, as `tools/list` sends them.
    fn served() -> Vec<Tool> {
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::default();
        settings.kb.dir = Some(dir.path().to_path_buf());
        let toolbox = Toolbox::new(settings).unwrap();
        let forms = ToolForms::new(toolbox.built_in_definitions());
        forms.served(&toolbox.view(None, Audience::OneAgent))
    }

    #[test]
    fn the_tool_list_stays_within_its_budget() {
        let tools = served();
        assert_eq!(tools.len(), 16);
        let rows = per_tool(&tools);
        let total: usize = rows.iter().map(|r| r.tokens).sum();
        assert!(
            total <= TOOL_LIST_BUDGET,
            "the tool list costs {total} tokens, over its budget of {TOOL_LIST_BUDGET}:\n{}",
            table(&tools)
        );
        // What the model is sent is most of the entry, never more than it.
        assert!(
            rows.iter()
                .all(|r| r.tokens < r.entry_tokens && r.tokens > 50)
        );
    }

    #[test]
    fn counts_like_o200k_base() {
        // "hello world" is two tokens in o200k_base (and in cl100k_base).
        assert_eq!(count("hello world"), 2);
        assert_eq!(count(""), 0);
    }
}
