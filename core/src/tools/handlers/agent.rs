//! Handlers of the agent endpoints: the context pack and Operation runs.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Ctx, keeper_failed, rendered};
use crate::error::ToolError;
use crate::keeper::model::*;
use crate::render;
use crate::tools::RenderedOutput;
use crate::tools::args::{self, Common, invalid, parse};

/// Seeds taken from the search hits of a question.
const QUESTION_SEEDS: u32 = 5;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    records: Option<Vec<String>>,
    question: Option<String>,
    depth: Option<u32>,
    relations: Option<Vec<String>>,
    traits: Option<Vec<String>>,
    lens: Option<String>,
    token_budget: Option<u32>,
}

/// `lorebase_context`: `POST .../context`; with a `question` and no
/// `records`, `POST .../search` first and the hits become the seeds.
pub(super) async fn context(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: ContextArgs = parse(args)?;
    let question = a
        .question
        .map(|q| args::text("question", q, 1000))
        .transpose()?;
    let traits = args::names("traits", a.traits, 20)?;
    let lens = a.lens.map(|l| args::name("lens", l, 128)).transpose()?;
    let mut req = ContextRequest {
        read: c.read.clone(),
        records: Vec::new(),
        question: question.clone(),
        depth: args::range("depth", a.depth, 0, 3)?,
        relations: args::names("relations", a.relations, 50)?,
        traits: traits.clone(),
        lens: lens.clone(),
        token_budget: args::range("token_budget", a.token_budget, 100, 100_000)?,
    };
    match (a.records, question) {
        (Some(records), _) => req.records = args::record_refs("records", &records, 20)?,
        (None, Some(q)) => {
            let search = SearchRequest {
                read: c.read.clone(),
                query: Some(q.clone()),
                traits,
                lens,
                limit: Some(QUESTION_SEEDS),
                ..SearchRequest::default()
            };
            let hits = ctx
                .keeper
                .search(ctx.cred, &c.domain, &search)
                .await
                .map_err(keeper_failed)?;
            if hits.hits.is_empty() {
                return Err(ToolError {
                    code: ProblemCode::NotFound,
                    message: format!("no Records match the question {q:?}"),
                    issues: Vec::new(),
                    head: None,
                    retry_after: None,
                    next: Some(
                        "ground the words with lorebase_resolve, or find Records with lorebase_search and pass them as `records`"
                            .into(),
                    ),
                });
            }
            req.records = hits.hits.into_iter().map(|h| h.record).collect();
        }
        (None, None) => {
            return Err(invalid(
                "records",
                "give `records` (refs Kind/key) or a `question`",
            ));
        }
    }
    let answer = ctx
        .keeper
        .context(ctx.cred, &c.domain, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::agent::context))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExecuteArgs {
    operation: String,
    parameters: Map<String, Value>,
    dry_run: Option<bool>,
    expected_head: Option<String>,
    idempotency_key: Option<String>,
    message: Option<String>,
    task: Option<String>,
    intent: Option<String>,
    auto_propose: Option<bool>,
    auto_merge: Option<bool>,
}

/// `lorebase_execute`: `POST .../operations/{op}/execute`, a dry run unless
/// `dry_run: false`.
pub(super) async fn execute(
    ctx: Ctx<'_>,
    c: Common,
    args: Map<String, Value>,
) -> Result<RenderedOutput, ToolError> {
    let a: ExecuteArgs = parse(args)?;
    let operation = identifier("operation", a.operation)?;
    let task = a.task.map(|t| slug("task", t)).transpose()?;
    if a.auto_propose == Some(true) && task.is_none() {
        return Err(ToolError {
            next: Some("repeat with `task` (a short slug) and `intent`".into()),
            ..invalid("auto_propose", "auto_propose needs a `task`")
        });
    }
    let req = ExecuteRequest {
        branch: c.read.branch.clone(),
        parameters: a.parameters,
        dry_run: a.dry_run.unwrap_or(true),
        expected_head: a
            .expected_head
            .as_deref()
            .map(|h| args::revision_prefix("expected_head", h))
            .transpose()?,
        idempotency_key: a
            .idempotency_key
            .map(|k| args::name("idempotency_key", k, 200))
            .transpose()?,
        message: a
            .message
            .map(|m| args::text("message", m, 1000))
            .transpose()?,
        task,
        intent: a
            .intent
            .map(|i| args::text("intent", i, 2000))
            .transpose()?,
        auto_propose: a.auto_propose,
        auto_merge: a.auto_merge,
    };
    let answer = ctx
        .keeper
        .execute(ctx.cred, &c.domain, &operation, &req)
        .await
        .map_err(keeper_failed)?;
    Ok(rendered(ctx, &c, &answer, render::agent::execute))
}

/// An api name: `[A-Za-z_][A-Za-z0-9_]*`, at most 128 characters.
fn identifier(arg: &str, value: String) -> Result<String, ToolError> {
    let mut chars = value.chars();
    let ok = chars
        .next()
        .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
        && chars.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && value.len() <= 128;
    if ok {
        Ok(value)
    } else {
        Err(invalid(
            arg,
            "must be an api name such as flag_supplier_risk",
        ))
    }
}

/// A task slug: lowercase letters, digits and `-`, at most 63.
fn slug(arg: &str, value: String) -> Result<String, ToolError> {
    let mut chars = value.chars();
    let ok = chars
        .next()
        .is_some_and(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit())
        && chars.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
        && value.len() <= 63;
    if ok {
        Ok(value)
    } else {
        Err(invalid(
            arg,
            "must be a short slug: lowercase letters, digits or '-', at most 63 (for example fix-risk-s1001)",
        ))
    }
}
