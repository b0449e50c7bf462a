//! `POST /operations/{op}/execute`: dry runs, commits, review policies,
//! Proposals on task branches, idempotency and stale heads.

use std::collections::BTreeMap;

use keeper_wire::{
    ExecuteRequest, ExecuteResult, ExecuteStatus, Issue, OriginType, ProblemCode, Proposal,
    ProposalRef, ProposalStatus, ReviewPolicy,
};
use serde_json::Value;

use super::operations::{Plan, plan};
use crate::auth::Principal;
use crate::clock;
use crate::data::fnv1a;
use crate::problem::{ApiError, ApiResult};
use crate::store::domain::{BranchState, DomainState, IdempotentAnswer, ProposalState};
use crate::store::{ChangeSet, PendingChange, RevisionMeta, commit};

/// An execute answer and its HTTP status (200, or 202 with a Proposal).
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub status: u16,
    pub result: ExecuteResult,
}

fn valid_slug(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// Runs an Operation.
pub(crate) fn execute(
    state: &mut DomainState,
    who: &Principal,
    op: &str,
    req: &ExecuteRequest,
) -> ApiResult<Outcome> {
    let def = state.def.clone();
    let review = match def.custom_operation(op) {
        Some(custom) => custom.review_policy,
        None if def
            .kinds
            .iter()
            .any(|k| k.builtin_operations().iter().any(|b| b == op)) =>
        {
            ReviewPolicy::None
        }
        None => {
            return Err(ApiError::not_found(format!(
                "no Operation {op:?} in Domain {}",
                def.name
            )));
        }
    };
    if !who.may_run(op) {
        return Err(ApiError::forbidden(format!(
            "your key has no grant for the Operation {op}"
        )));
    }
    let mut issues = Vec::new();
    if let Some(task) = &req.task
        && !valid_slug(task)
    {
        issues.push(Issue {
            path: "task".into(),
            message: "a short slug: lowercase letters, digits and -, at most 63".into(),
        });
    }
    if req.auto_propose == Some(true) && req.task.is_none() {
        issues.push(Issue {
            path: "auto_propose".into(),
            message: "auto_propose needs a task (and an intent)".into(),
        });
    }
    if let Some(k) = &req.idempotency_key
        && (k.is_empty() || k.len() > 200)
    {
        issues.push(Issue {
            path: "idempotency_key".into(),
            message: "1 to 200 characters".into(),
        });
    }
    if !issues.is_empty() {
        return Err(ApiError::invalid_all("the request is not valid", issues));
    }

    let target = state.branch_name(req.branch.as_deref());
    let target_state = state.branch(&target)?.clone();
    if let Some(owner) = &target_state.owner
        && owner != &who.id
    {
        return Err(ApiError::new(
            ProblemCode::AlreadyExists,
            format!("the branch {target} is {owner}'s task branch"),
        ));
    }
    let fingerprint = serde_json::json!({"op": op, "branch": target, "parameters": req.parameters, "task": req.task}).to_string();
    if !req.dry_run
        && let Some(key) = &req.idempotency_key
        && let Some(prev) = state.idempotency.get(&(who.id.clone(), key.clone()))
    {
        if prev.fingerprint != fingerprint {
            return Err(ApiError::invalid(
                "idempotency_key",
                "this key was used for a different request",
            ));
        }
        let mut result = prev.result.clone();
        result.replayed = true;
        return Ok(Outcome {
            status: prev.status,
            result,
        });
    }

    let needs_review =
        review == ReviewPolicy::Review || (target_state.protected && !who.is_admin());
    let refusal = if review == ReviewPolicy::Review {
        ApiError::new(
            ProblemCode::ReviewRequired,
            format!("{op} needs review: repeat with task and intent to open a Proposal"),
        )
    } else {
        ApiError::new(
            ProblemCode::ProtectedBranch,
            format!("{target} is protected: repeat with task and intent to open a Proposal"),
        )
    };
    let task_branch = req
        .task
        .as_ref()
        .filter(|_| needs_review)
        .map(|t| format!("agent/{}/{t}", who.id));
    let open_proposal = task_branch.as_ref().and_then(|b| {
        state
            .proposals
            .values()
            .find(|p| {
                &p.branch == b
                    && matches!(
                        p.status,
                        ProposalStatus::Proposed | ProposalStatus::Conflicts
                    )
            })
            .cloned()
    });
    // The snapshot the Operation runs on: the open task branch, else the target.
    let base_rev = match &open_proposal {
        Some(p) => state.head(&p.branch)?,
        None => state.head(&target)?,
    };
    let target_head = target_state.head.clone();
    let view = super::ReadView {
        def: def.clone(),
        branch: target.clone(),
        rev: base_rev.clone(),
        principal: who.clone(),
        candidate_cap: 0,
    };
    let Plan {
        set,
        edits,
        violations,
    } = plan(&view, op, &req.parameters)?;

    if let Some(expected) = &req.expected_head
        && expected != &target_head
    {
        return Err(ApiError::stale_head(&target, &target_head));
    }
    let mut warnings = Vec::new();
    if req.dry_run {
        let mut next = Vec::new();
        if violations.is_empty() {
            if needs_review && req.task.is_none() {
                warnings.push(format!(
                    "a commit will be refused ({}): add task and intent to open a Proposal",
                    refusal.code
                ));
            }
            next.push(format!(
                "commit with dry_run: false and expected_head: {target_head}"
            ));
        } else {
            next.push("fix the violations, then run the dry run again".into());
        }
        if edits.is_empty() && violations.is_empty() {
            warnings.push("nothing would change".into());
        }
        let status = if violations.is_empty() {
            ExecuteStatus::DryRun
        } else {
            ExecuteStatus::Rejected
        };
        return Ok(Outcome {
            status: 200,
            result: ExecuteResult {
                operation: op.into(),
                status: status.into(),
                branch: target,
                head: target_head,
                revision: None,
                edits,
                violations,
                warnings,
                proposal: None,
                next,
                replayed: false,
            },
        });
    }
    if !violations.is_empty() {
        return Err(ApiError::invalid_all(
            format!("{op} violates the Domain's rules"),
            violations,
        ));
    }
    if needs_review && req.task.is_none() {
        return Err(refusal);
    }
    let meta = RevisionMeta {
        time: clock::now_rfc3339(),
        author: who.id.clone(),
        origin_type: OriginType::Operation,
        operation: Some(op.to_string()),
        message: req
            .message
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| format!("Run {op}")),
        source: None,
        proposal: None,
    };

    let outcome = if let Some(branch) = task_branch {
        propose(
            state,
            who,
            op,
            req,
            &target,
            &branch,
            open_proposal,
            meta,
            &set,
            edits,
            warnings,
        )?
    } else {
        if req.task.is_some() {
            warnings.push(
                "no review needed: the task was not used and the change was committed directly"
                    .into(),
            );
        }
        let (revision, next) = if edits.is_empty() {
            warnings.push("nothing changed: no Revision was made".into());
            (None, vec!["nothing to do".to_string()])
        } else {
            let rev = commit(Some(&base_rev), meta, &set)?;
            let id = rev.id.clone();
            state.add_revision(rev);
            state.set_head(&target, id.clone(), None);
            (Some(id.clone()), vec![format!("{target} is now at {id}")])
        };
        Outcome {
            status: 200,
            result: ExecuteResult {
                operation: op.into(),
                status: ExecuteStatus::Committed.into(),
                branch: target,
                head: target_head,
                revision,
                edits,
                violations: Vec::new(),
                warnings,
                proposal: None,
                next,
                replayed: false,
            },
        }
    };
    if let Some(key) = &req.idempotency_key {
        state.idempotency.insert(
            (who.id.clone(), key.clone()),
            IdempotentAnswer {
                fingerprint,
                status: outcome.status,
                result: outcome.result.clone(),
            },
        );
    }
    Ok(outcome)
}

