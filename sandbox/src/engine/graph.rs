//! `POST /neighborhood` (capped walks) and `POST /context` (context packs
//! trimmed to a token budget).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use keeper_wire::{
    ContextPack, ContextRequest, KindDef, NeighborhoodNode, NeighborhoodRequest,
    NeighborhoodResponse, PackLineage, RecentChange, RecordHeader, RecordRef, SearchRequest,
    Trimmed,
};

use super::provenance::{attribute_lineage, shown_entry};
use super::{ReadView, reads, search};
use crate::problem::{ApiError, ApiResult};
use crate::store::{LinkKey, wire_link};

/// Characters per token of the budget estimate.
pub(crate) const CHARS_PER_TOKEN: usize = 4;

/// The result of a walk.
struct Walk {
    nodes: Vec<(RecordRef, u32)>,
    edges: Vec<LinkKey>,
    truncated: bool,
}

/// Breadth-first from the seeds along the allowed relations, within the caps.
fn walk(
    view: &ReadView,
    seeds: &[RecordRef],
    depth: u32,
    relations: Option<&[String]>,
    neighbor_kinds: Option<&[String]>,
    max_nodes: usize,
    max_edges: usize,
) -> Walk {
    let adj = view.snap().adjacency();
    let mut seen: HashMap<RecordRef, u32> = HashMap::new();
    let mut nodes = Vec::new();
    for s in seeds {
        if !seen.contains_key(s) {
            seen.insert(s.clone(), 0);
            nodes.push((s.clone(), 0));
        }
    }
    let mut edges: BTreeSet<LinkKey> = BTreeSet::new();
    let mut truncated = false;
    let mut frontier: Vec<RecordRef> = seeds.to_vec();
    for d in 0..depth {
        let mut next = Vec::new();
        for node in &frontier {
            for (rel, other, out) in adj.edges.get(node).into_iter().flatten() {
                if relations.is_some_and(|r| !r.contains(rel)) {
                    continue;
                }
                if neighbor_kinds.is_some_and(|k| !k.contains(&other.kind))
                    && !seen.contains_key(other)
                {
                    continue;
                }
                if !seen.contains_key(other) {
                    if nodes.len() >= max_nodes {
                        truncated = true;
                        continue;
                    }
                    seen.insert(other.clone(), d + 1);
                    nodes.push((other.clone(), d + 1));
                    next.push(other.clone());
                }
                let key = if *out {
                    (rel.clone(), node.clone(), other.clone())
                } else {
                    (rel.clone(), other.clone(), node.clone())
                };
                if !edges.contains(&key) {
                    if edges.len() >= max_edges {
                        truncated = true;
                        continue;
                    }
                    edges.insert(key);
                }
            }
        }
        frontier = next;
    }
    Walk {
        nodes,
        edges: edges.into_iter().collect(),
        truncated,
    }
}

fn check_relations(view: &ReadView, relations: Option<&Vec<String>>) -> ApiResult<()> {
    for (i, r) in relations.into_iter().flatten().enumerate() {
        if view.def.relation(r).is_none() {
            return Err(ApiError::invalid(
                format!("relations[{i}]"),
                format!("no relation {r:?} in Domain {}", view.def.name),
            ));
        }
    }
    Ok(())
}

fn cap(v: Option<u32>, default: usize, max: usize, path: &str) -> ApiResult<usize> {
    super::page_size(v, default, max, path)
}

/// `POST /neighborhood`.
pub(crate) fn neighborhood(
    view: &ReadView,
    req: &NeighborhoodRequest,
) -> ApiResult<NeighborhoodResponse> {
    if req.seeds.is_empty() {
        return Err(ApiError::invalid("seeds", "give at least one seed"));
    }
    if req.depth > 5 {
        return Err(ApiError::invalid("depth", "must be between 0 and 5"));
    }
    for s in &req.seeds {
        view.record(s)?;
    }
    check_relations(view, req.relations.as_ref())?;
    let max_nodes = cap(req.max_nodes, 50, 1000, "max_nodes")?;
    let max_edges = cap(req.max_edges, 200, 5000, "max_edges")?;
    let w = walk(
        view,
        &req.seeds,
        req.depth,
        req.relations.as_deref(),
        None,
        max_nodes,
        max_edges,
    );
    let nodes = w
        .nodes
        .iter()
        .filter_map(|(r, d)| {
            let rec = view.snap().get(r)?;
            Some(NeighborhoodNode {
                record: r.clone(),
                title: view.title(rec),
                depth: *d,
                values: req.values.then(|| view.values(rec)),
            })
        })
        .collect();
    Ok(NeighborhoodResponse {
        revision: view.rev.id.clone(),
        nodes,
        edges: w.edges.iter().map(wire_link).collect(),
        truncated: w.truncated,
    })
}

fn size<T: serde::Serialize>(v: &T) -> usize {
    serde_json::to_string(v).map(|s| s.len()).unwrap_or(0)
}

