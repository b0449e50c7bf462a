//! Handlers of the reads: schema, get, resolve, query, search, neighborhood.

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
struct SchemaArgs {
    kinds: Option<Vec<String>>,
    detail: Option<SchemaDetail>,
}

/// `lorebase_schema`: `GET .../schema`.
pub(super) async fn schema(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: SchemaArgs = parse(args)?;
    let params = SchemaParams {
        read: c.read.clone(),
        kinds: args::joined(args::names("kinds", a.kinds, 100)?),
        detail: a.detail,
    };
    let answer = ctx
        .keeper
        .schema(ctx.cred, &c.domain, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::schema))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GetArgs {
    #[serde(rename = "ref")]
    record: String,
    links: Option<bool>,
}

/// `lorebase_get`: `GET .../kinds/{kind}/records/{key}`.
pub(super) async fn get(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: GetArgs = parse(args)?;
    let record = args::record_ref("ref", &a.record)?;
    let params = RecordParams {
        read: c.read.clone(),
        links: a.links,
    };
    let answer = ctx
        .keeper
        .record(ctx.cred, &c.domain, &record, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::record))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResolveArgs {
    text: String,
    kinds: Option<Vec<String>>,
    levels: Option<Vec<ResolveLevel>>,
    query_vector: Option<Vec<f32>>,
    limit: Option<u32>,
}

/// `lorebase_resolve`: `POST .../resolve`.
pub(super) async fn resolve(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: ResolveArgs = parse(args)?;
    let req = ResolveRequest {
        read: c.read.clone(),
        text: args::text("text", a.text, 2000)?,
        kinds: args::names("kinds", a.kinds, 50)?,
        levels: a.levels,
        query_vector: args::query_vector(a.query_vector)?,
        limit: args::range("limit", a.limit, 1, 50)?,
    };
    let answer = ctx
        .keeper
        .resolve(ctx.cred, &c.domain, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::resolve))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryArgs {
    query: Query,
    cursor: Option<String>,
}

/// `lorebase_query`: `POST .../query`.
pub(super) async fn query(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: QueryArgs = parse(args)?;
    args::name("query.kind", a.query.kind.clone(), 128)?;
    args::range("query.limit", a.query.limit, 1, 1000)?;
    let req = QueryRequest {
        read: c.read.clone(),
        query: a.query,
        cursor: args::cursor(a.cursor)?,
    };
    let answer = ctx
        .keeper
        .query(ctx.cred, &c.domain, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::query))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: Option<String>,
    kinds: Option<Vec<String>>,
    traits: Option<Vec<String>>,
    lens: Option<String>,
    #[serde(rename = "where")]
    where_predicate: Option<Predicate>,
    query_vector: Option<Vec<f32>>,
    limit: Option<u32>,
}

/// `lorebase_search`: `POST .../search`; the vector is passed through, never
/// computed.
pub(super) async fn search(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: SearchArgs = parse(args)?;
    let req = SearchRequest {
        read: c.read.clone(),
        query: a.query.map(|q| args::text("query", q, 1000)).transpose()?,
        kinds: args::names("kinds", a.kinds, 50)?,
        traits: args::names("traits", a.traits, 20)?,
        lens: a.lens.map(|l| args::name("lens", l, 128)).transpose()?,
        where_predicate: a.where_predicate,
        query_vector: args::query_vector(a.query_vector)?,
        limit: args::range("limit", a.limit, 1, 100)?,
    };
    let answer = ctx
        .keeper
        .search(ctx.cred, &c.domain, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::search))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NeighborhoodArgs {
    seeds: Vec<String>,
    depth: u32,
    relations: Option<Vec<String>>,
    max_nodes: Option<u32>,
    max_edges: Option<u32>,
    values: Option<bool>,
}

/// `lorebase_neighborhood`: `POST .../neighborhood`, `values: false` unless asked.
pub(super) async fn neighborhood(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: NeighborhoodArgs = parse(args)?;
    let req = NeighborhoodRequest {
        read: c.read.clone(),
        seeds: args::record_refs("seeds", &a.seeds, 20)?,
        depth: args::range("depth", Some(a.depth), 0, 5)?.unwrap_or(1),
        relations: args::names("relations", a.relations, 50)?,
        max_nodes: args::range("max_nodes", a.max_nodes, 1, 1000)?,
        max_edges: args::range("max_edges", a.max_edges, 1, 5000)?,
        values: a.values.unwrap_or(false),
    };
    let answer = ctx
        .keeper
        .neighborhood(ctx.cred, &c.domain, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::reads::neighborhood))
}
