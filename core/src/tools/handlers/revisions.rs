//! Handlers of revisions: changes (the branch log back to `since`), diff,
//! branches.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Ctx, keeper_failed, rendered};
use crate::error::ToolError;
use crate::keeper::model::*;
use crate::render;
use crate::render::revisions::Changes;
use crate::tools::RenderedOutput;
use crate::tools::args::{self, Common, parse};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChangesArgs {
    since: Option<String>,
    limit: Option<u32>,
    author: Option<String>,
    origin_type: Option<OriginType>,
    cursor: Option<String>,
}

/// `lorebase_changes`: pages `GET .../branches/{b}/log` back to `since`,
/// bounded by `changes.max_pages`.
pub(super) async fn changes(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: ChangesArgs = parse(args)?;
    let since = a
        .since
        .as_deref()
        .map(|s| args::revision_prefix("since", s))
        .transpose()?;
    let mut params = LogParams {
        limit: args::range("limit", a.limit, 1, 200)?,
        cursor: args::cursor(a.cursor)?,
        author: a
            .author
            .map(|au| args::name("author", au, 128))
            .transpose()?,
        origin_type: a.origin_type,
    };
    let branch = match c.read.branch.clone() {
        Some(b) => b,
        None => default_branch(ctx, &c.domain).await?,
    };
    let max_pages = ctx.settings.changes.max_pages.max(1);
    let mut answer = Changes {
        branch: branch.clone(),
        head: String::new(),
        since: since.clone(),
        reached_since: false,
        stopped_by_max_pages: false,
        pages: 0,
        entries: Vec::new(),
        next_cursor: None,
    };
    loop {
        let page = ctx
            .keeper
            .branch_log(ctx.cred, &c.domain, &branch, &params)
            .await
            .map_err(keeper_failed)?;
        answer.pages += 1;
        if answer.head.is_empty() {
            answer.head = page.head.clone();
        }
        for entry in page.entries {
            if since
                .as_deref()
                .is_some_and(|s| entry.revision.to_ascii_lowercase().starts_with(s))
            {
                answer.reached_since = true;
                break;
            }
            answer.entries.push(entry);
        }
        if answer.reached_since || since.is_none() {
            answer.next_cursor = if answer.reached_since {
                None
            } else {
                page.next_cursor
            };
            break;
        }
        match page.next_cursor {
            None => break,
            Some(cur) if answer.pages >= max_pages => {
                answer.stopped_by_max_pages = true;
                answer.next_cursor = Some(cur);
                break;
            }
            Some(cur) => params.cursor = Some(cur),
        }
    }
    let caps = &ctx.settings.output;
    Ok(render::finish(
        c.format,
        || render::revisions::changes(&answer, max_pages, caps),
        || serde_json::to_value(&answer).unwrap_or(Value::Null),
        caps,
    ))
}

/// The Domain's default branch (the first page of `GET /branches` lists it first).
async fn default_branch(ctx: Ctx<'_>, domain: &str) -> Result<String, ToolError> {
    let list = ctx
        .keeper
        .branches(ctx.cred, domain, &PageParams::default())
        .await
        .map_err(keeper_failed)?;
    list.branches
        .iter()
        .find(|b| b.default)
        .map(|b| b.name.clone())
        .ok_or_else(|| ToolError {
            next: Some("pass `branch` (see lorebase_branches)".into()),
            ..args::invalid(
                "branch",
                "no branch given and the Domain reports no default branch",
            )
        })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DiffArgs {
    from_revision: String,
    to_revision: String,
    kinds: Option<Vec<String>>,
    relations: Option<Vec<String>>,
    limit: Option<u32>,
    cursor: Option<String>,
}

/// `lorebase_diff`: `GET .../diff`.
pub(super) async fn diff(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: DiffArgs = parse(args)?;
    let params = DiffParams {
        from: args::name("from_revision", a.from_revision, 128)?,
        to: args::name("to_revision", a.to_revision, 128)?,
        kinds: args::joined(args::names("kinds", a.kinds, 50)?),
        relations: args::joined(args::names("relations", a.relations, 50)?),
        limit: args::range("limit", a.limit, 1, 500)?,
        cursor: args::cursor(a.cursor)?,
    };
    let answer = ctx
        .keeper
        .diff(ctx.cred, &c.domain, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::revisions::diff))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchesArgs {
    limit: Option<u32>,
    cursor: Option<String>,
}

/// `lorebase_branches`: `GET .../branches`.
pub(super) async fn branches(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: BranchesArgs = parse(args)?;
    let params = PageParams {
        limit: args::range("limit", a.limit, 1, 200)?,
        cursor: args::cursor(a.cursor)?,
    };
    let answer = ctx
        .keeper
        .branches(ctx.cred, &c.domain, &params)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::revisions::branches))
}
