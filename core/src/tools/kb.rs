//! The KB tools, `kb_search` and `kb_get`, over a markdown catalog
//! ([`crate::kb`]), shaped as the Lorebase tools are: each tool is one
//! `KbTool` impl (its definition, its argument type, whose doc comments are
//! the descriptions a model sees and from which its input schema is derived,
//! and its handler), and `TOOLS` is their table. Their arguments are read
//! leniently where runlore-mcp.md says so (every issue at once, `k` clamped:
//! `tools::args::LenientCount`); unknown arguments are refused by
//! the check every built-in tool shares. `KbTools` is the `ToolSource`
//! that offers them when `kb.dir` is set. Their answers are built as JSON by
//! [`crate::render::kb`] (no wire type to derive a schema from), so their
//! output schemas are written here, on each tool.

use std::sync::LazyLock;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::args::{LenientCount, LenientText, Scope, argument_names, check_names, issue, take};
use super::schema;
use super::source::ToolSource;
use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::{KbCatalog, KbError};
use crate::keeper::Credential;
use crate::keeper::model::{Issue, Open, ProblemCode, uncut};
use crate::render::caps::{self, Identifiers};
use crate::render::{self, OutputFormat, finish};
use crate::tool::{RenderedOutput, ToolAnnotations, ToolDefinition};

/// `kb_search`.
pub const KB_SEARCH: &str = "kb_search";
/// `kb_get`.
pub const KB_GET: &str = "kb_get";
/// The KB tools, in the order models see them (that of `TOOLS`).
pub const NAMES: [&str; 2] = [KbSearch::NAME, KbGet::NAME];
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

/// One KB tool: its definition, its argument type and its handler.
pub(crate) trait KbTool {
    /// Unique name (`kb_search`).
    const NAME: &'static str;
    /// A human title.
    const TITLE: &'static str;
    /// What it is for, one example (`Example: {...}`, a valid call).
    const DESCRIPTION: &'static str;
    /// What a call with bad arguments does instead (its `next:`).
    const USAGE: &'static str;

    /// Its own arguments besides `format`, as read: a struct whose doc
    /// comments are the descriptions a model sees, of lenient types (every
    /// value parses; each field's check adds its issue).
    type Input: DeserializeOwned + JsonSchema;
    /// The checked arguments.
    type Args;

    /// Checks the arguments read, adding an issue per bad one.
    fn check(input: Self::Input, format: OutputFormat, issues: &mut Vec<Issue>) -> Self::Args;

    /// Its output schema, its identifiers marked ([`uncut`]).
    fn output() -> Value;

    /// Runs it over `catalog` (ready), rendering with `ids` under `caps`.
    fn run(
        catalog: &KbCatalog,
        args: Self::Args,
        ids: &Identifiers,
        caps: &OutputSettings,
    ) -> Result<RenderedOutput, ToolError>;
}

/// One row of the table: a KB tool's name, how to define it and how to call it.
#[derive(Clone, Copy)]
pub(crate) struct KbEntry {
    /// Unique name.
    pub name: &'static str,
    /// Its definition (the input schema derived from its argument type).
    pub definition: fn() -> ToolDefinition,
    /// Its output schema, identifiers marked.
    pub output: fn() -> Value,
    /// Runs it: checks the arguments (their names already checked), the
    /// handler, the rendering; a failure is a tool error.
    pub call: fn(&KbCatalog, &Map<String, Value>, &Identifiers, &OutputSettings) -> RenderedOutput,
}

impl std::fmt::Debug for KbEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KbEntry").field("name", &self.name).finish()
    }
}

const fn entry<T: KbTool>() -> KbEntry {
    KbEntry {
        name: T::NAME,
        definition: definition::<T>,
        output: T::output,
        call: call_tool::<T>,
    }
}

/// The KB tools, in the order models see them.
pub(crate) static TOOLS: [KbEntry; 2] = [entry::<KbSearch>(), entry::<KbGet>()];

