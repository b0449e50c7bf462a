//! `POST /search`: BM25 over the text attributes, vector search over the
//! embedded Kinds, or both fused (hybrid).

use std::collections::{BTreeSet, HashMap};

use keeper_wire::{RecordRef, SearchHit, SearchRequest, SearchResponse};

use super::{ReadView, page_size, predicate};
use crate::data::KindSpec;
use crate::problem::{ApiError, ApiResult};
use crate::text::{self, Ranked, SearchIndex};

/// The Kinds a search (or context) reads: `kinds` and `traits` together, then
/// limited to the lens.
pub(crate) fn searched_kinds(
    view: &ReadView,
    kinds: Option<&Vec<String>>,
    traits: Option<&Vec<String>>,
    lens: Option<&str>,
) -> ApiResult<Vec<String>> {
    let def = &view.def;
    let mut set: BTreeSet<String> = BTreeSet::new();
    for (i, k) in kinds.into_iter().flatten().enumerate() {
        view.kind(k)
            .map_err(|e| e.with_issue(format!("kinds[{i}]"), "unknown Kind"))?;
        set.insert(k.clone());
    }
    for (i, t) in traits.into_iter().flatten().enumerate() {
        let def_t = def.trait_def(t).ok_or_else(|| {
            ApiError::not_found(format!("no Trait {t:?} in Domain {}", def.name))
                .with_issue(format!("traits[{i}]"), "unknown Trait")
        })?;
        set.extend(def_t.kinds.iter().cloned());
    }
    if set.is_empty() {
        set.extend(def.kinds.iter().map(|k| k.name.clone()));
    }
    if let Some(name) = lens {
        let l = def.lens(name).ok_or_else(|| {
            ApiError::not_found(format!("no lens {name:?} in Domain {}", def.name))
                .with_issue("lens", "unknown lens")
        })?;
        let allowed = def.lens_kinds(l);
        set.retain(|k| allowed.contains(k));
    }
    Ok(set.into_iter().collect())
}

/// A snippet of the Record's text around the query's words, in `**bold**`.
fn snippet(view: &ReadView, kind: &KindSpec, r: &RecordRef, terms: &[String]) -> String {
    let Some(rec) = view.snap().get(r) else {
        return String::new();
    };
    let mut best: Option<(usize, String)> = None;
    for attr in text::searchable(kind) {
        let Some(t) = rec.values.get(attr).and_then(text::value_text) else {
            continue;
        };
        let words: Vec<&str> = t.split_whitespace().collect();
        let hits = words
            .iter()
            .filter(|w| text::tokens(w).iter().any(|x| terms.contains(x)))
            .count();
        if best.as_ref().is_none_or(|(n, _)| hits > *n) {
            let shown: Vec<String> = words
                .iter()
                .take(30)
                .map(|w| {
                    if text::tokens(w).iter().any(|x| terms.contains(x)) {
                        format!("**{w}**")
                    } else {
                        w.to_string()
                    }
                })
                .collect();
            let mut s = format!("{attr}: {}", shown.join(" "));
            if words.len() > 30 {
                s.push_str(" ...");
            }
            best = Some((hits, s));
        }
    }
    best.map(|(_, s)| s).unwrap_or_default()
}

/// Runs a search.
pub(crate) fn run(view: &ReadView, req: &SearchRequest) -> ApiResult<SearchResponse> {
    let limit = page_size(req.limit, 10, 100, "limit")?;
    let kinds = searched_kinds(
        view,
        req.kinds.as_ref(),
        req.traits.as_ref(),
        req.lens.as_deref(),
    )?;
    let specs: Vec<&KindSpec> = kinds.iter().filter_map(|k| view.def.kind(k)).collect();
    if let Some(p) = &req.where_predicate {
        predicate::check(view, &specs, p, "where")?;
    }
    let query = req
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    let vector = req.query_vector.as_ref();
    if query.is_none() && vector.is_none() {
        return Err(ApiError::invalid(
            "query",
            "give query words, a query_vector, or both",
        ));
    }
    if let Some(v) = vector {
        let Some(emb) = view.def.embedding.as_ref().filter(|_| {
            view.def
                .kinds
                .iter()
                .any(|k| k.embedding_template.is_some())
        }) else {
            return Err(ApiError::invalid(
                "query_vector",
                "this Domain has no embedding model: lexical search only",
            ));
        };
        if v.len() != emb.dimension as usize {
            return Err(ApiError::invalid(
                "query_vector",
                format!(
                    "has {} dimensions; {} embeds with {} dimensions",
                    v.len(),
                    emb.model,
                    emb.dimension
                ),
            ));
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ApiError::invalid(
                "query_vector",
                "must hold finite numbers",
            ));
        }
    }
    let def = view.def.clone();
    let index = view.snap().index(|snap| {
        SearchIndex::build(&def, |kind| {
            snap.of_kind(kind)
                .map(|rec| (&rec.record, &rec.values))
                .collect()
        })
    });
    let keep = |r: &RecordRef| {
        kinds.contains(&r.kind)
            && req.where_predicate.as_ref().is_none_or(|p| {
                view.snap()
                    .get(r)
                    .is_some_and(|rec| predicate::eval(p, &rec.values))
            })
    };

    let mut truncated_candidates = false;
    let mut truncated = false;
    let lexical = query.map(|q| {
        let (ranked, cut) = index.lexical(q, view.candidate_cap, &keep);
        truncated_candidates = cut;
        ranked
    });
    let nearest = vector.map(|v| {
        let list_size = (limit * 4).max(40);
        let found = index.nearest(v, list_size, &keep);
        if found.len() < limit {
            let matching = index
                .vectors
                .iter()
                .filter(|(d, _)| keep(&index.docs[*d as usize].record))
                .count();
            truncated = matching > found.len();
        }
        found
    });
    let (mode, ranked): (&str, Vec<Ranked>) = match (lexical, nearest) {
        (Some(l), None) => ("lexical", l),
        (None, Some(v)) => ("vector", v),
        (Some(l), Some(v)) => ("hybrid", fuse(&l, &v)),
        (None, None) => ("lexical", Vec::new()),
    };
    let terms = query.map(text::tokens).unwrap_or_default();
    let hits = ranked
        .into_iter()
        .take(limit)
        .filter_map(|r| {
            let rec = view.snap().get(&r.record)?;
            let kind = view.def.kind(&r.record.kind)?;
            Some(SearchHit {
                title: view.title(rec),
                snippet: snippet(view, kind, &r.record, &terms),
                score: r.score,
                record: r.record,
            })
        })
        .collect();
    Ok(SearchResponse {
        revision: view.rev.id.clone(),
        mode: mode.into(),
        hits,
        truncated_candidates,
        truncated,
    })
}

/// Reciprocal rank fusion of two rankings.
fn fuse(a: &[Ranked], b: &[Ranked]) -> Vec<Ranked> {
    let mut scores: HashMap<RecordRef, f64> = HashMap::new();
    for list in [a, b] {
        for (i, r) in list.iter().enumerate() {
            *scores.entry(r.record.clone()).or_default() += 1.0 / (60.0 + i as f64 + 1.0);
        }
    }
    let mut out: Vec<Ranked> = scores
        .into_iter()
        .map(|(record, s)| Ranked {
            record,
            score: (s * 100_000.0).round() / 100_000.0,
        })
        .collect();
    out.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| x.record.cmp(&y.record))
    });
    out
}
