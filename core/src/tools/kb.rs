//! The KB tools, `kb_search` and `kb_get`, over a markdown catalog
//! ([`crate::kb`]): their definitions, their argument checks (lenient where
//! runlore-mcp.md says so: every issue at once, `k` clamped), their handlers,
//! and the [`ToolSource`] that offers them when `kb.dir` is set. Their answers
//! are built as JSON by [`crate::render::kb`] (no wire type to derive a schema
//! from), so their schemas are written here, beside the parsers they describe.

use std::sync::LazyLock;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::schema;
use super::source::ToolSource;
use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::{KbCatalog, KbError};
use crate::keeper::Credential;
use crate::keeper::model::{Issue, Open, ProblemCode};
use crate::render::caps::{self, Identifiers};
use crate::render::{self, OutputFormat, finish};
use crate::tool::{RenderedOutput, ToolAnnotations, ToolDefinition};

/// `kb_search`.
pub const KB_SEARCH: &str = "kb_search";
/// `kb_get`.
pub const KB_GET: &str = "kb_get";
/// The KB tools, in the order models see them.
pub const NAMES: [&str; 2] = [KB_SEARCH, KB_GET];
/// Hits returned when `k` is absent or below 1.
pub const DEFAULT_K: usize = 5;
/// Most hits returned (a larger `k` is capped to it).
pub const MAX_K: usize = 20;
/// Longest path echoed back in a not-found message.
const MAX_ECHOED_PATH: usize = 200;
/// The retry delay a call made while the catalog is being indexed names.
const INDEX_RETRY_S: u32 = 5;

/// The code of a call made while the knowledge base is still being indexed
/// (transient: retry). The KB is Herald's own, not Keeper's: its codes are
/// its own too (docs/tools.md lists them beside Keeper's).
pub const KB_INDEXING: &str = "kb-indexing";

/// The code of a call to a knowledge base whose index failed or cannot be
/// searched.
pub const KB_UNAVAILABLE: &str = "kb-unavailable";

const READ_ONLY: ToolAnnotations = ToolAnnotations::reads_or_writes(false);

fn format_schema() -> Value {
    schema::shared_argument("format")
}

fn hit_schema() -> Value {
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "required": ["path", "type", "title", "description", "resource", "tags", "score"],
        "properties": {
            "path": {"type": "string", "description": "Catalog-relative path; pass it to kb_get unchanged.", "x-identifier": true},
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

/// `kb_get`'s output schema, its identifiers (`path`) marked.
fn get_output() -> Value {
    let text = json!({"type": "string"});
    json!({
        "type": "object",
        "required": ["path", "type", "title", "body"],
        "properties": {
            "path": {"type": "string", "x-identifier": true}, "type": text, "title": text, "description": text,
            "resource": text, "alert_resource": text,
            "tags": {"type": "array", "items": {"type": "string"}},
            "status": text, "last_validated": text, "timestamp": text, "fingerprint": text,
            "body": {"type": "string", "description": "The markdown body."},
            "cuts": caps::cuts_schema()
        }
    })
}

/// The identifiers of `kb_search`'s answer, never cut.
static SEARCH_IDS: LazyLock<Identifiers> =
    LazyLock::new(|| Identifiers::from_schema(&search_output()));
/// The identifiers of `kb_get`'s answer, never cut.
static GET_IDS: LazyLock<Identifiers> = LazyLock::new(|| Identifiers::from_schema(&get_output()));

/// The definitions of `kb_search` and `kb_get`.
pub fn definitions() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: KB_SEARCH.into(),
            title: "Search the knowledge base".into(),
            description: "Search the knowledge base: find markdown notes (a runbook, incident \
                note, how-to) by words or identifiers (BM25): scored hits with path, title, \
                description, resource, tags and status. Read one with kb_get. \
                Example: {\"query\": \"harbor-core OOMKilled\"}"
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "description": "Words or identifiers to search for."},
                    "k": schema::house_argument(json!({"type": "integer", "default": DEFAULT_K, "description": "How many hits; below 1 gives 5, above 20 gives 20."})),
                    "format": format_schema()
                },
                "required": ["query"],
                "additionalProperties": false
            }),
            output_schema: Some(schema::unmarked(search_output())),
            annotations: READ_ONLY,
            meta: None,
        },
        ToolDefinition {
            name: KB_GET.into(),
            title: "Read a knowledge-base entry".into(),
            description: "Read one knowledge-base note whole, by the path of a kb_search \
                hit: its frontmatter (type, title, tags, status, last_validated, timestamp...) \
                and markdown body. Example: {\"path\": \"runbooks/harbor-core-oom.md\"}"
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "minLength": 1, "description": "The entry path from a kb_search hit."},
                    "format": format_schema()
                },
                "required": ["path"],
                "additionalProperties": false
            }),
            output_schema: Some(schema::unmarked(get_output())),
            annotations: READ_ONLY,
            meta: None,
        },
    ]
}

