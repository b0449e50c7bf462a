//! What one Lorebase tool is ([`LorebaseTool`]): its definition, its argument
//! and answer types (the schemas are derived from them), its handler and its
//! text rendering, and its facts beside them (the Domain words its search
//! hint carries, its line in the instructions' task map), all in one `impl`;
//! and its row of the table ([`entry`], the one shape every built-in tool
//! has: [`crate::tools::entry::ToolEntry`]).

use std::future::Future;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::error::ToolError;
use crate::render;
use crate::tool_interface::RenderedOutput;
use crate::tools::args::{Arguments, Checks, Common, Scope, check_names, parse, take_common};
use crate::tools::entry::{Ctx, Defined, DefinitionParts, Running, TaskMention, ToolEntry};
use crate::tools::schema;
use crate::tools::search_hint::DomainWord;
use crate::tools::source::ToolOrigin;

/// One Lorebase tool.
pub(crate) trait LorebaseTool {
    /// Unique name (`lorebase_get`).
    const NAME: &'static str;
    /// A human title.
    const TITLE: &'static str;
    /// What it is for, when to use it instead of another tool, one example
    /// (`Example: {...}`, a valid call).
    const DESCRIPTION: &'static str;
    /// Phrases an agent searches with for it, beyond its description's
    /// (Claude Code's ToolSearch matches `_meta["anthropic/searchHint"]`;
    /// the model never reads it, so it costs no tokens): sent with
    /// [`crate::tools::search_hint::COMMON_WORDS`] after it, and the
    /// Domain's words where the MCP server knows them.
    const SEARCH_HINT: &'static str;
    /// The shared arguments it takes (`domain` and `format` always).
    const SCOPE: Scope;
    /// Whether it writes (only `lorebase_execute`).
    const WRITES: bool = false;
    /// The kinds of the Domain's words its search hint carries, where the
    /// MCP server knows them ([`crate::tools::search_hint::DomainWords`]).
    const DOMAIN_WORDS: &'static [DomainWord] = &[];
    /// Its line in the server instructions' task map, if it has one.
    const TASK: Option<TaskMention> = None;
    /// The Keeper routes it may call, in the order it calls them: the
    /// templates of [`crate::keeper::endpoint`]'s values (docs/tools.md
    /// lists them).
    const KEEPER: &'static [&'static str];

    /// Its own arguments: a struct whose doc comments are the descriptions
    /// a model sees (an argument its schema does not list is refused before
    /// it is parsed, by [`crate::tools::args::check_names`]).
    /// Each is checked by its type (`tool_arguments!`) before [`Self::run`].
    type Args: Arguments<Checked: Send> + DeserializeOwned + JsonSchema + Send;
    /// Its answer: the `json` format and `structuredContent` (the fields
    /// its type marks [`crate::keeper::model::Uncut`] are never cut).
    type Answer: Serialize + JsonSchema + Send + Sync + 'static;

    /// Calls Keeper with the checked arguments, returns the answer.
    fn run(
        ctx: Ctx<'_>,
        common: &Common,
        args: <Self::Args as Arguments>::Checked,
    ) -> impl Future<Output = Result<Self::Answer, ToolError>> + Send;

    /// The `text` format of the answer (a renderer of [`crate::render`]).
    fn text(answer: &Self::Answer, settings: &Settings) -> render::Text;
}

/// The row of `T`, in `group`.
pub(crate) const fn entry<T: LorebaseTool>(group: &'static str) -> ToolEntry {
    ToolEntry {
        name: T::NAME,
        group,
        origin: ToolOrigin::Lorebase,
        writes: T::WRITES,
        keeper: T::KEEPER,
        domain_words: T::DOMAIN_WORDS,
        task: T::TASK,
        definition: definition::<T>,
        call: call::<T>,
    }
}

fn definition<T: LorebaseTool>() -> Defined {
    let (output_schema, identifiers) = schema::output::<T::Answer>();
    let definition = DefinitionParts {
        name: T::NAME,
        title: T::TITLE,
        description: T::DESCRIPTION,
        search_hint: T::SEARCH_HINT,
        writes: T::WRITES,
        input_schema: schema::input::<T::Args>(T::SCOPE),
        output_schema,
    }
    .build();
    Defined {
        definition,
        identifiers,
    }
}

fn call<'a, T: LorebaseTool>(ctx: Ctx<'a>, args: Map<String, Value>) -> Running<'a> {
    Box::pin(async move {
        if let Err(e) = check_names(ctx.names, &args) {
            return e.to_output(&ctx.settings.output);
        }
        run::<T>(ctx, args)
            .await
            .unwrap_or_else(|e| e.to_output(&ctx.settings.output))
    })
}

/// Shared arguments first, then the tool's own, the handler, the rendering.
async fn run<T: LorebaseTool>(
    ctx: Ctx<'_>,
    mut args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    // The shared arguments' errors and the tool's own come in one answer.
    let mut v = Checks::default();
    let common = v.keep(take_common(&mut args, ctx.settings, T::SCOPE));
    let own: Option<T::Args> = v.keep(parse(args));
    let (common, own) = v.done_with(common.zip(own))?;
    let answer = T::run(ctx, &common, own.check()?).await?;
    let caps = &ctx.settings.output;
    Ok(render::finish(
        common.format,
        || T::text(&answer, ctx.settings),
        || serde_json::to_value(&answer).unwrap_or(Value::Null),
        ctx.ids,
        caps,
    ))
}
