//! The shared state and the accept loop (ours, so a fault can drop a
//! connection without answering).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use axum::response::IntoResponse;
use herald_core::keeper::model::ProblemCode;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::auth::{AuthMode, KeyRing, Principal};
use crate::data::{SAMPLE_FILES, load_domain, synthetic_file};
use crate::engine::ReadView;
use crate::faults::{FaultAction, FaultQueue};
use crate::problem::{ApiError, ApiResult};
use crate::store::DomainState;
use crate::{SandboxError, SandboxOptions};

/// Everything the handlers share.
pub(crate) struct AppState {
    pub auth: AuthMode,
    pub keys: KeyRing,
    pub faults: FaultQueue,
    pub requests: AtomicU64,
    pub candidate_cap: usize,
    domains: RwLock<BTreeMap<String, DomainState>>,
    initial: BTreeMap<String, DomainState>,
}

impl AppState {
    pub fn new(options: &SandboxOptions) -> Result<Self, SandboxError> {
        let mut initial = BTreeMap::new();
        for (name, yaml) in SAMPLE_FILES {
            let state =
                load_domain(yaml).map_err(|e| SandboxError::Data(format!("{name}: {e}")))?;
            initial.insert(state.def.name.clone(), state);
        }
        if let Some(n) = options.synthetic {
            let state = load_domain(&synthetic_file(n))
                .map_err(|e| SandboxError::Data(format!("synthetic: {e}")))?;
            initial.insert(state.def.name.clone(), state);
        }
        Ok(Self {
            auth: options.auth,
            keys: KeyRing::mint(options.auth, options.seed),
            faults: FaultQueue::default(),
            requests: AtomicU64::new(0),
            candidate_cap: options.search_candidate_cap.max(1),
            domains: RwLock::new(initial.clone()),
            initial,
        })
    }

    pub fn domain_names(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    pub fn reset(&self) {
        *self.write() = self.initial.clone();
        self.faults.clear();
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, DomainState>> {
        self.domains.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, DomainState>> {
        self.domains.write().unwrap_or_else(|p| p.into_inner())
    }

    fn missing(domain: &str) -> ApiError {
        ApiError::not_found(format!("no Domain {domain:?}"))
    }

    /// Runs `f` on a Domain's state (read lock).
    pub fn with_domain<R>(
        &self,
        domain: &str,
        f: impl FnOnce(&DomainState) -> ApiResult<R>,
    ) -> ApiResult<R> {
        let guard = self.read();
        f(guard.get(domain).ok_or_else(|| Self::missing(domain))?)
    }

    /// Runs `f` on a Domain's state (write lock).
    pub fn with_domain_mut<R>(
        &self,
        domain: &str,
        f: impl FnOnce(&mut DomainState) -> ApiResult<R>,
    ) -> ApiResult<R> {
        let mut guard = self.write();
        f(guard.get_mut(domain).ok_or_else(|| Self::missing(domain))?)
    }

    /// The view of one read: branch and Revision resolved.
    pub fn view(
        &self,
        domain: &str,
        principal: &Principal,
        branch: Option<&str>,
        at: Option<&str>,
    ) -> ApiResult<ReadView> {
        self.with_domain(domain, |d| {
            let (branch, rev) = d.read_at(branch, at)?;
            Ok(ReadView {
                def: d.def.clone(),
                branch,
                rev,
                principal: principal.clone(),
                candidate_cap: self.candidate_cap,
            })
        })
    }
}

/// A fault closed the connection.
#[derive(Debug, thiserror::Error)]
#[error("connection dropped by an injected fault")]
struct DroppedConnection;

/// The problem answered by a status fault.
fn fault_response(status: u16, retry_after: Option<u64>) -> Response<Body> {
    let code = match status {
        429 => ProblemCode::RateLimited,
        423 => ProblemCode::BranchBusy,
        401 => ProblemCode::Unauthorized,
        403 => ProblemCode::Forbidden,
        404 => ProblemCode::NotFound,
        409 => ProblemCode::StaleHead,
        422 => ProblemCode::ValidationFailed,
        _ => ProblemCode::KeeperUnavailable,
    };
    let mut e = ApiError::new(code, format!("injected fault: HTTP {status}"));
    e.status = Some(status);
    if let Some(s) = retry_after {
        e = e.with_retry_after(s);
    }
    let mut response = e.into_response();
    if StatusCode::from_u16(status).is_err() {
        *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    }
    response
}

async fn handle(
    req: Request<Incoming>,
    router: axum::Router,
    state: Arc<AppState>,
) -> Result<Response<Body>, DroppedConnection> {
    if req.uri().path().starts_with("/api/") {
        state.requests.fetch_add(1, Ordering::SeqCst);
        match state.faults.next() {
            Some(FaultAction::Drop) => {
                tracing::info!(path = %req.uri().path(), "fault: dropping the connection");
                return Err(DroppedConnection);
            }
            Some(FaultAction::Delay(d)) => {
                tracing::info!(path = %req.uri().path(), delay_ms = d.as_millis() as u64, "fault: delaying");
                tokio::time::sleep(d).await;
            }
            Some(FaultAction::Status {
                status,
                retry_after,
            }) => {
                tracing::info!(path = %req.uri().path(), status, "fault: answering a status");
                return Ok(fault_response(status, retry_after));
            }
            None => {}
        }
    }
    let response: Result<Response<Body>, Infallible> = router.oneshot(req.map(Body::new)).await;
    Ok(response.unwrap_or_else(|never| match never {}))
}

/// Accepts connections until `shutdown` fires.
pub(crate) async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    mut shutdown: tokio::sync::oneshot::Receiver<()>,
) {
    let router = crate::http::router(state.clone());
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let (router, state) = (router.clone(), state.clone());
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |req| handle(req, router.clone(), state.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