/// The KB tools of one toolbox: offered when a catalog is open.
#[derive(Debug, Clone)]
pub(crate) struct KbTools {
    catalog: Option<KbCatalog>,
    caps: OutputSettings,
    /// How long a call waits for the first index (`kb.index_wait_s`).
    index_wait: Duration,
}

impl KbTools {
    /// The tools over `catalog` (none without one), under `caps`; a call
    /// waits at most `index_wait` for the catalog's first index.
    pub(crate) fn new(
        catalog: Option<KbCatalog>,
        caps: OutputSettings,
        index_wait: Duration,
    ) -> Self {
        Self {
            catalog,
            caps,
            index_wait,
        }
    }

    /// The open catalog.
    pub(crate) fn catalog(&self) -> Option<&KbCatalog> {
        self.catalog.as_ref()
    }
}

impl ToolSource for KbTools {
    fn owns(&self, name: &str) -> bool {
        NAMES.contains(&name)
    }

    fn offers(&self, name: &str) -> Option<bool> {
        (self.catalog.is_some() && self.owns(name)).then_some(false)
    }

    fn definitions(&self) -> Vec<ToolDefinition> {
        if self.catalog.is_some() {
            definitions()
        } else {
            Vec::new()
        }
    }

    async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        _credential: &Credential,
    ) -> Option<RenderedOutput> {
        let catalog = self.catalog.as_ref()?;
        if !self.owns(name) {
            return None;
        }
        if let Err(e) = catalog.ready(self.index_wait).await {
            return Some(not_ready(&e).to_output(&self.caps));
        }
        call(catalog, name, &arguments, &self.caps)
    }
}

/// Runs `name` when it is a KB tool (`None` otherwise). Before the
/// catalog's first index is built (see [`KbCatalog::start`]), the call is
/// a tool error saying to retry.
pub fn call(
    catalog: &KbCatalog,
    name: &str,
    arguments: &Map<String, Value>,
    caps: &OutputSettings,
) -> Option<RenderedOutput> {
    if !NAMES.contains(&name) {
        return None;
    }
    if !catalog.is_ready() {
        let e = KbError::Indexing { seconds: 0 };
        return Some(not_ready(&e).to_output(caps));
    }
    let output = match name {
        KB_SEARCH => search(catalog, arguments, caps),
        KB_GET => get(catalog, arguments, caps),
        _ => return None,
    };
    Some(output.unwrap_or_else(|e| e.to_output(caps)))
}

fn search(
    catalog: &KbCatalog,
    arguments: &Map<String, Value>,
    caps: &OutputSettings,
) -> Result<RenderedOutput, ToolError> {
    let args = SearchArgs::parse(arguments)?;
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
        &SEARCH_IDS,
        caps,
    ))
}

fn get(
    catalog: &KbCatalog,
    arguments: &Map<String, Value>,
    caps: &OutputSettings,
) -> Result<RenderedOutput, ToolError> {
    let args = GetArgs::parse(arguments)?;
    let entry = catalog
        .get(&args.path)
        .ok_or_else(|| not_found(&args.path))?;
    // The body is the answer: cut only by the overall max_chars, not by the
    // per-value cap meant for record attributes.
    let entry_caps = OutputSettings {
        max_value_chars: caps.max_value_chars.max(caps.max_chars),
        ..caps.clone()
    };
    Ok(finish(
        args.format,
        || render::kb::entry_text(&entry),
        || render::kb::entry_json(&entry),
        &GET_IDS,
        &entry_caps,
    ))
}

/// The error of a call made before the first index is built, or after it
/// failed: transient, retry.
pub fn not_ready(e: &KbError) -> ToolError {
    let (code, next) = match e {
        KbError::Indexing { .. } => (
            KB_INDEXING,
            format!(
                "retry after {INDEX_RETRY_S} s: the knowledge base is indexed in the background from startup"
            ),
        ),
        _ => (
            KB_UNAVAILABLE,
            "check Herald's log; the catalog is indexed again when its folder changes".into(),
        ),
    };
    ToolError {
        code: Open::Other(code.into()),
        message: e.to_string(),
        issues: Vec::new(),
        head: None,
        retry_after: Some(INDEX_RETRY_S),
        next: Some(next),
    }
}

