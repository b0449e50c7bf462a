//! One Domain's mutable state: its Revisions, branches, tags, Proposals and
//! idempotency keys.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use keeper_wire::{ExecuteResult, ProblemCode, ProposalStatus};

use super::Revision;
use crate::data::DomainDef;
use crate::problem::{ApiError, ApiResult};

/// A branch.
#[derive(Debug, Clone)]
pub(crate) struct BranchState {
    pub name: String,
    pub head: String,
    pub protected: bool,
    /// The principal owning a task branch.
    pub owner: Option<String>,
}

/// A Proposal.
#[derive(Debug, Clone)]
pub(crate) struct ProposalState {
    pub id: String,
    pub status: ProposalStatus,
    pub branch: String,
    pub title: Option<String>,
    pub author: String,
    /// The target's head when the work branch was forked.
    pub base: String,
}

/// A committed answer, replayed for a repeated idempotency key.
#[derive(Debug, Clone)]
pub(crate) struct IdempotentAnswer {
    /// What the request was (operation, branch, parameters, task).
    pub fingerprint: String,
    pub status: u16,
    pub result: ExecuteResult,
}

/// A Domain's state.
#[derive(Debug, Clone)]
pub(crate) struct DomainState {
    pub def: Arc<DomainDef>,
    pub revisions: HashMap<String, Arc<Revision>>,
    pub branches: BTreeMap<String, BranchState>,
    pub tags: BTreeMap<String, String>,
    pub proposals: BTreeMap<String, ProposalState>,
    /// (principal, key) -> answer.
    pub idempotency: HashMap<(String, String), IdempotentAnswer>,
}

/// Whether a string is 8..=64 lowercase hex digits.
fn is_hex_id(s: &str) -> bool {
    (8..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl DomainState {
    pub(crate) fn new(def: DomainDef) -> Self {
        Self {
            def: Arc::new(def),
            revisions: HashMap::new(),
            branches: BTreeMap::new(),
            tags: BTreeMap::new(),
            proposals: BTreeMap::new(),
            idempotency: HashMap::new(),
        }
    }

    pub(crate) fn add_revision(&mut self, rev: Arc<Revision>) {
        self.revisions.insert(rev.id.clone(), rev);
    }

    pub(crate) fn branch(&self, name: &str) -> ApiResult<&BranchState> {
        self.branches.get(name).ok_or_else(|| {
            ApiError::not_found(format!("no branch {name:?} in Domain {}", self.def.name))
        })
    }

    /// The branch a call names, or the default one.
    pub(crate) fn branch_name(&self, branch: Option<&str>) -> String {
        branch
            .filter(|b| !b.is_empty())
            .unwrap_or(&self.def.default_branch)
            .to_string()
    }

    pub(crate) fn head(&self, branch: &str) -> ApiResult<Arc<Revision>> {
        let b = self.branch(branch)?;
        Ok(self.revisions[&b.head].clone())
    }

    /// A Revision by full id, 8+ digit prefix, or tag.
    pub(crate) fn revision(&self, at: &str) -> ApiResult<Arc<Revision>> {
        let at = at.trim();
        if let Some(id) = self.tags.get(at) {
            return Ok(self.revisions[id].clone());
        }
        if is_hex_id(at) {
            let lower = at.to_ascii_lowercase();
            if let Some(rev) = self.revisions.get(&lower) {
                return Ok(rev.clone());
            }
            let mut found = self.revisions.values().filter(|r| r.id.starts_with(&lower));
            if let Some(first) = found.next() {
                if found.next().is_some() {
                    return Err(ApiError::invalid(
                        "at",
                        format!("the prefix {at} names several Revisions; give more digits"),
                    ));
                }
                return Ok(first.clone());
            }
        } else if at.len() < 8 && at.bytes().all(|b| b.is_ascii_hexdigit()) && !at.is_empty() {
            return Err(ApiError::invalid(
                "at",
                "a Revision prefix needs at least 8 hex digits",
            ));
        }
        Err(ApiError::not_found(format!(
            "no Revision or tag {at:?} in Domain {}",
            self.def.name
        )))
    }

    /// The branch and Revision a read names (`at` wins over the branch head).
    pub(crate) fn read_at(
        &self,
        branch: Option<&str>,
        at: Option<&str>,
    ) -> ApiResult<(String, Arc<Revision>)> {
        let name = self.branch_name(branch);
        let head = self.head(&name)?;
        match at.filter(|a| !a.trim().is_empty()) {
            Some(at) => Ok((name, self.revision(at)?)),
            None => Ok((name, head)),
        }
    }

    /// Open task branches of an agent.
    pub(crate) fn open_task_branches(&self, agent: &str) -> usize {
        self.proposals
            .values()
            .filter(|p| {
                p.author == agent
                    && p.status != ProposalStatus::Merged
                    && p.status != ProposalStatus::Closed
            })
            .count()
    }

    /// Moves a branch head (creating the branch when missing).
    pub(crate) fn set_head(&mut self, branch: &str, head: String, owner: Option<String>) {
        self.branches
            .entry(branch.to_string())
            .and_modify(|b| b.head = head.clone())
            .or_insert_with(|| BranchState {
                name: branch.to_string(),
                head,
                protected: false,
                owner,
            });
    }
}

impl ApiError {
    /// stale-head with the branch's current head.
    pub(crate) fn stale_head(branch: &str, head: &str) -> Self {
        ApiError::new(
            ProblemCode::StaleHead,
            format!("branch {branch} moved: its head is {head}"),
        )
        .with_head(head)
    }
}
