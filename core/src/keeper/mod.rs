//! The typed client of Keeper's REST contract (`sandbox/openapi.yaml`).
//!
//! One async method per endpoint, all under `{base_url}/api/v1/domains/{domain}`,
//! each route written once (`endpoint`: the template that names it in
//! metrics and logs is the one its URL is built from);
//! one pooled HTTP client (reqwest on rustls) per [`KeeperClient`], shared by
//! its clones; the credential is chosen per call ([`Credential`]).
//!
//! - Resends ([`retry`]): after 429, 503 or an unreachable Keeper, at most
//!   `keeper.max_retries` times, waiting `Retry-After` (capped at
//!   `keeper.retry_max_wait_s`) or an exponential backoff with jitter. Other
//!   statuses are never resent, nor a write (`execute` with `dry_run: false`)
//!   without an `idempotency_key`.
//! - Proxies: `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY`/`NO_PROXY` are ignored
//!   unless `keeper.trust_env`; then the ones [`crate::config::Settings::load`]
//!   captured in `keeper.env_proxy` are used.
//! - TLS roots ([`roots`]): the system's, or the bundled Mozilla roots where
//!   the system has none (so a minimal image works, and a plain `http://`
//!   Keeper never needs a root), plus `keeper.ca_file`.
//! - Answers are read in chunks and refused past `keeper.max_response_bytes`
//!   ([`KeeperError::TooLarge`]).
//! - Keys travel only in the `Authorization` header (marked sensitive); logs
//!   name the endpoint, status and timing, never a header or a key.
//! - Every attempt carries a W3C `traceparent` and an `X-Request-Id` (the
//!   call's, [`crate::telemetry::scope`]), and is counted by endpoint
//!   template and status ([`KeeperClient::metrics`]).

mod body;
mod client_cell;
pub(crate) mod endpoint;
mod error;
mod exchange;
pub mod health;
/// The wire types of the contract: the `lorebase-keeper-wire` crate, which
/// the sandbox Keeper shares.
pub use keeper_wire as model;
pub mod retry;
pub mod roots;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::{KeeperSettings, Secret, SettingKey};
use crate::telemetry::KeeperMetrics;
use crate::tool_interface::ToolCallError;
pub use body::{CappedReadError, read_capped};
use client_cell::ClientCell;
use endpoint::{
    BRANCH_LOG, BRANCHES, CONTEXT, DIFF, EXECUTE, EXPLAIN, Endpoint, HISTORY, LINEAGE, Method,
    NEIGHBORHOOD, QUERY, RECORD, RESOLVE, SCHEMA, SEARCH,
};
pub use error::KeeperError;
use health::{KeeperHealth, KeeperHealthSnapshot};
use keeper_wire::*;

/// Which credential a Keeper call carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The configured `keeper.api_key` (stdio, in-process APIs); none when unset.
    Configured,
    /// The caller's own key, forwarded unchanged (Streamable HTTP, per-call keys).
    Bearer(Secret),
    /// No credential at all (anonymous Streamable HTTP calls).
    Anonymous,
}

impl Credential {
    /// The credential of an in-process call given its own key or none: the
    /// key, sent unchanged; none is the configured key; an empty key is
    /// refused (it would reach Keeper as no credential at all).
    pub fn per_call(api_key: Option<&str>) -> Result<Self, ToolCallError> {
        match api_key {
            None => Ok(Self::Configured),
            Some(key) if key.trim().is_empty() => Err(ToolCallError::EmptyApiKey),
            Some(key) => Ok(Self::Bearer(Secret::new(key))),
        }
    }

    /// The key this credential sends, given the configured one.
    pub fn key<'a>(&'a self, configured: Option<&'a Secret>) -> Option<&'a Secret> {
        match self {
            Self::Configured => configured,
            Self::Bearer(secret) => Some(secret),
            Self::Anonymous => None,
        }
    }
}

/// The Keeper REST client. Clones share one connection pool.
#[derive(Debug, Clone)]
pub struct KeeperClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    settings: KeeperSettings,
    /// Built on a background thread ([`client_cell`]): loading the system's
    /// root certificates stays off the start path.
    http: ClientCell,
    base: url::Url,
    /// When Keeper last answered (for readiness reports).
    health: KeeperHealth,
    /// Requests by endpoint and status (for `/metrics`).
    metrics: KeeperMetrics,
}

