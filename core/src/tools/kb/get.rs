//! `kb_get`: one catalog entry, whole.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::errors::not_found;
use super::tool::{KbTool, parse};
use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::KbCatalog;
use crate::keeper::model::{Issue, uncut};
use crate::render::caps::{self, Identifiers};
use crate::render::{self, OutputFormat, finish};
use crate::tool_interface::RenderedOutput;
use crate::tools::args::LenientText;

/// `kb_get`.
pub const KB_GET: &str = "kb_get";

/// `kb_get`.
pub(crate) struct KbGet;

/// `kb_get`'s arguments besides `format`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct GetInput {
    /// The entry path from a kb_search hit.
    path: LenientText,
}

impl KbTool for KbGet {
    const NAME: &'static str = KB_GET;
    const TITLE: &'static str = "Read a knowledge-base entry";
    const DESCRIPTION: &'static str = "Read one knowledge-base note whole, by the path of a \
        kb_search hit: its frontmatter (type, title, tags, status, last_validated, timestamp...) \
        and markdown body. Example: {\"path\": \"runbooks/harbor-core-oom.md\"}";
    const SEARCH_HINT: &'static str = "knowledge base: read a runbook, open a note, get a \
        markdown document, incident note or how-to by its path, whole page, full text \
        of a note";
    const USAGE: &'static str =
        "pass the path of a kb_search hit, for example {\"path\": \"runbooks/harbor-core-oom.md\"}";
    type Input = GetInput;
    type Args = GetArgs;

    fn check(input: GetInput, format: OutputFormat, issues: &mut Vec<Issue>) -> GetArgs {
        GetArgs {
            path: input.path.check("path", issues),
            format,
        }
    }

    fn output() -> Value {
        get_output()
    }

    fn run(
        catalog: &KbCatalog,
        args: GetArgs,
        ids: &Identifiers,
        caps: &OutputSettings,
    ) -> Result<RenderedOutput, ToolError> {
        let entry = catalog
            .get(&args.path)
            .ok_or_else(|| not_found(&args.path))?;
        // The body is the answer: cut only by the overall max_chars, not by
        // the per-value cap meant for record attributes.
        let entry_caps = OutputSettings {
            max_value_chars: caps.max_value_chars.max(caps.max_chars),
            ..caps.clone()
        };
        Ok(finish(
            args.format,
            || render::kb::entry_text(&entry),
            || render::kb::entry_json(&entry),
            ids,
            &entry_caps,
        ))
    }
}

/// `kb_get`'s output schema, its identifiers (`path`) marked.
fn get_output() -> Value {
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "required": ["path", "type", "title", "body"],
        "properties": {
            "path": uncut(json!({"type": "string"})), "type": text, "title": text, "description": text,
            "resource": text, "alert_resource": text,
            "tags": {"type": "array", "items": {"type": "string"}},
            "status": text, "last_validated": text, "timestamp": text, "fingerprint": text,
            "body": {"type": "string", "description": "The markdown body."},
            "cuts": caps::cuts_schema()
        }
    })
}

/// The checked arguments of `kb_get`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetArgs {
    /// The entry path (not blank).
    pub path: String,
    /// The output format.
    pub format: OutputFormat,
}

impl GetArgs {
    /// Checks `kb_get` arguments (their names checked already): `path`
    /// required and not blank, `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        parse::<KbGet>(arguments)
    }
}
