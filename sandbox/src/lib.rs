//! The sandbox Keeper: an in-memory Keeper serving the contract in
//! `sandbox/openapi.yaml` with the sample Domains `supply` and `retail` (and,
//! on request, a large synthetic Domain for benchmarks).
//!
//! It is a product feature, not a mock: Revisions are content-addressed,
//! branches, Proposals, review policies, masking, BM25 and vector search,
//! resolution and the query DSL are all computed from the data. Tests start it
//! on an ephemeral port:
//!
//! ```no_run
//! # async fn demo() -> Result<(), lorebase_sandbox::SandboxError> {
//! use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};
//! let sandbox = Sandbox::start(SandboxOptions { auth: AuthMode::ApiKey, ..Default::default() }).await?;
//! let _url = sandbox.url();          // "http://127.0.0.1:<port>"
//! let _keys = sandbox.keys();        // the minted keys of the sample principals
//! sandbox.inject(Fault::status(429).retry_after(1).times(1));
//! let _calls = sandbox.request_count();
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod admin;
mod auth;
mod clock;
mod data;
mod engine;
mod faults;
mod http;
pub mod newer;
mod options;
mod problem;
mod server;
mod state;
mod store;
mod text;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub use auth::{AuthMode, MintedKey, ParseAuthModeError};
pub use faults::{Fault, FaultAction};
pub use options::{SandboxError, SandboxOptions};

use state::AppState;

/// A running sandbox Keeper. It stops when dropped.
pub struct Sandbox {
    addr: SocketAddr,
    state: Arc<AppState>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("url", &self.url())
            .field("auth", &self.state.auth)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Loads the sample Domains, binds the listener and serves in the
    /// background of the current tokio runtime.
    pub async fn start(options: SandboxOptions) -> Result<Self, SandboxError> {
        let addr = format!("{}:{}", options.host, options.port);
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .map_err(|source| SandboxError::Bind {
                addr: addr.clone(),
                source,
            })?;
        let local = listener
            .local_addr()
            .map_err(|source| SandboxError::Bind { addr, source })?;
        let state = Arc::new(AppState::new(&options, &format!("http://{local}"))?);
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(server::serve(listener, state.clone(), rx));
        Ok(Self {
            addr: local,
            state,
            shutdown: Some(tx),
        })
    }

    /// The base URL, `http://127.0.0.1:<port>` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The socket address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether it answers as a newer Keeper ([`newer`]).
    pub fn is_newer_keeper(&self) -> bool {
        self.state.newer.is_some()
    }

    /// The auth mode.
    pub fn auth(&self) -> AuthMode {
        self.state.auth
    }

    /// The minted keys of the sample principals (empty in auth mode `none`).
    pub fn keys(&self) -> &[MintedKey] {
        self.state.keys.minted()
    }

    /// The key of one sample principal (`agt_reader`, `agt_risk_bot`,
    /// `usr_steward`, `usr_admin`), in auth mode `api_key`.
    pub fn key_of(&self, principal: &str) -> Option<&str> {
        self.keys()
            .iter()
            .find(|k| k.principal == principal)
            .map(|k| k.key.as_str())
    }

    /// Queues a fault for the next API calls (admin endpoints excluded).
    pub fn inject(&self, fault: Fault) {
        self.state.faults.push(fault);
    }

    /// Drops every queued fault.
    pub fn clear_faults(&self) {
        self.state.faults.clear();
    }

    /// API calls received so far (admin endpoints excluded).
    pub fn request_count(&self) -> u64 {
        self.state.requests.load(Ordering::SeqCst)
    }

    /// Puts every Domain back to the sample data (branches, Proposals and
    /// idempotency keys included) and clears the faults.
    pub fn reset(&self) {
        self.state.reset();
    }

    /// The line the binary prints when ready: `LOREBASE_SANDBOX_READY {json}`.
    pub fn ready_line(&self) -> String {
        let mut body = serde_json::json!({
            "url": self.url(),
            "auth": self.state.auth.as_str(),
            "domains": self.state.domain_names(),
            "keys": self.keys(),
        });
        if self.state.newer.is_some() {
            body["newer_keeper"] = newer::NewerKeeper::describe();
        }
        format!("LOREBASE_SANDBOX_READY {body}")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