/// `User-Agent` of every call.
const USER_AGENT: &str = concat!("lorebase-herald/", env!("CARGO_PKG_VERSION"));

impl KeeperClient {
    /// Builds the client (one connection pool) from the settings.
    pub fn new(settings: &KeeperSettings) -> Result<Self, KeeperError> {
        if settings.trust_env && !settings.verify_tls {
            return Err(KeeperError::Setup(format!(
                "herald.{}: true cannot go with herald.{}: false",
                SettingKey::KeeperTrustEnv,
                SettingKey::KeeperVerifyTls
            )));
        }
        let base = url::Url::parse(&settings.base_url)
            .ok()
            .filter(|u| {
                matches!(u.scheme(), "http" | "https") && u.has_host() && !u.cannot_be_a_base()
            })
            .ok_or_else(|| {
                KeeperError::Setup(format!(
                    "herald.{} is not an http:// or https:// URL",
                    SettingKey::KeeperBaseUrl
                ))
            })?;
        let timeout = Duration::from_secs(settings.timeout_s.max(1));
        let proxies = if settings.trust_env {
            env_proxies(settings)?
        } else {
            Vec::new()
        };
        let ca_roots = match &settings.ca_file {
            Some(path) => roots::read_ca_file(path)?,
            None => Vec::new(),
        };
        let verify_tls = settings.verify_tls;
        let make = move || {
            let mut builder = reqwest::Client::builder()
                .user_agent(USER_AGENT)
                .timeout(timeout)
                .connect_timeout(timeout.min(Duration::from_secs(10)))
                .no_proxy();
            for proxy in &proxies {
                builder = builder.proxy(proxy.clone());
            }
            if !verify_tls {
                builder = builder.tls_danger_accept_invalid_certs(true);
            }
            builder
        };
        let http = ClientCell::spawn(move || roots::build_client(make, &ca_roots));
        Ok(Self {
            inner: Arc::new(Inner {
                settings: settings.clone(),
                http,
                base,
                health: KeeperHealth::default(),
                metrics: KeeperMetrics::default(),
            }),
        })
    }

    /// The settings it was built from.
    pub fn settings(&self) -> &KeeperSettings {
        &self.inner.settings
    }

    /// When Keeper last answered a call, and when a call last got no answer.
    pub fn health(&self) -> KeeperHealthSnapshot {
        self.inner.health.snapshot()
    }

    /// Its requests by endpoint and status, and the resends (shared by its
    /// clones).
    pub fn metrics(&self) -> &KeeperMetrics {
        &self.inner.metrics
    }

