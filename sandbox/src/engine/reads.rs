//! `GET /schema` and `GET /kinds/{kind}/records/{key}`.

use std::collections::BTreeMap;

use keeper_wire::{LensDef, RecordRef, RecordView, Schema, SchemaDetail, SearchInfo, SourceInfo};

use super::ReadView;
use crate::clock;
use crate::data::{DomainDef, SourceSpec};
use crate::problem::{ApiError, ApiResult};
use crate::store::wire_link;

/// A Source as answered, with `stale` computed from today's date.
pub(crate) fn source_info(spec: &SourceSpec) -> SourceInfo {
    let stale = spec
        .fresh_until
        .as_deref()
        .and_then(clock::parse_date)
        .is_some_and(|until| until < clock::today());
    SourceInfo {
        name: spec.name.clone(),
        synced_at: spec.synced_at.clone(),
        fresh_until: spec.fresh_until.clone(),
        stale,
    }
}

/// The search modes of a Domain and its embedding model.
pub(crate) fn search_info(def: &DomainDef) -> SearchInfo {
    let embedded = def.kinds.iter().any(|k| k.embedding_template.is_some());
    match (&def.embedding, embedded) {
        (Some(e), true) => SearchInfo {
            modes: vec!["lexical".into(), "vector".into(), "hybrid".into()],
            embedding: Some(e.clone()),
        },
        _ => SearchInfo {
            modes: vec!["lexical".into()],
            embedding: None,
        },
    }
}

/// Splits a comma-separated list parameter.
pub(crate) fn split_list(s: Option<&str>) -> Vec<String> {
    s.map(|s| {
        s.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

/// `GET /schema`.
pub(crate) fn schema(
    view: &ReadView,
    kinds: Option<&str>,
    detail: SchemaDetail,
) -> ApiResult<Schema> {
    let def = &view.def;
    let wanted = split_list(kinds);
    for (i, k) in wanted.iter().enumerate() {
        if def.kind(k).is_none() {
            return Err(
                ApiError::not_found(format!("no Kind {k:?} in Domain {}", def.name))
                    .with_issue(format!("kinds[{i}]"), "unknown Kind"),
            );
        }
    }
    let selected = |k: &str| wanted.is_empty() || wanted.iter().any(|w| w == k);
    let full = detail == SchemaDetail::Full;
    Ok(Schema {
        domain: def.name.clone(),
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        kinds: def
            .kinds
            .iter()
            .filter(|k| selected(&k.name))
            .map(|k| k.to_def(full, view.snap().count_of_kind(&k.name)))
            .collect(),
        relations: def
            .relations
            .iter()
            .filter(|r| selected(&r.from) || selected(&r.to))
            .cloned()
            .collect(),
        traits: def.traits.clone(),
        operations: def
            .operations
            .iter()
            .filter(|o| selected(&o.kind))
            .map(super::super::data::OperationSpec::to_def)
            .collect(),
        lenses: def
            .lenses
            .iter()
            .map(|l| LensDef {
                name: l.name.clone(),
                description: l.description.clone(),
                kinds: def.lens_kinds(l),
                traits: l.traits.clone(),
                relations: l.relations.clone(),
                depth: l.depth,
                token_budget: l.token_budget,
            })
            .collect(),
        sources: def.sources.iter().map(source_info).collect(),
        search: search_info(def),
    })
}

/// The Record with its values, Link counts and (when asked) Links.
pub(crate) fn record(view: &ReadView, r: &RecordRef, with_links: bool) -> ApiResult<RecordView> {
    let rec = view.record(r)?;
    let mut link_counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut links = Vec::new();
    for (rel, other, outgoing) in view.snap().adjacency().edges.get(r).into_iter().flatten() {
        *link_counts.entry(rel.clone()).or_default() += 1;
        if with_links {
            let key = if *outgoing {
                (rel.clone(), r.clone(), other.clone())
            } else {
                (rel.clone(), other.clone(), r.clone())
            };
            links.push(wire_link(&key));
        }
    }
    Ok(RecordView {
        record: r.clone(),
        title: view.title(rec),
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        values: view.values(rec),
        masked: view.masked(rec),
        link_counts,
        links: with_links.then_some(links),
    })
}
