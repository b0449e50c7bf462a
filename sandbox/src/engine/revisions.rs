//! `GET /branches`, `GET /branches/{b}/log` and `GET /diff`.

use std::collections::BTreeMap;
use std::sync::Arc;

use keeper_wire::{
    AttributeChange, Branch, BranchList, ChangeCounts, Diff, DiffCount, DiffElement, LogEntry,
    OriginType,
};
use serde_json::Value;

use super::reads::split_list;
use super::{ReadView, cursor, page_size};
use crate::problem::{ApiError, ApiResult};
use crate::store::domain::DomainState;
use crate::store::{Revision, wire_link};

/// `GET /branches`: the default first, then by name.
pub(crate) fn branches(
    state: &DomainState,
    limit: Option<u32>,
    cursor_in: Option<&str>,
) -> ApiResult<BranchList> {
    let limit = page_size(limit, 50, 500, "limit")?;
    let offset = match cursor_in {
        Some(c) => cursor::decode(c, "branches")?.1,
        None => 0,
    };
    let mut all: Vec<Branch> = state
        .branches
        .values()
        .map(|b| Branch {
            name: b.name.clone(),
            head: b.head.clone(),
            default: b.name == state.def.default_branch,
            protected: b.protected,
            owner: b.owner.clone(),
        })
        .collect();
    all.sort_by(|a, b| b.default.cmp(&a.default).then_with(|| a.name.cmp(&b.name)));
    let total = all.len();
    Ok(BranchList {
        branches: all.into_iter().skip(offset).take(limit).collect(),
        next_cursor: (offset + limit < total)
            .then(|| cursor::encode("-", offset + limit, "branches")),
    })
}

pub(crate) fn log_entry(rev: &Revision) -> LogEntry {
    LogEntry {
        revision: rev.id.clone(),
        parent: rev.parent.clone(),
        time: rev.meta.time.clone(),
        author: rev.meta.author.clone(),
        origin_type: rev.meta.origin_type.into(),
        operation: rev.meta.operation.clone(),
        message: rev.meta.message.clone(),
        counts: rev.counts(),
    }
}

/// `GET /branches/{b}/log`: newest first, filtered, paged.
pub(crate) fn log(
    state: &DomainState,
    branch: &str,
    limit: Option<u32>,
    cursor_in: Option<&str>,
    author: Option<&str>,
    origin_type: Option<OriginType>,
) -> ApiResult<keeper_wire::BranchLog> {
    let limit = page_size(limit, 20, 200, "limit")?;
    let head = state.branch(branch)?.head.clone();
    let scope = format!("log:{branch}");
    let (start, offset) = match cursor_in {
        Some(c) => cursor::decode(c, &scope)?,
        None => (head.clone(), 0),
    };
    let revs: Vec<Arc<Revision>> = {
        let mut out = Vec::new();
        let mut cur = Some(start);
        while let Some(id) = cur {
            let Some(rev) = state.revisions.get(&id) else {
                break;
            };
            cur = rev.parent.clone();
            out.push(rev.clone());
        }
        out
    };
    let matching: Vec<&Arc<Revision>> = revs
        .iter()
        .filter(|r| author.is_none_or(|a| r.meta.author == a))
        .filter(|r| origin_type.is_none_or(|o| r.meta.origin_type == o))
        .collect();
    let total = matching.len();
    let entries = matching
        .iter()
        .skip(offset)
        .take(limit)
        .map(|r| log_entry(r))
        .collect();
    let next_cursor = (offset + limit < total).then(|| {
        // Pin the walk's start so new commits do not shift the pages.
        cursor::encode(&revs[0].id, offset + limit, &scope)
    });
    Ok(keeper_wire::BranchLog {
        branch: branch.to_string(),
        head,
        entries,
        next_cursor,
    })
}

fn bump(counts: &mut BTreeMap<(String, String), ChangeCounts>, scope: &str, name: &str, op: &str) {
    let c = counts
        .entry((scope.to_string(), name.to_string()))
        .or_default();
    match op {
        "+" => c.created += 1,
        "-" => c.deleted += 1,
        _ => c.updated += 1,
    }
}

