//! The handlers: one per tool, each mapping its typed arguments to one Keeper
//! call (two for `lorebase_context` with a question, a bounded series of log
//! pages for `lorebase_changes`) and the answer to a rendering.

mod agent;
mod provenance;
mod reads;
mod revisions;

use serde_json::{Map, Value};

use super::RenderedOutput;
use super::args::{Common, Scope, take_common};
use super::table::ToolSpec;
use crate::config::Settings;
use crate::error::{KeeperError, ToolError};
use crate::keeper::{Credential, KeeperClient};

/// What every handler works with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The Keeper client.
    pub keeper: &'a KeeperClient,
    /// The settings (defaults, caps, paging bound).
    pub settings: &'a Settings,
    /// The caller's credential.
    pub cred: &'a Credential,
}

/// Runs the handler of `spec`: shared arguments first, then the tool's own.
pub(crate) async fn run(
    spec: &ToolSpec,
    ctx: Ctx<'_>,
    mut args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let scope = Scope {
        branch: spec.branch,
        at: spec.at,
    };
    let common: Common = take_common(&mut args, ctx.settings, scope)?;
    match spec.name {
        "lorebase_context" => agent::context(ctx, common, args).await,
        "lorebase_schema" => reads::schema(ctx, common, args).await,
        "lorebase_get" => reads::get(ctx, common, args).await,
        "lorebase_resolve" => reads::resolve(ctx, common, args).await,
        "lorebase_query" => reads::query(ctx, common, args).await,
        "lorebase_search" => reads::search(ctx, common, args).await,
        "lorebase_neighborhood" => reads::neighborhood(ctx, common, args).await,
        "lorebase_explain" => provenance::explain(ctx, common, args).await,
        "lorebase_history" => provenance::history(ctx, common, args).await,
        "lorebase_lineage" => provenance::lineage(ctx, common, args).await,
        "lorebase_changes" => revisions::changes(ctx, common, args).await,
        "lorebase_diff" => revisions::diff(ctx, common, args).await,
        "lorebase_execute" => agent::execute(ctx, common, args).await,
        "lorebase_branches" => revisions::branches(ctx, common, args).await,
        // The table and this match are kept in step by the golden tests.
        other => Err(ToolError::new(
            crate::keeper::model::ProblemCode::NotFound,
            format!("no handler for the tool {other}"),
        )),
    }
}

/// A failed Keeper call, as the model sees it.
pub(crate) fn keeper_failed(e: KeeperError) -> ToolError {
    ToolError::from(e)
}

/// Renders a wire answer: its text rendering, or its JSON shape.
pub(crate) fn rendered<T: serde::Serialize>(
    ctx: Ctx<'_>,
    common: &Common,
    answer: &T,
    text: impl FnOnce(&T, &crate::config::OutputSettings) -> String,
) -> RenderedOutput {
    let caps = &ctx.settings.output;
    crate::render::finish(
        common.format,
        || text(answer, caps),
        || serde_json::to_value(answer).unwrap_or(Value::Null),
        caps,
    )
}