/// `POST /context`.
pub(crate) fn context(view: &ReadView, req: &ContextRequest) -> ApiResult<ContextPack> {
    let lens = match &req.lens {
        Some(name) => Some(view.def.lens(name).ok_or_else(|| {
            ApiError::not_found(format!("no lens {name:?} in Domain {}", view.def.name))
                .with_issue("lens", "unknown lens")
        })?),
        None => None,
    };
    check_relations(view, req.relations.as_ref())?;
    let depth = req.depth.or(lens.and_then(|l| l.depth)).unwrap_or(1);
    if depth > 3 {
        return Err(ApiError::invalid("depth", "must be between 0 and 3"));
    }
    let budget = req
        .token_budget
        .or(lens.and_then(|l| l.token_budget))
        .unwrap_or(2000);
    if !(100..=100_000).contains(&budget) {
        return Err(ApiError::invalid(
            "token_budget",
            "must be between 100 and 100000",
        ));
    }
    let relations: Option<Vec<String>> = req.relations.clone().or_else(|| {
        lens.filter(|l| !l.relations.is_empty())
            .map(|l| l.relations.clone())
    });
    let neighbor_kinds: Option<Vec<String>> = if req.traits.is_some() || lens.is_some() {
        Some(search::searched_kinds(
            view,
            None,
            req.traits.as_ref(),
            req.lens.as_deref(),
        )?)
    } else {
        None
    };

    let mut seeds_refs: Vec<RecordRef> = req.records.clone();
    if seeds_refs.is_empty() {
        let question = req
            .question
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| ApiError::invalid("records", "give seed records or a question"))?;
        let found = search::run(
            view,
            &SearchRequest {
                query: Some(question.to_string()),
                lens: req.lens.clone(),
                traits: req.traits.clone(),
                limit: Some(3),
                ..Default::default()
            },
        )?;
        seeds_refs = found.hits.into_iter().map(|h| h.record).collect();
    }
    if seeds_refs.len() > 50 {
        return Err(ApiError::invalid("records", "at most 50 seed records"));
    }
    let mut seeds = Vec::new();
    for r in &seeds_refs {
        seeds.push(reads::record(view, r, false)?);
    }
    let w = walk(
        view,
        &seeds_refs,
        depth,
        relations.as_deref(),
        neighbor_kinds.as_deref(),
        50 + seeds_refs.len(),
        200,
    );
    let neighbors: Vec<RecordHeader> = w
        .nodes
        .iter()
        .filter(|(_, d)| *d > 0)
        .filter_map(|(r, _)| view.snap().get(r).map(|rec| view.header(rec)))
        .collect();
    let links = w.edges.clone();
    let kinds_present: BTreeSet<&str> = w.nodes.iter().map(|(r, _)| r.kind.as_str()).collect();
    let schema: Vec<KindDef> = view
        .def
        .kinds
        .iter()
        .filter(|k| kinds_present.contains(k.name.as_str()))
        .map(|k| k.to_def(false, view.snap().count_of_kind(&k.name)))
        .collect();
    let mut recent: Vec<RecentChange> = Vec::new();
    let mut lineage: Vec<PackLineage> = Vec::new();
    for r in &seeds_refs {
        let Some(rec) = view.snap().get(r) else {
            continue;
        };
        for e in rec.history.iter().rev().take(5) {
            recent.push(RecentChange {
                record: r.clone(),
                entry: shown_entry(view, &r.kind, e, true),
            });
        }
        for l in attribute_lineage(view, rec, &[]) {
            lineage.push(PackLineage {
                record: r.clone(),
                lineage: l,
            });
        }
    }
    recent.sort_by(|a, b| b.entry.time.cmp(&a.entry.time));

    // Trim to the budget: lineage first, then recent changes, neighbors
    // (with their links), links, and the schema; the seeds stay.
    let mut pack = ContextPack {
        branch: view.branch.clone(),
        revision: view.rev.id.clone(),
        question: req.question.clone(),
        seeds,
        neighbors,
        links: links.iter().map(wire_link).collect(),
        schema,
        recent_changes: recent,
        lineage,
        trimmed: Vec::new(),
        token_budget: budget,
        token_estimate: 0,
    };
    let budget_chars = budget as usize * CHARS_PER_TOKEN;
    let mut dropped: BTreeMap<&str, u64> = BTreeMap::new();
    while size(&pack) > budget_chars {
        let section = if pack.lineage.pop().is_some() {
            "lineage"
        } else if pack.recent_changes.pop().is_some() {
            "recent_changes"
        } else if let Some(n) = pack.neighbors.pop() {
            let before = pack.links.len();
            pack.links
                .retain(|l| l.from != n.record && l.to != n.record);
            let removed = (before - pack.links.len()) as u64;
            if removed > 0 {
                *dropped.entry("links").or_default() += removed;
            }
            "neighbors"
        } else if pack.links.pop().is_some() {
            "links"
        } else if pack.schema.pop().is_some() {
            "schema"
        } else {
            break;
        };
        *dropped.entry(section).or_default() += 1;
    }
    pack.trimmed = dropped
        .into_iter()
        .map(|(section, dropped)| Trimmed {
            section: section.into(),
            dropped,
        })
        .collect();
    pack.token_estimate = size(&pack).div_ceil(CHARS_PER_TOKEN) as u32;
    Ok(pack)
}
