//! The typed client of Keeper's REST contract (`sandbox/openapi.yaml`).
//!
//! One async method per endpoint, all under `/api/v1/domains/{domain}`; one
//! pooled HTTP client per [`KeeperClient`] (clone it freely); the credential is
//! chosen per call ([`Credential`]); 429, 503 and an unreachable Keeper are
//! retried as herald.md says.
//!
//! (Issue 3 fills in the bodies.)

pub mod model;

use crate::config::{KeeperSettings, Secret};
use crate::error::KeeperError;
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

/// The Keeper REST client.
#[derive(Debug, Clone)]
pub struct KeeperClient {
    settings: KeeperSettings,
}

impl KeeperClient {
    /// Builds the client (one connection pool) from the settings.
    pub fn new(settings: &KeeperSettings) -> Result<Self, KeeperError> {
        Ok(Self {
            settings: settings.clone(),
        })
    }

    /// The settings it was built from.
    pub fn settings(&self) -> &KeeperSettings {
        &self.settings
    }

    /// `POST /context`.
    pub async fn context(
        &self,
        _cred: &Credential,
        _domain: &str,
        _req: &ContextRequest,
    ) -> Result<ContextPack, KeeperError> {
        todo!("issue 3")
    }

    /// `POST /search`.
    pub async fn search(
        &self,
        _cred: &Credential,
        _domain: &str,
        _req: &SearchRequest,
    ) -> Result<SearchResponse, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /schema`.
    pub async fn schema(
        &self,
        _cred: &Credential,
        _domain: &str,
        _params: &SchemaParams,
    ) -> Result<Schema, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /kinds/{kind}/records/{key}`.
    pub async fn record(
        &self,
        _cred: &Credential,
        _domain: &str,
        _record: &RecordRef,
        _params: &RecordParams,
    ) -> Result<RecordView, KeeperError> {
        todo!("issue 3")
    }

    /// `POST /resolve`.
    pub async fn resolve(
        &self,
        _cred: &Credential,
        _domain: &str,
        _req: &ResolveRequest,
    ) -> Result<ResolveResponse, KeeperError> {
        todo!("issue 3")
    }

    /// `POST /query`.
    pub async fn query(
        &self,
        _cred: &Credential,
        _domain: &str,
        _req: &QueryRequest,
    ) -> Result<QueryResponse, KeeperError> {
        todo!("issue 3")
    }

    /// `POST /neighborhood`.
    pub async fn neighborhood(
        &self,
        _cred: &Credential,
        _domain: &str,
        _req: &NeighborhoodRequest,
    ) -> Result<NeighborhoodResponse, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /kinds/{kind}/records/{key}/explain`.
    pub async fn explain(
        &self,
        _cred: &Credential,
        _domain: &str,
        _record: &RecordRef,
        _params: &ProvenanceParams,
    ) -> Result<Explain, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /kinds/{kind}/records/{key}/history`.
    pub async fn history(
        &self,
        _cred: &Credential,
        _domain: &str,
        _record: &RecordRef,
        _params: &ProvenanceParams,
    ) -> Result<History, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /kinds/{kind}/records/{key}/lineage`.
    pub async fn lineage(
        &self,
        _cred: &Credential,
        _domain: &str,
        _record: &RecordRef,
        _params: &ProvenanceParams,
    ) -> Result<Lineage, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /branches`.
    pub async fn branches(
        &self,
        _cred: &Credential,
        _domain: &str,
        _params: &PageParams,
    ) -> Result<BranchList, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /branches/{branch}/log`.
    pub async fn branch_log(
        &self,
        _cred: &Credential,
        _domain: &str,
        _branch: &str,
        _params: &LogParams,
    ) -> Result<BranchLog, KeeperError> {
        todo!("issue 3")
    }

    /// `GET /diff`.
    pub async fn diff(
        &self,
        _cred: &Credential,
        _domain: &str,
        _params: &DiffParams,
    ) -> Result<Diff, KeeperError> {
        todo!("issue 3")
    }

    /// `POST /operations/{op}/execute` (200, or 202 with a Proposal).
    pub async fn execute(
        &self,
        _cred: &Credential,
        _domain: &str,
        _operation: &str,
        _req: &ExecuteRequest,
    ) -> Result<ExecuteResult, KeeperError> {
        todo!("issue 3")
    }
}
