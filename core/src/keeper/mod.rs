//! The typed client of Keeper's REST contract (`sandbox/openapi.yaml`).
//!
//! One async method per endpoint, all under `{base_url}/api/v1/domains/{domain}`;
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

mod client_cell;
mod error;
mod exchange;
pub mod health;
pub mod model;
pub mod retry;
pub mod roots;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::config::{KeeperSettings, Secret};
use crate::tool::ToolCallError;
use client_cell::ClientCell;
pub use error::KeeperError;
use health::{KeeperHealth, KeeperHealthSnapshot};
use model::*;

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
}

/// `User-Agent` of every call.
const USER_AGENT: &str = concat!("lorebase-herald/", env!("CARGO_PKG_VERSION"));

impl KeeperClient {
    /// Builds the client (one connection pool) from the settings.
    pub fn new(settings: &KeeperSettings) -> Result<Self, KeeperError> {
        if settings.trust_env && !settings.verify_tls {
            return Err(KeeperError::Setup(
                "herald.keeper.trust_env: true cannot go with herald.keeper.verify_tls: false"
                    .into(),
            ));
        }
        let base = url::Url::parse(&settings.base_url)
            .ok()
            .filter(|u| {
                matches!(u.scheme(), "http" | "https") && u.has_host() && !u.cannot_be_a_base()
            })
            .ok_or_else(|| {
                KeeperError::Setup(
                    "herald.keeper.base_url is not an http:// or https:// URL".into(),
                )
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

    /// `{base_url}/api/v1/domains/{domain}/{segments...}`, each part
    /// percent-encoded as one path segment (so keys and branches may hold `/`).
    fn url(&self, domain: &str, segments: &[(&str, &str)]) -> Result<url::Url, KeeperError> {
        let mut url = self.inner.base.clone();
        {
            let mut path = url.path_segments_mut().map_err(|()| {
                KeeperError::Setup("herald.keeper.base_url cannot take a path".into())
            })?;
            path.pop_if_empty().extend(["api", "v1", "domains"]);
            for (name, part) in std::iter::once(&("domain", domain)).chain(segments) {
                // `.` and `..` would be dropped or climb; an empty part would
                // change the endpoint.
                if part.is_empty() || *part == "." || *part == ".." {
                    return Err(KeeperError::local_issue(
                        ProblemCode::ValidationFailed,
                        format!("{name} must not be empty, . or .."),
                        name,
                        "is not a valid name",
                    ));
                }
                path.push(part);
            }
        }
        Ok(url)
    }

    async fn get<Q: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        cred: &Credential,
        endpoint: &'static str,
        domain: &str,
        segments: &[(&str, &str)],
        params: &Q,
    ) -> Result<R, KeeperError> {
        let url = self.url(domain, segments)?;
        let builder = self.inner.http.get().await?.get(url).query(params);
        self.send(cred, endpoint, builder, true).await
    }

    async fn post<B: Serialize + ?Sized, R: DeserializeOwned>(
        &self,
        cred: &Credential,
        endpoint: &'static str,
        domain: &str,
        segments: &[(&str, &str)],
        body: &B,
        resend: bool,
    ) -> Result<R, KeeperError> {
        let url = self.url(domain, segments)?;
        let builder = self.inner.http.get().await?.post(url).json(body);
        self.send(cred, endpoint, builder, resend).await
    }

    /// `POST /context`.
    pub async fn context(
        &self,
        cred: &Credential,
        domain: &str,
        req: &ContextRequest,
    ) -> Result<ContextPack, KeeperError> {
        self.post(
            cred,
            "POST /context",
            domain,
            &[("endpoint", "context")],
            req,
            true,
        )
        .await
    }

    /// `POST /search`.
    pub async fn search(
        &self,
        cred: &Credential,
        domain: &str,
        req: &SearchRequest,
    ) -> Result<SearchResponse, KeeperError> {
        self.post(
            cred,
            "POST /search",
            domain,
            &[("endpoint", "search")],
            req,
            true,
        )
        .await
    }

    /// `GET /schema`.
    pub async fn schema(
        &self,
        cred: &Credential,
        domain: &str,
        params: &SchemaParams,
    ) -> Result<Schema, KeeperError> {
        self.get(
            cred,
            "GET /schema",
            domain,
            &[("endpoint", "schema")],
            params,
        )
        .await
    }

    /// `GET /kinds/{kind}/records/{key}`.
    pub async fn record(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &RecordParams,
    ) -> Result<RecordView, KeeperError> {
        let segs = record_segments(record, None);
        self.get(
            cred,
            "GET /kinds/{kind}/records/{key}",
            domain,
            &segs,
            params,
        )
        .await
    }

    /// `POST /resolve`.
    pub async fn resolve(
        &self,
        cred: &Credential,
        domain: &str,
        req: &ResolveRequest,
    ) -> Result<ResolveResponse, KeeperError> {
        self.post(
            cred,
            "POST /resolve",
            domain,
            &[("endpoint", "resolve")],
            req,
            true,
        )
        .await
    }

    /// `POST /query`.
    pub async fn query(
        &self,
        cred: &Credential,
        domain: &str,
        req: &QueryRequest,
    ) -> Result<QueryResponse, KeeperError> {
        self.post(
            cred,
            "POST /query",
            domain,
            &[("endpoint", "query")],
            req,
            true,
        )
        .await
    }

    /// `POST /neighborhood`.
    pub async fn neighborhood(
        &self,
        cred: &Credential,
        domain: &str,
        req: &NeighborhoodRequest,
    ) -> Result<NeighborhoodResponse, KeeperError> {
        let segs = [("endpoint", "neighborhood")];
        self.post(cred, "POST /neighborhood", domain, &segs, req, true)
            .await
    }

    /// `GET /kinds/{kind}/records/{key}/explain`.
    pub async fn explain(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<Explain, KeeperError> {
        let segs = record_segments(record, Some("explain"));
        self.get(
            cred,
            "GET /kinds/{kind}/records/{key}/explain",
            domain,
            &segs,
            params,
        )
        .await
    }

    /// `GET /kinds/{kind}/records/{key}/history`.
    pub async fn history(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<History, KeeperError> {
        let segs = record_segments(record, Some("history"));
        self.get(
            cred,
            "GET /kinds/{kind}/records/{key}/history",
            domain,
            &segs,
            params,
        )
        .await
    }

    /// `GET /kinds/{kind}/records/{key}/lineage`.
    pub async fn lineage(
        &self,
        cred: &Credential,
        domain: &str,
        record: &RecordRef,
        params: &ProvenanceParams,
    ) -> Result<Lineage, KeeperError> {
        let segs = record_segments(record, Some("lineage"));
        self.get(
            cred,
            "GET /kinds/{kind}/records/{key}/lineage",
            domain,
            &segs,
            params,
        )
        .await
    }

    /// `GET /branches`.
    pub async fn branches(
        &self,
        cred: &Credential,
        domain: &str,
        params: &PageParams,
    ) -> Result<BranchList, KeeperError> {
        self.get(
            cred,
            "GET /branches",
            domain,
            &[("endpoint", "branches")],
            params,
        )
        .await
    }

    /// `GET /branches/{branch}/log` (the branch name is one encoded segment).
    pub async fn branch_log(
        &self,
        cred: &Credential,
        domain: &str,
        branch: &str,
        params: &LogParams,
    ) -> Result<BranchLog, KeeperError> {
        let segs = [
            ("endpoint", "branches"),
            ("branch", branch),
            ("endpoint", "log"),
        ];
        self.get(cred, "GET /branches/{branch}/log", domain, &segs, params)
            .await
    }

    /// `GET /diff`.
    pub async fn diff(
        &self,
        cred: &Credential,
        domain: &str,
        params: &DiffParams,
    ) -> Result<Diff, KeeperError> {
        self.get(cred, "GET /diff", domain, &[("endpoint", "diff")], params)
            .await
    }

    /// `POST /operations/{op}/execute` (200, or 202 with a Proposal). A write
    /// (`dry_run: false`) is resent only when it carries an `idempotency_key`.
    pub async fn execute(
        &self,
        cred: &Credential,
        domain: &str,
        operation: &str,
        req: &ExecuteRequest,
    ) -> Result<ExecuteResult, KeeperError> {
        let resend = req.dry_run || req.idempotency_key.is_some();
        let segs = [
            ("endpoint", "operations"),
            ("operation", operation),
            ("endpoint", "execute"),
        ];
        self.post(
            cred,
            "POST /operations/{op}/execute",
            domain,
            &segs,
            req,
            resend,
        )
        .await
    }
}

/// `kinds/{kind}/records/{key}[/suffix]`.
fn record_segments<'a>(record: &'a RecordRef, suffix: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut segs = vec![
        ("endpoint", "kinds"),
        ("ref", record.kind.as_str()),
        ("endpoint", "records"),
        ("ref", record.key.as_str()),
    ];
    segs.extend(suffix.map(|s| ("endpoint", s)));
    segs
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
