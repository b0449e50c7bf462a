//! The REST routes of `sandbox/openapi.yaml`, under `/api/v1/domains/{domain}`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use keeper_wire::{
    ContextRequest, ExecuteRequest, NeighborhoodRequest, OriginType, ProblemCode, QueryRequest,
    RecordRef, ResolveRequest, SchemaDetail, SearchRequest,
};
use serde::de::DeserializeOwned;

use crate::admin;
use crate::auth::Principal;
use crate::engine::{cursor, graph, provenance, query, reads, resolve, revisions, search};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

type Shared = State<Arc<AppState>>;

/// The authenticated caller of an API call.
pub(crate) struct Caller(pub Principal);

impl FromRequestParts<Arc<AppState>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, ApiError> {
        let header = parts
            .headers
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().unwrap_or("\u{0}"));
        state.keys.authenticate(state.auth, header).map(Caller)
    }
}

/// Query parameters, checked against the ones an endpoint takes.
struct Params(Vec<(String, String)>);

impl Params {
    fn new(
        q: Result<Query<Vec<(String, String)>>, QueryRejection>,
        allowed: &[&str],
    ) -> ApiResult<Self> {
        let Query(pairs) = q.map_err(|e| ApiError::invalid("query", e.body_text()))?;
        let issues: Vec<_> = pairs
            .iter()
            .filter(|(k, _)| !allowed.contains(&k.as_str()))
            .map(|(k, _)| keeper_wire::Issue {
                path: k.clone(),
                message: format!(
                    "unknown parameter; this endpoint takes {}",
                    allowed.join(", ")
                ),
            })
            .collect();
        if !issues.is_empty() {
            return Err(ApiError::invalid_all("unknown query parameters", issues));
        }
        Ok(Self(pairs))
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(x, _)| x == k)
            .map(|(_, v)| v.as_str())
    }

    fn bool(&self, k: &str) -> ApiResult<Option<bool>> {
        match self.get(k) {
            None => Ok(None),
            Some("true" | "1") => Ok(Some(true)),
            Some("false" | "0") => Ok(Some(false)),
            Some(_) => Err(ApiError::invalid(k, "must be true or false")),
        }
    }

    fn u32(&self, k: &str) -> ApiResult<Option<u32>> {
        self.get(k)
            .map(|v| {
                v.parse::<u32>()
                    .map_err(|_| ApiError::invalid(k, "must be a whole number"))
            })
            .transpose()
    }
}

/// A JSON body of the contract's request type.
fn body<T: DeserializeOwned>(bytes: &Bytes) -> ApiResult<T> {
    if bytes.is_empty() {
        return Err(ApiError::invalid("body", "a JSON body is required"));
    }
    serde_json::from_slice(bytes).map_err(|e| ApiError::invalid("body", e.to_string()))
}

/// The Revision a cursor was issued at (reads with a cursor stay on it).
fn cursor_at(c: Option<&str>, at: Option<String>) -> Option<String> {
    at.or_else(|| c.and_then(cursor::revision).filter(|r| r != "-"))
}

fn json<T: serde::Serialize>(v: T) -> Response {
    Json(v).into_response()
}

fn record_ref(kind: String, key: String) -> ApiResult<RecordRef> {
    format!("{kind}/{key}")
        .parse()
        .map_err(|e: keeper_wire::RefParseError| ApiError::invalid("ref", e.to_string()))
}

async fn schema(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["branch", "at", "kinds", "detail"])?;
    let detail = match p.get("detail") {
        None | Some("summary") => SchemaDetail::Summary,
        Some("full") => SchemaDetail::Full,
        Some(_) => return Err(ApiError::invalid("detail", "summary or full")),
    };
    let view = s.view(&d, &who, p.get("branch"), p.get("at"))?;
    reads::schema(&view, p.get("kinds"), detail).map(json)
}

async fn record(
    State(s): Shared,
    Caller(who): Caller,
    Path((d, kind, key)): Path<(String, String, String)>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["branch", "at", "links"])?;
    let r = record_ref(kind, key)?;
    let view = s.view(&d, &who, p.get("branch"), p.get("at"))?;
    reads::record(&view, &r, p.bool("links")?.unwrap_or(false)).map(json)
}

async fn explain(
    State(s): Shared,
    Caller(who): Caller,
    Path((d, kind, key)): Path<(String, String, String)>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["branch", "at", "attributes"])?;
    let r = record_ref(kind, key)?;
    let view = s.view(&d, &who, p.get("branch"), p.get("at"))?;
    provenance::explain(&view, &r, p.get("attributes")).map(json)
}

async fn history(
    State(s): Shared,
    Caller(who): Caller,
    Path((d, kind, key)): Path<(String, String, String)>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["branch", "at", "values", "limit", "cursor"])?;
    let r = record_ref(kind, key)?;
    let at = cursor_at(p.get("cursor"), p.get("at").map(str::to_string));
    let view = s.view(&d, &who, p.get("branch"), at.as_deref())?;
    provenance::history(
        &view,
        &r,
        p.bool("values")?.unwrap_or(false),
        p.u32("limit")?,
        p.get("cursor"),
    )
    .map(json)
}

async fn lineage(
    State(s): Shared,
    Caller(who): Caller,
    Path((d, kind, key)): Path<(String, String, String)>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["branch", "at"])?;
    let r = record_ref(kind, key)?;
    let view = s.view(&d, &who, p.get("branch"), p.get("at"))?;
    provenance::lineage(&view, &r).map(json)
}

