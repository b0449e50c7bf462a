//! What one KB tool is ([`KbTool`]): its definition, its argument type and
//! its handler, in one `impl`; and the row ([`ToolEntry`]) through which the
//! toolbox lists and calls it (the Lorebase tools' shape, `tools::lorebase::tool`).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::KbCatalog;
use crate::keeper::model::Issue;
use crate::render::OutputFormat;
use crate::render::caps::Identifiers;
use crate::tool::{RenderedOutput, SEARCH_HINT_META, ToolAnnotations, ToolDefinition};
use crate::tools::args::{Scope, issue, listed, take};
use crate::tools::schema;
use crate::tools::search_hint::with_common_words;

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
    /// Phrases an agent searches with for it (`_meta["anthropic/searchHint"]`,
    /// sent with [`crate::tools::search_hint::COMMON_WORDS`]; no tokens).
    const SEARCH_HINT: &'static str;

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
pub(crate) struct ToolEntry {
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

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.name)
            .finish()
    }
}

pub(crate) const fn entry<T: KbTool>() -> ToolEntry {
    ToolEntry {
        name: T::NAME,
        definition: definition::<T>,
        output: T::output,
        call: call_tool::<T>,
    }
}

fn definition<T: KbTool>() -> ToolDefinition {
    ToolDefinition {
        name: T::NAME.to_string(),
        title: T::TITLE.to_string(),
        description: T::DESCRIPTION.to_string(),
        input_schema: schema::input::<T::Input>(Scope::FORMAT),
        output_schema: Some(schema::unmarked(T::output())),
        annotations: ToolAnnotations::reads_or_writes(false),
        meta: Some(Map::from_iter([(
            SEARCH_HINT_META.to_string(),
            Value::String(with_common_words(T::SEARCH_HINT)),
        )])),
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
pub(crate) fn parse<T: KbTool>(arguments: &Map<String, Value>) -> Result<T::Args, ToolError> {
    let mut own = arguments.clone();
    // `format` is read as every tool reads it; its issue is the KB's own.
    let (format, bad_format) = match take::<OutputFormat>(&mut own, "format") {
        Ok(format) => (format.unwrap_or_default(), false),
        Err(_) => (OutputFormat::Text, true),
    };
    let mut issues = Vec::new();
    // Every value of a lenient type parses: this fails only on a bug.
    let input: T::Input = serde_json::from_value(Value::Object(own))
        .map_err(|e| listed(vec![issue("arguments", &e.to_string())], T::USAGE))?;
    let args = T::check(input, format, &mut issues);
    if bad_format {
        issues.push(issue("format", "must be \"text\" or \"json\""));
    }
    if !issues.is_empty() {
        return Err(listed(issues, T::USAGE));
    }
    Ok(args)
}
