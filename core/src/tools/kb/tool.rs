//! What one KB tool is ([`KbTool`]): its definition, its argument type and
//! its handler, in one `impl`; and its row of the table ([`entry`], the one
//! shape every built-in tool has: [`crate::tools::entry::ToolEntry`]).

use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::errors::not_ready;
use crate::config::OutputSettings;
use crate::error::ToolError;
use crate::kb::{KbCatalog, KbError};
use crate::keeper::model::Issue;
use crate::render::OutputFormat;
use crate::render::caps::Identifiers;
use crate::tool_interface::RenderedOutput;
use crate::tools::args::{Scope, check_names, issue, listed, take};
use crate::tools::entry::{Ctx, Defined, DefinitionParts, Running, ToolEntry};
use crate::tools::schema;
use crate::tools::selection::KB_GROUP;
use crate::tools::source::ToolOrigin;

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

    /// Its output schema, its identifiers marked ([`uncut`](crate::keeper::model::uncut)).
    fn output() -> Value;

    /// Runs it over `catalog` (ready), rendering with `ids` under `caps`.
    fn run(
        catalog: &KbCatalog,
        args: Self::Args,
        ids: &Identifiers,
        caps: &OutputSettings,
    ) -> Result<RenderedOutput, ToolError>;
}

/// The row of `T`, in the group `kb`.
pub(crate) const fn entry<T: KbTool>() -> ToolEntry {
    ToolEntry {
        name: T::NAME,
        origin: ToolOrigin::Kb,
        group: KB_GROUP,
        writes: false,
        keeper: &[],
        domain_words: &[],
        task: None,
        definition: definition::<T>,
        call: call::<T>,
    }
}

fn definition<T: KbTool>() -> Defined {
    let output = T::output();
    let identifiers = Identifiers::from_schema(&output);
    let definition = DefinitionParts {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        search_hint: T::SEARCH_HINT,
        writes: false,
        input_schema: schema::input::<T::Input>(Scope::FORMAT),
        output_schema: schema::unmarked(output),
    }
    .build();
    Defined {
        definition,
        identifiers,
    }
}

/// Waits for the catalog's first index (at most `kb.index_wait_s`), then
/// [`call_ready`].
fn call<'a, T: KbTool>(ctx: Ctx<'a>, arguments: Map<String, Value>) -> Running<'a> {
    Box::pin(async move {
        let caps = &ctx.settings.output;
        let Some(catalog) = ctx.kb else {
            return not_ready(&KbError::Indexing { seconds: 0 }).to_output(caps);
        };
        let wait = Duration::from_secs(ctx.settings.kb.index_wait_s);
        if let Err(e) = catalog.ready(wait).await {
            return not_ready(&e).to_output(caps);
        }
        call_ready::<T>(catalog, &arguments, ctx.names, ctx.ids, caps)
    })
}

/// Runs `T` over `catalog`: a tool error saying to retry before its first
/// index is built, then the argument names checked as every built-in tool's
/// are, then the arguments, the handler, the rendering.
pub(crate) fn call_ready<T: KbTool>(
    catalog: &KbCatalog,
    arguments: &Map<String, Value>,
    names: &[String],
    ids: &Identifiers,
    caps: &OutputSettings,
) -> RenderedOutput {
    if !catalog.is_ready() {
        return not_ready(&KbError::Indexing { seconds: 0 }).to_output(caps);
    }
    if let Err(e) = check_names(names, arguments) {
        return e.to_output(caps);
    }
    call_tool::<T>(catalog, arguments, ids, caps)
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
