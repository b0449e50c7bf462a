//! The state every handler shares: the Domains (and their initial copy for
//! resets), the keys, the fault queue, the request counter.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::auth::{AuthMode, JwtTrust, KeyRing, Principal};
use crate::data::SAMPLE_FILES;
use crate::engine::ReadView;
use crate::faults::FaultQueue;
use crate::newer::NewerKeeper;
use crate::options::{SandboxError, SandboxOptions};
use crate::problem::{ApiError, ApiResult};
use crate::store::domain::DomainState;
use crate::store::load::{load_domain, synthetic_file};

/// Everything the handlers share.
pub(crate) struct AppState {
    pub auth: AuthMode,
    pub keys: KeyRing,
    pub faults: FaultQueue,
    pub requests: AtomicU64,
    pub candidate_cap: usize,
    /// Answers are rewritten as a newer Keeper's ([`crate::newer`]).
    pub newer: Option<NewerKeeper>,
    domains: RwLock<BTreeMap<String, DomainState>>,
    initial: BTreeMap<String, DomainState>,
}

impl AppState {
    /// The state of a sandbox whose URL is `url` (the audience of auth mode `jwt`).
    pub(crate) fn new(options: &SandboxOptions, url: &str) -> Result<Self, SandboxError> {
        let mut keys = KeyRing::mint(options.auth, options.seed);
        if options.auth == AuthMode::Jwt {
            let (Some(issuer), Some(jwks)) = (&options.oauth_issuer, &options.oauth_jwks) else {
                return Err(SandboxError::MissingTrust);
            };
            keys.jwt = Some(JwtTrust {
                issuer: issuer.clone(),
                jwks: jwks.clone(),
                audience: url.to_string(),
            });
        }
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
            keys,
            faults: FaultQueue::default(),
            requests: AtomicU64::new(0),
            candidate_cap: options.search_candidate_cap.max(1),
            newer: options.newer_keeper.then_some(NewerKeeper),
            domains: RwLock::new(initial.clone()),
            initial,
        })
    }

    pub(crate) fn domain_names(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    pub(crate) fn reset(&self) {
        *self.write() = self.initial.clone();
        self.faults.clear();
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, DomainState>> {
        self.domains
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, DomainState>> {
        self.domains
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn missing(domain: &str) -> ApiError {
        ApiError::not_found(format!("no Domain {domain:?}"))
    }

    /// Runs `f` on a Domain's state (read lock).
    pub(crate) fn with_domain<R>(
        &self,
        domain: &str,
        f: impl FnOnce(&DomainState) -> ApiResult<R>,
    ) -> ApiResult<R> {
        let guard = self.read();
        f(guard.get(domain).ok_or_else(|| Self::missing(domain))?)
    }

    /// Runs `f` on a Domain's state (write lock).
    pub(crate) fn with_domain_mut<R>(
        &self,
        domain: &str,
        f: impl FnOnce(&mut DomainState) -> ApiResult<R>,
    ) -> ApiResult<R> {
        let mut guard = self.write();
        f(guard.get_mut(domain).ok_or_else(|| Self::missing(domain))?)
    }

    /// The view of one read: branch and Revision resolved.
    pub(crate) fn view(
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
