//! `kb_search`: the catalog's BM25 search.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::errors::KB_UNAVAILABLE;
use super::tool::{KbTool, parse};
use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::KbCatalog;
use crate::keeper::model::{Issue, Open, uncut};
use crate::render::caps::{self, Identifiers};
use crate::render::{self, OutputFormat, finish};
use crate::tool_interface::RenderedOutput;
use crate::tools::args::{LenientCount, LenientText};

/// `kb_search`.
pub const KB_SEARCH: &str = "kb_search";
/// Hits returned when `k` is absent or below 1.
pub const DEFAULT_K: usize = 5;
/// Most hits returned (a larger `k` is capped to it).
pub const MAX_K: usize = 20;

/// `kb_search`.
pub(crate) struct KbSearch;

/// `kb_search`'s arguments besides `format`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct SearchInput {
    /// Words or identifiers to search for.
    query: LenientText,
    /// How many hits; below 1 gives 5, above 20 gives 20.
    k: Option<LenientCount<DEFAULT_K, MAX_K>>,
}

impl KbTool for KbSearch {
    const NAME: &'static str = KB_SEARCH;
    const TITLE: &'static str = "Search the knowledge base";
    const DESCRIPTION: &'static str = "Search the knowledge base: find markdown notes (a runbook, \
        incident note, how-to) by words or identifiers (BM25): scored hits with path, title, \
        description, resource, tags and status. Read one with kb_get. \
        Example: {\"query\": \"harbor-core OOMKilled\"}";
    const SEARCH_HINT: &'static str = "knowledge base: search runbooks, incident notes, how-to \
        guides, playbooks, postmortems, docs, documentation, markdown notes, wiki, \
        procedures, troubleshooting, outage, error, fix, what to do when";
    const USAGE: &'static str =
        "pass the words to search for, for example {\"query\": \"harbor-core restarts\", \"k\": 5}";
    type Input = SearchInput;
    type Args = SearchArgs;

    fn check(input: SearchInput, format: OutputFormat, issues: &mut Vec<Issue>) -> SearchArgs {
        SearchArgs {
            query: input.query.check("query", issues),
            k: input.k.map_or(DEFAULT_K, |k| k.check("k", issues)),
            format,
        }
    }

    fn output() -> Value {
        search_output()
    }

    fn run(
        catalog: &KbCatalog,
        args: SearchArgs,
        ids: &Identifiers,
        caps: &OutputSettings,
    ) -> Result<RenderedOutput, ToolError> {
        let hits = catalog.search(&args.query, args.k).map_err(|e| ToolError {
            code: Open::Other(KB_UNAVAILABLE.into()),
            message: e.to_string(),
            issues: Vec::new(),
            head: None,
            retry_after: None,
            next: Some("retry; if it persists, restart Herald".into()),
        })?;
        Ok(finish(
            args.format,
            || render::kb::search_text(&args.query, &hits),
            || render::kb::search_json(&args.query, &hits),
            ids,
            caps,
        ))
    }
}

fn hit_schema() -> Value {
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "required": ["path", "type", "title", "description", "resource", "tags", "score"],
        "properties": {
            "path": uncut(json!({"type": "string", "description": "Catalog-relative path; pass it to kb_get unchanged."})),
            "type": {"type": "string", "description": "The entry's type (empty when it has none)."},
            "title": text, "description": text, "resource": text,
            "tags": {"type": "array", "items": {"type": "string"}},
            "status": text, "last_validated": text,
            "score": {"type": "number", "description": "BM25 score, higher is better."}
        }
    })
}

/// `kb_search`'s output schema, its identifiers (`path`) marked.
fn search_output() -> Value {
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "required": ["query", "hits"],
        "properties": {
            "query": text,
            "hits": {"type": "array", "items": hit_schema()},
            "cuts": caps::cuts_schema()
        }
    })
}

/// The checked arguments of `kb_search`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchArgs {
    /// The query (not blank).
    pub query: String,
    /// Hits wanted, 1 to [`MAX_K`].
    pub k: usize,
    /// The output format.
    pub format: OutputFormat,
}

impl SearchArgs {
    /// Checks `kb_search` arguments (their names checked already): `query`
    /// required and not blank, `k` an integer (absent or below 1 gives 5,
    /// above 20 gives 20), `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        parse::<KbSearch>(arguments)
    }
}