fn definition<T: KbTool>() -> ToolDefinition {
    ToolDefinition {
        name: T::NAME.to_string(),
        title: T::TITLE.to_string(),
        description: T::DESCRIPTION.to_string(),
        input_schema: schema::input::<T::Input>(Scope::FORMAT),
        output_schema: Some(schema::unmarked(T::output())),
        annotations: ToolAnnotations::reads_or_writes(false),
        meta: None,
    }
}

fn call_tool<T: KbTool>(
    catalog: &KbCatalog,
    arguments: &Map<String, Value>,
    ids: &Identifiers,
    caps: &OutputSettings,
) -> RenderedOutput {
    parse::<T>(arguments)
        .and_then(|args| T::run(catalog, args, ids, caps))
        .unwrap_or_else(|e| e.to_output(caps))
}

/// Reads and checks the arguments of `T` (their names already checked):
/// every issue in one error, in argument order, `format` last.
fn parse<T: KbTool>(arguments: &Map<String, Value>) -> Result<T::Args, ToolError> {
    let mut own = arguments.clone();
    // `format` is read as every tool reads it; its issue is the KB's own.
    let (format, bad_format) = match take::<OutputFormat>(&mut own, "format") {
        Ok(format) => (format.unwrap_or_default(), false),
        Err(_) => (OutputFormat::Text, true),
    };
    let mut issues = Vec::new();
    // Every value of a lenient type parses: this fails only on a bug.
    let input: T::Input = serde_json::from_value(Value::Object(own))
        .map_err(|e| invalid(vec![issue("arguments", &e.to_string())], T::USAGE))?;
    let args = T::check(input, format, &mut issues);
    if bad_format {
        issues.push(issue("format", "must be \"text\" or \"json\""));
    }
    if !issues.is_empty() {
        return Err(invalid(issues, T::USAGE));
    }
    Ok(args)
}

/// What is derived once from the table: the definitions, the argument names
/// each tool takes, the identifiers of each answer.
struct Built {
    definitions: Vec<ToolDefinition>,
    argument_names: Vec<Vec<String>>,
    identifiers: Vec<Identifiers>,
}

static BUILT: LazyLock<Built> = LazyLock::new(|| {
    let definitions: Vec<ToolDefinition> = TOOLS.iter().map(|t| (t.definition)()).collect();
    Built {
        argument_names: definitions
            .iter()
            .map(|d| argument_names(&d.input_schema))
            .collect(),
        identifiers: TOOLS
            .iter()
            .map(|t| Identifiers::from_schema(&(t.output)()))
            .collect(),
        definitions,
    }
});

/// The definitions of `kb_search` and `kb_get`.
pub fn definitions() -> Vec<ToolDefinition> {
    BUILT.definitions.clone()
}

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
/// a tool error saying to retry. Arguments the tool does not take are
/// refused as every built-in tool refuses them.
pub fn call(
    catalog: &KbCatalog,
    name: &str,
    arguments: &Map<String, Value>,
    caps: &OutputSettings,
) -> Option<RenderedOutput> {
    let index = TOOLS.iter().position(|t| t.name == name)?;
    if !catalog.is_ready() {
        let e = KbError::Indexing { seconds: 0 };
        return Some(not_ready(&e).to_output(caps));
    }
    let built = &*BUILT;
    if let Err(e) = check_names(&built.argument_names[index], arguments) {
        return Some(e.to_output(caps));
    }
    Some((TOOLS[index].call)(
        catalog,
        arguments,
        &built.identifiers[index],
        caps,
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
    /// Checks `kb_search` arguments (their names checked already): `query`
    /// required and not blank, `k` an integer (absent or below 1 gives 5,
    /// above 20 gives 20), `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        parse::<KbSearch>(arguments)
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
    /// Checks `kb_get` arguments (their names checked already): `path`
    /// required and not blank, `format`.
    pub fn parse(arguments: &Map<String, Value>) -> Result<Self, ToolError> {
        parse::<KbGet>(arguments)
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
