//! `GET .../explain`, `.../history` and `.../lineage` of a Record.

use keeper_wire::{
    AttributeLineage, Explain, History, HistoryEntry, Lineage, ProposalRef, RecordRef, SourceInfo,
};

use super::reads::{source_info, split_list};
use super::{ReadView, cursor, page_size};
use crate::problem::{ApiError, ApiResult};
use crate::store::{StoredRecord, wire_link};

/// A history entry as the caller may see it (values masked, or left out).
pub(crate) fn shown_entry(
    view: &ReadView,
    kind: &str,
    e: &HistoryEntry,
    values: bool,
) -> HistoryEntry {
    let mut e = e.clone();
    for c in &mut e.changes {
        if values {
            c.before = c.before.as_ref().map(|v| view.shown(kind, &c.attribute, v));
            c.after = c.after.as_ref().map(|v| view.shown(kind, &c.attribute, v));
        } else {
            c.before = None;
            c.after = None;
        }
    }
    e
}

/// Per attribute, its value (masked when needed) and last change, in the
/// order the Kind declares its attributes (docs/tools.md, `lorebase_lineage`).
pub(crate) fn attribute_lineage(
    view: &ReadView,
    rec: &StoredRecord,
    only: &[String],
) -> Vec<AttributeLineage> {
    let declared: Vec<&str> = view
        .kind(&rec.record.kind)
        .map(|k| k.attributes.iter().map(|a| a.name.as_str()).collect())
        .unwrap_or_default();
    let mut values: Vec<_> = rec.values.iter().collect();
    values.sort_by_key(|(a, _)| declared.iter().position(|d| d == a).unwrap_or(usize::MAX));
    values
        .into_iter()
        .filter(|(a, _)| only.is_empty() || only.contains(a))
        .filter_map(|(a, v)| {
            Some(AttributeLineage {
                attribute: a.clone(),
                value: view.shown(&rec.record.kind, a, v),
                origin: rec.origins.get(a)?.clone(),
            })
        })
        .collect()
}

/// `GET .../explain`.
pub(crate) fn explain(
    view: &ReadView,
    r: &RecordRef,
    attributes: Option<&str>,
) -> ApiResult<Explain> {
    let rec = view.record(r)?;
    let kind = view.kind(&r.kind)?;
    let only = split_list(attributes);
    for (i, a) in only.iter().enumerate() {
        if kind.attribute(a).is_none() {
            return Err(ApiError::invalid(
                format!("attributes[{i}]"),
                format!("no attribute {a:?} in {}", kind.name),
            ));
        }
    }
    let whole = only.is_empty();
    let links = whole.then(|| {
        view.snap()
            .adjacency()
            .edges
            .get(r)
            .into_iter()
            .flatten()
            .map(|(rel, other, out)| {
                if *out {
                    wire_link(&(rel.clone(), r.clone(), other.clone()))
                } else {
                    wire_link(&(rel.clone(), other.clone(), r.clone()))
                }
            })
            .collect()
    });
    Ok(Explain {
        record: r.clone(),
        title: view.title(rec),
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        created: rec.created.clone(),
        attributes: attribute_lineage(view, rec, &only),
        links,
        proposals: whole.then(|| rec.proposals.clone()),
    })
}

/// `GET .../history`: newest first, paged.
pub(crate) fn history(
    view: &ReadView,
    r: &RecordRef,
    values: bool,
    limit: Option<u32>,
    cursor_in: Option<&str>,
) -> ApiResult<History> {
    let rec = view.record(r)?;
    let limit = page_size(limit, 20, 200, "limit")?;
    let scope = format!("history:{r}");
    let offset = cursor::offset_at(cursor_in, &scope, &view.rev.id)?;
    let total = rec.history.len();
    let entries = rec
        .history
        .iter()
        .rev()
        .skip(offset)
        .take(limit)
        .map(|e| shown_entry(view, &r.kind, e, values))
        .collect();
    Ok(History {
        record: r.clone(),
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        total: total as u64,
        entries,
        next_cursor: (offset + limit < total)
            .then(|| cursor::encode(&view.rev.id, offset + limit, &scope)),
    })
}

/// `GET .../lineage`.
pub(crate) fn lineage(view: &ReadView, r: &RecordRef) -> ApiResult<Lineage> {
    let rec = view.record(r)?;
    let attributes = attribute_lineage(view, rec, &[]);
    let mut sources: Vec<SourceInfo> = Vec::new();
    let mut proposals: Vec<ProposalRef> = Vec::new();
    for origin in std::iter::once(&rec.created).chain(attributes.iter().map(|a| &a.origin)) {
        if let Some(name) = &origin.source
            && !sources.iter().any(|s| &s.name == name)
        {
            let info = view
                .def
                .sources
                .iter()
                .find(|s| &s.name == name)
                .map(source_info)
                .unwrap_or(SourceInfo {
                    name: name.clone(),
                    synced_at: None,
                    fresh_until: None,
                    stale: false,
                });
            sources.push(info);
        }
        if let Some(p) = &origin.proposal
            && !proposals.iter().any(|q| q.id == p.id)
        {
            proposals.push(p.clone());
        }
    }
    Ok(Lineage {
        record: r.clone(),
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        changes: rec.history.len() as u64,
        created: rec.created.clone(),
        attributes,
        sources,
        proposals,
    })
}