/// `GET /diff` between two Revisions.
pub(crate) fn diff(
    view: &ReadView,
    from: &Revision,
    to: &Revision,
    kinds: Option<&str>,
    relations: Option<&str>,
    limit: Option<u32>,
    cursor_in: Option<&str>,
) -> ApiResult<Diff> {
    let limit = page_size(limit, 100, 1000, "limit")?;
    let kinds = split_list(kinds);
    let relations = split_list(relations);
    for (i, k) in kinds.iter().enumerate() {
        view.kind(k)
            .map_err(|e| e.with_issue(format!("kinds[{i}]"), "unknown Kind"))?;
    }
    for (i, r) in relations.iter().enumerate() {
        if view.def.relation(r).is_none() {
            return Err(ApiError::invalid(
                format!("relations[{i}]"),
                format!("no relation {r:?}"),
            ));
        }
    }
    let scope = format!(
        "diff:{}:{}:{}:{}",
        from.id,
        to.id,
        kinds.join(","),
        relations.join(",")
    );
    let offset = match cursor_in {
        Some(c) => cursor::decode(c, &scope)?.1,
        None => 0,
    };
    let want_records = relations.is_empty() || !kinds.is_empty();
    let want_links = kinds.is_empty() || !relations.is_empty();
    let (a, b) = (&from.snapshot, &to.snapshot);
    let mut counts: BTreeMap<(String, String), ChangeCounts> = BTreeMap::new();
    let mut elements: Vec<DiffElement> = Vec::new();
    if want_records {
        let mut keys: Vec<_> = a.records.keys().chain(b.records.keys()).collect();
        keys.sort();
        keys.dedup();
        for r in keys {
            if !kinds.is_empty() && !kinds.contains(&r.kind) {
                continue;
            }
            let (x, y) = (a.records.get(r), b.records.get(r));
            if let (Some(x), Some(y)) = (x, y)
                && Arc::ptr_eq(x, y)
            {
                continue;
            }
            let empty = BTreeMap::new();
            let xv = x.map_or(&empty, |x| &x.values);
            let yv = y.map_or(&empty, |y| &y.values);
            let mut attrs: Vec<&String> = xv.keys().chain(yv.keys()).collect();
            attrs.sort();
            attrs.dedup();
            let changes: Vec<AttributeChange> = attrs
                .into_iter()
                .filter(|k| xv.get(*k) != yv.get(*k))
                .map(|k| AttributeChange {
                    attribute: k.clone(),
                    before: Some(view.shown(&r.kind, k, xv.get(k).unwrap_or(&Value::Null))),
                    after: Some(view.shown(&r.kind, k, yv.get(k).unwrap_or(&Value::Null))),
                })
                .collect();
            let op = match (x, y) {
                (None, Some(_)) => "+",
                (Some(_), None) => "-",
                _ if changes.is_empty() => continue,
                _ => "~",
            };
            bump(&mut counts, "kind", &r.kind, op);
            elements.push(DiffElement {
                op: op.into(),
                record: Some(r.clone()),
                link: None,
                changes,
            });
        }
    }
    if want_links {
        for (op, set_a, set_b) in [("-", &a.links, &b.links), ("+", &b.links, &a.links)] {
            for l in set_a.difference(set_b) {
                if !relations.is_empty() && !relations.contains(&l.0) {
                    continue;
                }
                bump(&mut counts, "relation", &l.0, op);
                elements.push(DiffElement {
                    op: op.into(),
                    record: None,
                    link: Some(wire_link(l)),
                    changes: Vec::new(),
                });
            }
        }
    }
    let total = elements.len();
    Ok(Diff {
        from: from.id.clone(),
        to: to.id.clone(),
        counts: counts
            .into_iter()
            .map(|((scope, name), counts)| DiffCount {
                name,
                scope,
                counts,
            })
            .collect(),
        elements: elements.into_iter().skip(offset).take(limit).collect(),
        next_cursor: (offset + limit < total).then(|| cursor::encode("-", offset + limit, &scope)),
    })
}