/// The error of an unknown `kb_get` path.
pub fn not_found(path: &str) -> ToolError {
    let shown = if path.chars().count() > MAX_ECHOED_PATH {
        format!("{}...", caps::prefix_chars(path, MAX_ECHOED_PATH))
    } else {
        path.to_string()
    };
    ToolError {
        code: ProblemCode::NotFound.into(),
        message: format!("no entry at {shown:?} (use kb_search to discover paths)"),
        issues: Vec::new(),
        head: None,
        retry_after: None,
        next: Some(
            "call kb_search with words from the entry, then pass a hit's path to kb_get unchanged"
                .into(),
        ),
    }
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
    /// Checks `kb_search` arguments: `query` required and not blank, `k` an
    /// integer (absent or below 1 gives 5, above 20 gives 20), `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        let mut issues = unknown_keys(arguments, &["query", "k", "format"]);
        let query = required_string(arguments, "query", &mut issues);
        let k = match arguments.get("k") {
            None | Some(Value::Null) => DEFAULT_K,
            Some(value) => match integer(value) {
                Some(k) if k < 1 => DEFAULT_K,
                Some(k) => usize::try_from(k).unwrap_or(MAX_K).min(MAX_K),
                None => {
                    issues.push(issue("k", "must be an integer"));
                    DEFAULT_K
                }
            },
        };
        let format = format_arg(arguments, &mut issues);
        if !issues.is_empty() {
            return Err(invalid(
                issues,
                "pass the words to search for, for example {\"query\": \"harbor-core restarts\", \"k\": 5}",
            ));
        }
        Ok(Self {
            query: query.unwrap_or_default(),
            k,
            format,
        })
    }
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
    /// Checks `kb_get` arguments: `path` required and not blank, `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        let mut issues = unknown_keys(arguments, &["path", "format"]);
        let path = required_string(arguments, "path", &mut issues);
        let format = format_arg(arguments, &mut issues);
        if !issues.is_empty() {
            return Err(invalid(
                issues,
                "pass the path of a kb_search hit, for example {\"path\": \"runbooks/harbor-core-oom.md\"}",
            ));
        }
        Ok(Self {
            path: path.unwrap_or_default(),
            format,
        })
    }
}

fn issue(path: &str, message: &str) -> Issue {
    Issue {
        path: path.into(),
        message: message.into(),
    }
}

fn invalid(issues: Vec<Issue>, next: &str) -> ToolError {
    let message = if issues.len() == 1 {
        format!("{} {}", issues[0].path, issues[0].message)
    } else {
        format!("{} invalid arguments", issues.len())
    };
    ToolError {
        code: ProblemCode::ValidationFailed.into(),
        message,
        issues,
        head: None,
        retry_after: None,
        next: Some(next.into()),
    }
}

fn unknown_keys(arguments: &Map<String, Value>, known: &[&str]) -> Vec<Issue> {
    arguments
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .map(|key| {
            let shown: String = key.chars().take(64).collect();
            issue(
                &shown,
                &format!("is not an argument (expected one of: {})", known.join(", ")),
            )
        })
        .collect()
}

fn required_string(
    arguments: &Map<String, Value>,
    key: &str,
    issues: &mut Vec<Issue>,
) -> Option<String> {
    match arguments.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::String(_)) => {
            issues.push(issue(key, "must not be empty"));
            None
        }
        None | Some(Value::Null) => {
            issues.push(issue(key, "is required"));
            None
        }
        Some(_) => {
            issues.push(issue(key, "must be a string"));
            None
        }
    }
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_u64().map(|_| i64::MAX).or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.is_finite())
                    .map(|f| f as i64)
            })
        }),
        _ => None,
    }
}

fn format_arg(arguments: &Map<String, Value>, issues: &mut Vec<Issue>) -> OutputFormat {
    match arguments.get("format") {
        None | Some(Value::Null) => OutputFormat::Text,
        Some(Value::String(s)) if s == "text" => OutputFormat::Text,
        Some(Value::String(s)) if s == "json" => OutputFormat::Json,
        Some(_) => {
            issues.push(issue("format", "must be \"text\" or \"json\""));
            OutputFormat::Text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The KB's own codes: a model does not blame Keeper for a local index.
    #[test]
    fn a_kb_not_ready_has_its_own_codes() {
        let caps = crate::config::Settings::default().output;
        let indexing = not_ready(&KbError::Indexing { seconds: 3 }).render(&caps);
        assert!(
            indexing.starts_with("[kb-indexing] the knowledge base is still being indexed"),
            "{indexing}"
        );
        assert!(indexing.ends_with("\nnext: retry after 5 s: the knowledge base is indexed in the background from startup"), "{indexing}");
        let failed = not_ready(&KbError::Index("disk full".into())).render(&caps);
        assert_eq!(
            failed,
            "[kb-unavailable] KB index error: disk full\nnext: check Herald's log; the catalog is indexed again when its folder changes"
        );
    }
}
