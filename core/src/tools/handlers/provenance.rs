//! Handlers of provenance: explain, history, lineage.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Ctx, keeper_failed, rendered};
use crate::error::ToolError;
use crate::keeper::model::*;
use crate::render;
use crate::tools::RenderedOutput;
use crate::tools::args::{self, Common, parse};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplainArgs {
    #[serde(rename = "ref")]
    record: String,
    attributes: Option<Vec<String>>,
}

/// `lorebase_explain`: `GET .../records/{key}/explain`.
pub(super) async fn explain(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: ExplainArgs = parse(args)?;
    let record = args::record_ref("ref", &a.record)?;
    let params = ProvenanceParams {
        read: c.read.clone(),
        attributes: args::joined(args::names("attributes", a.attributes, 100)?),
        ..ProvenanceParams::default()
    };
    let answer = ctx
        .keeper
        .explain(ctx.cred, &c.domain, &record, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::provenance::explain))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryArgs {
    #[serde(rename = "ref")]
    record: String,
    values: Option<bool>,
    limit: Option<u32>,
    cursor: Option<String>,
}

/// `lorebase_history`: `GET .../records/{key}/history`.
pub(super) async fn history(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: HistoryArgs = parse(args)?;
    let record = args::record_ref("ref", &a.record)?;
    let params = ProvenanceParams {
        read: c.read.clone(),
        values: a.values,
        limit: args::range("limit", a.limit, 1, 200)?,
        cursor: args::cursor(a.cursor)?,
        ..ProvenanceParams::default()
    };
    let answer = ctx
        .keeper
        .history(ctx.cred, &c.domain, &record, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::provenance::history))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LineageArgs {
    #[serde(rename = "ref")]
    record: String,
}

/// `lorebase_lineage`: `GET .../records/{key}/lineage`.
pub(super) async fn lineage(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: LineageArgs = parse(args)?;
    let record = args::record_ref("ref", &a.record)?;
    let params = ProvenanceParams {
        read: c.read.clone(),
        ..ProvenanceParams::default()
    };
    let answer = ctx
        .keeper
        .lineage(ctx.cred, &c.domain, &record, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::provenance::lineage))
}