/// Commits on the task branch, opens or updates its Proposal, and merges it
/// when asked and allowed.
#[allow(clippy::too_many_arguments)]
fn propose(
    state: &mut DomainState,
    who: &Principal,
    op: &str,
    req: &ExecuteRequest,
    target: &str,
    branch: &str,
    open: Option<ProposalState>,
    mut meta: RevisionMeta,
    set: &ChangeSet,
    edits: Vec<keeper_wire::Edit>,
    mut warnings: Vec<String>,
) -> ApiResult<Outcome> {
    let def = state.def.clone();
    let target_head = state.branch(target)?.head.clone();
    let mut proposal = match open {
        Some(p) => p,
        None => {
            if state.open_task_branches(&who.id) >= def.policy.agent_branch_limit {
                return Err(ApiError::new(
                    ProblemCode::AgentBranchLimit,
                    format!(
                        "{} already has {} open task branches: merge or close a Proposal first",
                        who.id, def.policy.agent_branch_limit
                    ),
                ));
            }
            let n = state.proposals.len().to_string();
            let id = format!(
                "prop_{:012x}",
                fnv1a(&[&def.name, branch, &target_head, &n]) & 0xffff_ffff_ffff
            );
            state.branches.insert(
                branch.to_string(),
                BranchState {
                    name: branch.to_string(),
                    head: target_head.clone(),
                    protected: false,
                    owner: Some(who.id.clone()),
                },
            );
            ProposalState {
                id,
                status: ProposalStatus::Proposed,
                branch: branch.to_string(),
                title: req.intent.clone().or_else(|| req.message.clone()),
                author: who.id.clone(),
                base: target_head.clone(),
            }
        }
    };
    if proposal.title.is_none() {
        proposal.title = req.intent.clone();
    }
    let work_head = state.head(branch)?;
    let revision = if edits.is_empty() {
        warnings.push("nothing changed on the task branch".into());
        None
    } else {
        let rev = commit(Some(&work_head), meta.clone(), set)?;
        let id = rev.id.clone();
        state.add_revision(rev);
        state.set_head(branch, id.clone(), Some(who.id.clone()));
        Some(id)
    };

    // Conflicts: the target changed a value the task branch changes too.
    let base = state.revisions[&proposal.base].snapshot.clone();
    let work = state.head(branch)?.snapshot.clone();
    let current = state.head(target)?;
    let mut merge = ChangeSet {
        attribute_order: def.attribute_order(),
        ..Default::default()
    };
    let mut conflicts = false;
    for (r, w) in &work.records {
        let b = base.records.get(r);
        if b.is_some_and(|b| std::sync::Arc::ptr_eq(b, w)) {
            continue;
        }
        let cur = current.snapshot.records.get(r);
        match b {
            None => {
                conflicts |= cur.is_some();
                merge
                    .records
                    .push(PendingChange::Create(r.clone(), w.values.clone()));
            }
            Some(b) => {
                let mut changed: BTreeMap<String, Value> = BTreeMap::new();
                for a in b.values.keys().chain(w.values.keys()) {
                    let (old, new) = (b.values.get(a), w.values.get(a));
                    if old != new {
                        conflicts |= cur.is_none_or(|c| c.values.get(a) != old);
                        changed.insert(a.clone(), new.cloned().unwrap_or(Value::Null));
                    }
                }
                if !changed.is_empty() {
                    merge
                        .records
                        .push(PendingChange::Update(r.clone(), changed));
                }
            }
        }
    }
    let allowed = who.is_admin()
        || who
            .roles
            .iter()
            .any(|r| def.policy.auto_merge_roles.contains(r));
    let mut final_revision = revision.clone();
    if conflicts {
        proposal.status = ProposalStatus::Conflicts;
    } else if req.auto_merge == Some(true) {
        if allowed {
            proposal.status = ProposalStatus::Merged;
            let pref = ProposalRef {
                id: proposal.id.clone(),
                status: ProposalStatus::Merged.into(),
                title: proposal.title.clone(),
                branch: Some(branch.to_string()),
            };
            meta.origin_type = OriginType::Proposal;
            meta.message = format!(
                "Merge {}: {}",
                proposal.id,
                proposal.title.clone().unwrap_or_else(|| op.to_string())
            );
            meta.proposal = Some(pref);
            if !merge.records.is_empty() {
                let rev = commit(Some(&current), meta, &merge)?;
                let id = rev.id.clone();
                state.add_revision(rev);
                state.set_head(target, id.clone(), None);
                final_revision = Some(id);
            }
        } else {
            warnings.push(
                "auto_merge is not allowed for your role: the Proposal waits for a reviewer".into(),
            );
        }
    }
    let next = match proposal.status {
        ProposalStatus::Merged => vec![format!("merged into {target}: continue from its new head")],
        ProposalStatus::Conflicts => vec![
            format!("{target} changed the same values since the task branch started: re-read them"),
            format!(
                "then run {op} again with task {:?}, or close Proposal {}",
                req.task.clone().unwrap_or_default(),
                proposal.id
            ),
        ],
        _ => vec![
            format!(
                "a reviewer approves Proposal {} ({branch} -> {target})",
                proposal.id
            ),
            "meanwhile, further runs with the same task update the same Proposal".into(),
        ],
    };
    let wire = Proposal {
        id: proposal.id.clone(),
        status: proposal.status.into(),
        branch: branch.to_string(),
        target: target.to_string(),
        title: proposal.title.clone(),
    };
    state.proposals.insert(proposal.id.clone(), proposal);
    Ok(Outcome {
        status: 202,
        result: ExecuteResult {
            operation: op.into(),
            status: ExecuteStatus::Proposed.into(),
            branch: branch.to_string(),
            head: target_head,
            revision: final_revision,
            edits,
            violations: Vec::new(),
            warnings,
            proposal: Some(wire),
            next,
            replayed: false,
        },
    })
}
