//! `POST /query`: filter, select, include neighbors, aggregate, page, and the
//! coverage signals of the attributes used.

use std::collections::BTreeMap;

use keeper_wire::{
    AggregateGroup, AggregateResult, CoverageKind, CoverageSignal, NeighborRow, Query,
    QueryRequest, QueryResponse, QueryRow,
};
use serde_json::Value;

use super::predicate::{self, compare_values};
use super::reads::source_info;
use super::{ReadView, cursor, page_size, percent};
use crate::data::{KindSpec, fnv1a};
use crate::problem::{ApiError, ApiResult};
use crate::store::StoredRecord;

/// Coverage of one attribute: the share of the Kind's Records without it.
pub(crate) fn missing_signal(
    view: &ReadView,
    kind: &KindSpec,
    attr: &str,
    filtered: bool,
) -> Option<CoverageSignal> {
    let total = view.snap().count_of_kind(&kind.name);
    let missing = view
        .snap()
        .of_kind(&kind.name)
        .filter(|r| r.values.get(attr).is_none_or(Value::is_null))
        .count() as u64;
    (missing > 0).then(|| {
        let tail = if filtered {
            format!("a filter on {attr} excludes them")
        } else {
            "they count under null".to_string()
        };
        CoverageSignal {
            signal: CoverageKind::MissingValues.into(),
            message: format!(
                "{attr} missing on {}% of {}: {tail}",
                percent(missing, total),
                kind.name
            ),
            kind: Some(kind.name.clone()),
            attribute: Some(attr.to_string()),
            missing: Some(missing),
            total: Some(total),
            source: None,
            phrase: None,
        }
    })
}

/// Stale Sources feeding a Kind.
pub(crate) fn stale_signals(view: &ReadView, kind: &KindSpec) -> Vec<CoverageSignal> {
    kind.sources
        .iter()
        .filter_map(|name| view.def.sources.iter().find(|s| &s.name == name))
        .map(source_info)
        .filter(|s| s.stale)
        .map(|s| CoverageSignal {
            signal: CoverageKind::StaleSource.into(),
            message: format!(
                "Source {} is stale (fresh until {}, last synced {}): values of {} may be out of date",
                s.name,
                s.fresh_until.as_deref().unwrap_or("?"),
                s.synced_at.as_deref().unwrap_or("never"),
                kind.name
            ),
            kind: Some(kind.name.clone()),
            attribute: None,
            missing: None,
            total: None,
            source: Some(s.name.clone()),
            phrase: None,
        })
        .collect()
}

fn check_attr(view: &ReadView, kind: &KindSpec, attr: &str, path: &str) -> ApiResult<()> {
    if kind.attribute(attr).is_none() {
        return Err(ApiError::invalid(
            path,
            format!("no attribute {attr:?} in {}", kind.name),
        ));
    }
    view.check_readable(&kind.name, attr, path)
}

fn validate(view: &ReadView, q: &Query) -> ApiResult<()> {
    let kind = view
        .kind(&q.kind)
        .map_err(|e| e.with_issue("query.kind", "unknown Kind"))?;
    if let Some(p) = &q.where_predicate {
        predicate::check(view, &[kind], p, "query.where")?;
    }
    for (i, a) in q.select.iter().flatten().enumerate() {
        if kind.attribute(a).is_none() {
            return Err(ApiError::invalid(
                format!("query.select[{i}]"),
                format!("no attribute {a:?} in {}", kind.name),
            ));
        }
    }
    if let Some(agg) = &q.aggregate {
        check_attr(view, kind, &agg.group_by, "query.aggregate.group_by")?;
    }
    if let Some(order) = &q.order_by {
        check_attr(view, kind, order.trim_start_matches('-'), "query.order_by")?;
    }
    for (i, inc) in q.include.iter().flatten().enumerate() {
        let ok = view
            .def
            .relation(&inc.relation)
            .is_some_and(|r| r.from == kind.name || r.to == kind.name);
        if !ok {
            return Err(ApiError::invalid(
                format!("query.include[{i}].relation"),
                format!("no relation {:?} of {}", inc.relation, kind.name),
            ));
        }
    }
    Ok(())
}