    /// Calls `endpoint` of `domain`, its placeholders filled with `parts`
    /// ([`Endpoint::url`]): a `GET` sends `input` as the query, a `POST` as
    /// the JSON body; `resend` is false for a write that must not be resent.
    async fn call<const N: usize, I: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        cred: &Credential,
        endpoint: &Endpoint<N>,
        domain: &str,
        parts: [&str; N],
        input: &I,
        resend: bool,
    ) -> Result<R, KeeperError> {
        let url = endpoint.url(&self.inner.base, domain, parts)?;
        let http = self.inner.http.get().await?;
        let builder = match endpoint.method() {
            Method::Get => http.get(url).query(input),
            Method::Post => http.post(url).json(input),
        };
        self.send(cred, endpoint.template(), builder, resend).await
    }

    /// Keeper's context pack for a task (`CONTEXT`).
    pub async fn context(
        &self,
        cred: &Credential,
        domain: &str,
        req: &ContextRequest,
    ) -> Result<ContextPack, KeeperError> {
        self.call(cred, &CONTEXT, domain, [], req, true).await
    }

    /// The Records matching words (`SEARCH`).
    pub async fn search(
        &self,
        cred: &Credential,
        domain: &str,
        req: &SearchRequest,
    ) -> Result<SearchResponse, KeeperError> {
        self.call(cred, &SEARCH, domain, [], req, true).await
    }

    /// The Domain's schema (`SCHEMA`).
    pub async fn schema(
        &self,
        cred: &Credential,
        domain: &str,
        params: &SchemaParams,
    ) -> Result<Schema, KeeperError> {
        self.call(cred, &SCHEMA, domain, [], params, true).await
    }

    /// One Record (`RECORD`; its Kind and key are one encoded segment each).
    pub async fn record(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &RecordParams,
    ) -> Result<RecordView, KeeperError> {
        self.call(cred, &RECORD, domain, parts(record), params, true)
            .await
    }

    /// The Records a model's words stand for (`RESOLVE`).
    pub async fn resolve(
        &self,
        cred: &Credential,
        domain: &str,
        req: &ResolveRequest,
    ) -> Result<ResolveResponse, KeeperError> {
        self.call(cred, &RESOLVE, domain, [], req, true).await
    }

    /// The Records matching a predicate (`QUERY`).
    pub async fn query(
        &self,
        cred: &Credential,
        domain: &str,
        req: &QueryRequest,
    ) -> Result<QueryResponse, KeeperError> {
        self.call(cred, &QUERY, domain, [], req, true).await
    }

    /// The Records around seeds (`NEIGHBORHOOD`).
    pub async fn neighborhood(
        &self,
        cred: &Credential,
        domain: &str,
        req: &NeighborhoodRequest,
    ) -> Result<NeighborhoodResponse, KeeperError> {
        self.call(cred, &NEIGHBORHOOD, domain, [], req, true).await
    }

    /// Why a Record holds its values (`EXPLAIN`).
    pub async fn explain(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<Explain, KeeperError> {
        self.call(cred, &EXPLAIN, domain, parts(record), params, true)
            .await
    }

    /// A Record's changes (`HISTORY`).
    pub async fn history(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<History, KeeperError> {
        self.call(cred, &HISTORY, domain, parts(record), params, true)
            .await
    }

    /// Where a Record's values came from (`LINEAGE`).
    pub async fn lineage(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<Lineage, KeeperError> {
        self.call(cred, &LINEAGE, domain, parts(record), params, true)
            .await
    }

    /// The Domain's branches (`BRANCHES`).
    pub async fn branches(
        &self,
        cred: &Credential,
        domain: &str,
        params: &PageParams,
    ) -> Result<BranchList, KeeperError> {
        self.call(cred, &BRANCHES, domain, [], params, true).await
    }

    /// A branch's log (`BRANCH_LOG`; the branch name is one encoded segment).
    pub async fn branch_log(
        &self,
        cred: &Credential,
        domain: &str,
        branch: &str,
        params: &LogParams,
    ) -> Result<BranchLog, KeeperError> {
        self.call(cred, &BRANCH_LOG, domain, [branch], params, true)
            .await
    }

    /// What changed between two revisions (`DIFF`).
    pub async fn diff(
        &self,
        cred: &Credential,
        domain: &str,
        params: &DiffParams,
    ) -> Result<Diff, KeeperError> {
        self.call(cred, &DIFF, domain, [], params, true).await
    }

    /// Runs an operation (`EXECUTE`: 200, or 202 with a Proposal). A write
    /// (`dry_run: false`) is resent only when it carries an `idempotency_key`.
    pub async fn execute(
        &self,
        cred: &Credential,
        domain: &str,
        operation: &str,
        req: &ExecuteRequest,
    ) -> Result<ExecuteResult, KeeperError> {
        let resend = req.dry_run || req.idempotency_key.is_some();
        self.call(cred, &EXECUTE, domain, [operation], req, resend)
            .await
    }
}

/// A Record's parts of a route: its Kind, then its key.
fn parts(record: &RecordRef) -> [&str; 2] {
    [&record.kind, &record.key]
}

/// The proxies captured from the environment (trust_env).
fn env_proxies(settings: &KeeperSettings) -> Result<Vec<reqwest::Proxy>, KeeperError> {
    let env = &settings.env_proxy;
    let no_proxy = env
        .no_proxy
        .as_deref()
        .and_then(reqwest::NoProxy::from_string);
    let proxies = [
        ("HTTP_PROXY", env.http.as_ref()),
        ("HTTPS_PROXY", env.https.as_ref()),
        ("ALL_PROXY", env.all.as_ref()),
    ];
    let mut found = Vec::new();
    for (name, url) in proxies {
        let Some(url) = url.map(Secret::expose) else {
            continue;
        };
        let proxy = match name {
            "HTTP_PROXY" => reqwest::Proxy::http(url),
            "HTTPS_PROXY" => reqwest::Proxy::https(url),
            _ => reqwest::Proxy::all(url),
        }
        // The URL may hold credentials: never quote it.
        .map_err(|_| KeeperError::Setup(format!("{name} is not a valid proxy URL")))?;
        found.push(proxy.no_proxy(no_proxy.clone()));
    }
    Ok(found)
}
