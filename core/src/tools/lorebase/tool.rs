//! What one Lorebase tool is ([`LorebaseTool`]): its definition, its argument
//! and answer types (the schemas are derived from them), its handler and its
//! text rendering, all in one `impl`; and the row ([`ToolEntry`]) through
//! which the toolbox lists and calls it.

use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::{Credential, KeeperClient};
use crate::render;
use crate::render::caps::Identifiers;
use crate::tool::{RenderedOutput, SEARCH_HINT_META, ToolAnnotations, ToolDefinition};
use crate::tools::args::{Arguments, Checks, Common, Scope, parse, take_common};
use crate::tools::schema;
use crate::tools::search_hint::with_common_words;

/// What every handler works with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The Keeper client.
    pub keeper: &'a KeeperClient,
    /// The settings (defaults, caps, paging bound).
    pub settings: &'a Settings,
    /// The caller's credential.
    pub cred: &'a Credential,
    /// The answer's identifiers, never cut (collected once per toolbox).
    pub ids: &'a Identifiers,
}

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

/// A call of one tool, under way.
pub(crate) type Running<'a> = Pin<Box<dyn Future<Output = RenderedOutput> + Send + 'a>>;

/// One row of the table: a tool's name and whether it writes, how to define
/// it and how to call it.
#[derive(Clone, Copy)]
pub(crate) struct ToolEntry {
    /// Unique name.
    pub name: &'static str,
    /// Its group (`reads`, `provenance`, `revisions`, `agent`: its module).
    pub group: &'static str,
    /// Whether it writes.
    pub writes: bool,
    /// The Keeper routes it calls ([`LorebaseTool::KEEPER`]).
    pub keeper: &'static [&'static str],
    /// Its definition (schemas derived from its types).
    pub definition: fn() -> ToolDefinition,
    /// Its answer's identifiers (the fields its wire type marks).
    pub identifiers: fn() -> Identifiers,
    /// Runs it: shared arguments, its own, the handler, the rendering; a
    /// failure is a tool error.
    pub call: for<'a> fn(Ctx<'a>, Map<String, Value>) -> Running<'a>,
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// The row of `T`, in `group`.
pub(crate) const fn entry<T: LorebaseTool>(group: &'static str) -> ToolEntry {
    ToolEntry {
        name: T::NAME,
        group,
        writes: T::WRITES,
        keeper: T::KEEPER,
        definition: definition::<T>,
        identifiers: schema::identifiers::<T::Answer>,
        call: call::<T>,
    }
}

fn definition<T: LorebaseTool>() -> ToolDefinition {
    ToolDefinition {
        name: T::NAME.to_string(),
        title: T::TITLE.to_string(),
        description: T::DESCRIPTION.to_string(),
        input_schema: schema::input::<T::Args>(T::SCOPE),
        output_schema: Some(schema::output::<T::Answer>()),
        annotations: ToolAnnotations::reads_or_writes(T::WRITES),
        meta: Some(Map::from_iter([(
            SEARCH_HINT_META.to_string(),
            Value::String(with_common_words(T::SEARCH_HINT)),
        )])),
    }
}

fn call<'a, T: LorebaseTool>(ctx: Ctx<'a>, args: Map<String, Value>) -> Running<'a> {
    Box::pin(async move {
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