fn selected(
    view: &ReadView,
    rec: &StoredRecord,
    select: Option<&Vec<String>>,
) -> BTreeMap<String, Value> {
    let mut values = view.values(rec);
    if let Some(select) = select {
        values.retain(|k, _| select.contains(k));
    }
    values
}

/// Runs a query.
pub(crate) fn run(view: &ReadView, req: &QueryRequest) -> ApiResult<QueryResponse> {
    let q = &req.query;
    validate(view, q)?;
    let kind = view.kind(&q.kind)?;
    let limit = page_size(q.limit, 50, 1000, "query.limit")?;
    let scope = format!(
        "query:{:x}",
        fnv1a(&[&serde_json::to_string(q).unwrap_or_default()])
    );
    let offset = cursor::offset_at(req.cursor.as_deref(), &scope, &view.rev.id)?;
    let mut matches: Vec<&std::sync::Arc<StoredRecord>> = view
        .snap()
        .of_kind(&kind.name)
        .filter(|r| {
            q.where_predicate
                .as_ref()
                .is_none_or(|p| predicate::eval(p, &r.values))
        })
        .collect();
    if let Some(order) = &q.order_by {
        let desc = order.starts_with('-');
        let attr = order.trim_start_matches('-');
        matches.sort_by(|a, b| {
            let (x, y) = (a.values.get(attr), b.values.get(attr));
            let o = match (x, y) {
                (Some(x), Some(y)) => compare_values(x, y).unwrap_or(std::cmp::Ordering::Equal),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            };
            let o = if desc && x.is_some() && y.is_some() {
                o.reverse()
            } else {
                o
            };
            o.then_with(|| a.record.cmp(&b.record))
        });
    }
    let aggregate = q.aggregate.as_ref().map(|agg| {
        let mut counts: BTreeMap<String, (Value, u64)> = BTreeMap::new();
        for r in &matches {
            let v = r.values.get(&agg.group_by).cloned().unwrap_or(Value::Null);
            let key = v.to_string();
            counts.entry(key).or_insert((v, 0)).1 += 1;
        }
        let mut groups: Vec<AggregateGroup> = counts
            .into_values()
            .map(|(value, count)| AggregateGroup { value, count })
            .collect();
        groups.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.value.to_string().cmp(&b.value.to_string()))
        });
        AggregateResult {
            kind: kind.name.clone(),
            group_by: agg.group_by.clone(),
            groups,
        }
    });
    let total = matches.len();
    let page: Vec<QueryRow> = matches
        .iter()
        .skip(offset)
        .take(limit)
        .map(|rec| {
            let mut included = BTreeMap::new();
            for inc in q.include.iter().flatten() {
                let mut rows = Vec::new();
                for (rel, other, _) in view
                    .snap()
                    .adjacency()
                    .edges
                    .get(&rec.record)
                    .into_iter()
                    .flatten()
                {
                    if rel != &inc.relation {
                        continue;
                    }
                    if let Some(n) = view.snap().get(other) {
                        rows.push(NeighborRow {
                            record: other.clone(),
                            title: view.title(n),
                            values: selected(view, n, inc.select.as_ref()),
                        });
                    }
                }
                included.insert(inc.relation.clone(), rows);
            }
            QueryRow {
                record: rec.record.clone(),
                title: view.title(rec),
                values: selected(view, rec, q.select.as_ref()),
                included,
            }
        })
        .collect();
    let next_cursor =
        (offset + limit < total).then(|| cursor::encode(&view.rev.id, offset + limit, &scope));

    let mut coverage = Vec::new();
    if q.coverage != Some(false) {
        let mut filtered = Vec::new();
        if let Some(p) = &q.where_predicate {
            predicate::attributes(p, &mut filtered);
        }
        if let Some(order) = &q.order_by {
            let a = order.trim_start_matches('-').to_string();
            if !filtered.contains(&a) {
                filtered.push(a);
            }
        }
        for a in &filtered {
            coverage.extend(missing_signal(view, kind, a, true));
        }
        if let Some(agg) = &q.aggregate
            && !filtered.contains(&agg.group_by)
        {
            coverage.extend(missing_signal(view, kind, &agg.group_by, false));
        }
        coverage.extend(stale_signals(view, kind));
    }
    Ok(QueryResponse {
        revision: view.rev.id.clone(),
        total: total as u64,
        rows: page,
        aggregate,
        next_cursor,
        coverage,
    })
}