async fn resolve_words(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: ResolveRequest = body(&b)?;
    let view = s.view(&d, &who, req.read.branch.as_deref(), req.read.at.as_deref())?;
    resolve::run(&view, &req).map(json)
}

async fn run_query(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: QueryRequest = body(&b)?;
    let at = cursor_at(req.cursor.as_deref(), req.read.at.clone());
    let view = s.view(&d, &who, req.read.branch.as_deref(), at.as_deref())?;
    query::run(&view, &req).map(json)
}

async fn run_search(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: SearchRequest = body(&b)?;
    let view = s.view(&d, &who, req.read.branch.as_deref(), req.read.at.as_deref())?;
    search::run(&view, &req).map(json)
}

async fn neighborhood(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: NeighborhoodRequest = body(&b)?;
    let view = s.view(&d, &who, req.read.branch.as_deref(), req.read.at.as_deref())?;
    graph::neighborhood(&view, &req).map(json)
}

async fn context(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: ContextRequest = body(&b)?;
    let view = s.view(&d, &who, req.read.branch.as_deref(), req.read.at.as_deref())?;
    graph::context(&view, &req).map(json)
}

async fn branches(
    State(s): Shared,
    Caller(_who): Caller,
    Path(d): Path<String>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["limit", "cursor"])?;
    s.with_domain(&d, |dom| {
        revisions::branches(dom, p.u32("limit")?, p.get("cursor"))
    })
    .map(json)
}

/// `GET /branches/{branch}/log`; branch names contain `/` (`agent/x/task`).
async fn branch_log(
    State(s): Shared,
    Caller(_who): Caller,
    Path((d, rest)): Path<(String, String)>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let branch = rest
        .strip_suffix("/log")
        .filter(|b| !b.is_empty())
        .ok_or_else(|| ApiError::not_found(format!("no endpoint /branches/{rest}")))?;
    let p = Params::new(q, &["limit", "cursor", "author", "origin_type"])?;
    let origin: Option<OriginType> = p
        .get("origin_type")
        .map(|o| serde_json::from_value(serde_json::Value::String(o.to_string())))
        .transpose()
        .map_err(|_| {
            ApiError::invalid(
                "origin_type",
                "one of import, operation, extraction, proposal, source",
            )
        })?;
    s.with_domain(&d, |dom| {
        revisions::log(
            dom,
            branch,
            p.u32("limit")?,
            p.get("cursor"),
            p.get("author"),
            origin,
        )
    })
    .map(json)
}

async fn diff(
    State(s): Shared,
    Caller(who): Caller,
    Path(d): Path<String>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> ApiResult<Response> {
    let p = Params::new(q, &["from", "to", "kinds", "relations", "limit", "cursor"])?;
    let (Some(from), Some(to)) = (p.get("from"), p.get("to")) else {
        let mut e = ApiError::new(ProblemCode::ValidationFailed, "from and to are required");
        for k in ["from", "to"].iter().filter(|k| p.get(k).is_none()) {
            e = e.with_issue(*k, "is required");
        }
        return Err(e);
    };
    let (from_rev, to_rev) =
        s.with_domain(&d, |dom| Ok((dom.revision(from)?, dom.revision(to)?)))?;
    let view = s.view(&d, &who, None, Some(&to_rev.id))?;
    revisions::diff(
        &view,
        &from_rev,
        &to_rev,
        p.get("kinds"),
        p.get("relations"),
        p.u32("limit")?,
        p.get("cursor"),
    )
    .map(json)
}

async fn execute(
    State(s): Shared,
    Caller(who): Caller,
    Path((d, op)): Path<(String, String)>,
    b: Bytes,
) -> ApiResult<Response> {
    let req: ExecuteRequest = body(&b)?;
    let outcome = s.with_domain_mut(&d, |dom| {
        crate::engine::execute::execute(dom, &who, &op, &req)
    })?;
    let status = StatusCode::from_u16(outcome.status).unwrap_or(StatusCode::OK);
    Ok((status, Json(outcome.result)).into_response())
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such endpoint: see sandbox/openapi.yaml")
}

async fn method_not_allowed() -> ApiError {
    let mut e = ApiError::new(
        ProblemCode::ValidationFailed,
        "this endpoint does not take that method",
    );
    e.status = Some(405);
    e
}

/// One log line per request on stderr: method, path, status (never headers).
async fn log_requests(req: Request, next: Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let response = next.run(req).await;
    tracing::debug!(%method, %path, status = response.status().as_u16(), "request");
    response
}

/// The router of the API and the admin endpoints.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/context", post(context))
        .route("/search", post(run_search))
        .route("/resolve", post(resolve_words))
        .route("/query", post(run_query))
        .route("/neighborhood", post(neighborhood))
        .route("/schema", get(schema))
        .route("/kinds/{kind}/records/{key}", get(record))
        .route("/kinds/{kind}/records/{key}/explain", get(explain))
        .route("/kinds/{kind}/records/{key}/history", get(history))
        .route("/kinds/{kind}/records/{key}/lineage", get(lineage))
        .route("/branches", get(branches))
        .route("/branches/{*rest}", get(branch_log))
        .route("/diff", get(diff))
        .route("/operations/{op}/execute", post(execute));
    Router::new()
        .nest("/api/v1/domains/{domain}", api)
        .merge(admin::router())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(log_requests))
        .with_state(state)
}
