//! `POST /resolve`: which Kinds, Attributes and stored values the words of a
//! question stand for, level by level (exact, synonym, trigram, embedding).

use std::collections::BTreeMap;

use keeper_wire::{
    Candidate, CandidateType, CompareOp, CoverageKind, CoverageSignal, Open, Predicate,
    ResolveLevel, ResolveRequest, ResolveResponse, SkippedLevel,
};
use serde_json::Value;

use super::query::missing_signal;
use super::vocabulary::{Entry, Target, Vocabulary};
use super::{ReadView, page_size};
use crate::data::KindSpec;
use crate::problem::{ApiError, ApiResult};
use crate::text::{cosine, embed, is_stop_word, tokens, trigram_similarity};

/// Longest phrase matched, in words.
const MAX_PHRASE: usize = 6;
const TRIGRAM_MIN: f64 = 0.45;
const EMBEDDING_MIN: f64 = 0.7;

/// A candidate being built, with where its words start.
struct Draft {
    position: usize,
    candidate: Candidate,
}

fn candidate(
    vocab: &Vocabulary,
    view: &ReadView,
    target: &Target,
    values: Vec<String>,
    level: ResolveLevel,
    score: f64,
    matched: Vec<String>,
) -> Candidate {
    let attr_type = |k: &str, a: &str| {
        view.def
            .kind(k)
            .and_then(|k| k.attribute(a))
            .map(|a| a.type_name.clone())
    };
    match target {
        Target::Kind(k) => Candidate {
            candidate_type: CandidateType::Kind.into(),
            kind: k.clone(),
            attribute: None,
            attribute_type: None,
            values: Vec::new(),
            level: level.into(),
            score,
            matched,
            where_predicate: None,
            record_count: Some(view.snap().count_of_kind(k)),
        },
        Target::Attribute(k, a) => Candidate {
            candidate_type: CandidateType::Attribute.into(),
            kind: k.clone(),
            attribute: Some(a.clone()),
            attribute_type: attr_type(k, a),
            values: Vec::new(),
            level: level.into(),
            score,
            matched,
            where_predicate: None,
            record_count: None,
        },
        Target::Value(k, a, _) => {
            let mut values = values;
            let count = |v: &String| {
                vocab
                    .value_counts
                    .get(&(k.clone(), a.clone(), v.clone()))
                    .copied()
                    .unwrap_or(0)
            };
            values.sort_by(|x, y| count(y).cmp(&count(x)).then_with(|| x.cmp(y)));
            values.dedup();
            let total: u64 = values.iter().map(count).sum();
            let json_values: Vec<Value> = values.iter().map(|v| Value::String(v.clone())).collect();
            let where_predicate = if json_values.len() == 1 {
                Predicate::Compare {
                    attr: a.clone(),
                    op: CompareOp::Eq,
                    value: json_values.first().cloned(),
                }
            } else {
                Predicate::Compare {
                    attr: a.clone(),
                    op: CompareOp::In,
                    value: Some(Value::Array(json_values.clone())),
                }
            };
            Candidate {
                candidate_type: CandidateType::Value.into(),
                kind: k.clone(),
                attribute: Some(a.clone()),
                attribute_type: attr_type(k, a),
                values: json_values,
                level: level.into(),
                score,
                matched,
                where_predicate: serde_json::to_value(&where_predicate).ok(),
                record_count: Some(total),
            }
        }
    }
}

/// Groups matched entries of one phrase into candidates (one per Kind,
/// Attribute, or attribute of values).
fn group(
    vocab: &Vocabulary,
    view: &ReadView,
    entries: &[&Entry],
    phrase: &str,
    position: usize,
    out: &mut Vec<Draft>,
) {
    let mut groups: BTreeMap<Target, (bool, Vec<String>)> = BTreeMap::new();
    for e in entries {
        let (key, value) = match &e.target {
            Target::Value(k, a, v) => (
                Target::Value(k.clone(), a.clone(), String::new()),
                Some(v.clone()),
            ),
            t => (t.clone(), None),
        };
        let g = groups.entry(key).or_insert((false, Vec::new()));
        g.0 |= !e.synonym;
        g.1.extend(value);
    }
    for (target, (exact, values)) in groups {
        let (level, score) = if exact {
            (ResolveLevel::Exact, 1.0)
        } else {
            (ResolveLevel::Synonym, 0.95)
        };
        out.push(Draft {
            position,
            candidate: candidate(
                vocab,
                view,
                &target,
                values,
                level,
                score,
                vec![phrase.to_string()],
            ),
        });
    }
}

/// Resolves the words of a question.
pub(crate) fn run(view: &ReadView, req: &ResolveRequest) -> ApiResult<ResolveResponse> {
    let limit = page_size(req.limit, 10, 50, "limit")?;
    if req.text.trim().is_empty() {
        return Err(ApiError::invalid("text", "give the words to resolve"));
    }
    if req.text.len() > 2000 {
        return Err(ApiError::invalid("text", "at most 2000 characters"));
    }
    let kinds: Vec<&KindSpec> = match &req.kinds {
        Some(list) if !list.is_empty() => list
            .iter()
            .enumerate()
            .map(|(i, k)| {
                view.kind(k)
                    .map_err(|e| e.with_issue(format!("kinds[{i}]"), "unknown Kind"))
            })
            .collect::<ApiResult<_>>()?,
        _ => view.def.kinds.iter().collect(),
    };
    let all = [
        ResolveLevel::Exact,
        ResolveLevel::Synonym,
        ResolveLevel::Trigram,
        ResolveLevel::Embedding,
    ];
    let requested: Vec<ResolveLevel> = req
        .levels
        .clone()
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| all.to_vec());
    let mut skipped: Vec<SkippedLevel> = all
        .iter()
        .filter(|l| !requested.contains(l))
        .map(|l| SkippedLevel {
            level: (*l).into(),
            reason: "not requested".into(),
        })
        .collect();
    let wants = |l: ResolveLevel| requested.contains(&l);
    let mut vector = None;
    if wants(ResolveLevel::Embedding) {
        match (&req.query_vector, &view.def.embedding) {
            (None, _) => skipped.push(SkippedLevel {
                level: ResolveLevel::Embedding.into(),
                reason: "no query_vector".into(),
            }),
            (Some(_), None) => skipped.push(SkippedLevel {
                level: ResolveLevel::Embedding.into(),
                reason: "the Domain has no embedding model".into(),
            }),
            (Some(v), Some(e)) if v.len() != e.dimension as usize => {
                return Err(ApiError::invalid(
                    "query_vector",
                    format!(
                        "has {} dimensions; {} embeds with {} dimensions",
                        v.len(),
                        e.model,
                        e.dimension
                    ),
                ));
            }
            (Some(v), Some(e)) => vector = Some((v.clone(), e.dimension as usize)),
        }
    }

    let vocab = Vocabulary::build(view, &kinds);
    let words = tokens(&req.text);
    let mut consumed = vec![false; words.len()];
    let mut drafts: Vec<Draft> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut advanced = false;
        for n in (1..=MAX_PHRASE.min(words.len() - i)).rev() {
            if n == 1 && is_stop_word(&words[i]) {
                break;
            }
            let phrase = words[i..i + n].join(" ");
            let found: Vec<&Entry> = vocab
                .lookup(&phrase)
                .into_iter()
                .filter(|e| {
                    if e.synonym {
                        wants(ResolveLevel::Synonym)
                    } else {
                        wants(ResolveLevel::Exact)
                    }
                })
                .collect();
            if !found.is_empty() {
                group(&vocab, view, &found, &phrase, i, &mut drafts);
                consumed[i..i + n].iter_mut().for_each(|c| *c = true);
                i += n;
                advanced = true;
                break;
            }
        }
        if !advanced {
            i += 1;
        }
    }
    if wants(ResolveLevel::Trigram) {
        for (pos, w) in words.iter().enumerate() {
            if consumed[pos] || is_stop_word(w) || w.chars().count() < 3 {
                continue;
            }
            let mut best: BTreeMap<Target, (f64, Vec<String>, bool)> = BTreeMap::new();
            for e in vocab.entries.iter().filter(|e| !e.phrase.contains(' ')) {
                let sim = trigram_similarity(w, &e.phrase);
                if sim < TRIGRAM_MIN {
                    continue;
                }
                let (key, value) = match &e.target {
                    Target::Value(k, a, v) => (
                        Target::Value(k.clone(), a.clone(), String::new()),
                        Some(v.clone()),
                    ),
                    t => (t.clone(), None),
                };
                let slot = best.entry(key).or_insert((0.0, Vec::new(), false));
                if sim > slot.0 + 1e-9 {
                    *slot = (sim, value.into_iter().collect(), true);
                } else if (sim - slot.0).abs() < 1e-9 {
                    slot.1.extend(value);
                }
            }
            let mut found: Vec<(Target, f64, Vec<String>)> =
                best.into_iter().map(|(t, (s, v, _))| (t, s, v)).collect();
            found.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            for (target, sim, values) in found.into_iter().take(3) {
                consumed[pos] = true;
                let score = (sim * 100.0).round() / 100.0;
                drafts.push(Draft {
                    position: pos,
                    candidate: candidate(
                        &vocab,
                        view,
                        &target,
                        values,
                        ResolveLevel::Trigram,
                        score,
                        vec![w.clone()],
                    ),
                });
            }
        }
    }
    if let Some((v, dim)) = &vector {
        let rest: Vec<String> = words
            .iter()
            .enumerate()
            .filter(|(p, w)| !consumed[*p] && !is_stop_word(w))
            .map(|(_, w)| w.clone())
            .collect();
        let mut scored: Vec<(f64, &Entry)> = vocab
            .entries
            .iter()
            .filter(|e| !e.synonym)
            .map(|e| (cosine(v, &embed(&e.phrase, *dim)), e))
            .filter(|(s, _)| *s >= EMBEDDING_MIN)
            .collect();
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.target.cmp(&b.1.target))
        });
        for (sim, e) in scored.into_iter().take(3) {
            let values = match &e.target {
                Target::Value(_, _, v) => vec![v.clone()],
                _ => Vec::new(),
            };
            let score = (sim * 100.0).round() / 100.0;
            drafts.push(Draft {
                position: words.len(),
                candidate: candidate(
                    &vocab,
                    view,
                    &e.target,
                    values,
                    ResolveLevel::Embedding,
                    score,
                    rest.clone(),
                ),
            });
        }
    }

    let type_rank = |t: &Open<CandidateType>| match t.known() {
        Some(CandidateType::Value) => 0,
        Some(CandidateType::Attribute) => 1,
        Some(CandidateType::Kind) | None => 2,
    };
    drafts.sort_by(|a, b| {
        a.position
            .cmp(&b.position)
            .then_with(|| b.candidate.score.total_cmp(&a.candidate.score))
            .then_with(|| {
                type_rank(&a.candidate.candidate_type).cmp(&type_rank(&b.candidate.candidate_type))
            })
            .then_with(|| a.candidate.kind.cmp(&b.candidate.kind))
    });
    let candidates: Vec<Candidate> = drafts
        .into_iter()
        .take(limit)
        .map(|d| d.candidate)
        .collect();

    let mut unmatched: Vec<String> = Vec::new();
    for (p, w) in words.iter().enumerate() {
        if !consumed[p] && !unmatched.contains(w) {
            unmatched.push(w.clone());
        }
    }
    let mut coverage: Vec<CoverageSignal> = Vec::new();
    for c in &candidates {
        if let (Some(CandidateType::Value), Some(a)) = (c.candidate_type.known(), &c.attribute)
            && let Some(kind) = view.def.kind(&c.kind)
            && let Some(s) = missing_signal(view, kind, a, true)
            && !coverage.iter().any(|x| x.message == s.message)
        {
            coverage.push(s);
        }
    }
    for w in unmatched.iter().filter(|w| !is_stop_word(w)) {
        coverage.push(CoverageSignal {
            signal: CoverageKind::UnknownPhrase.into(),
            message: format!(
                "'{w}' is unknown in the Domain: no Kind, Attribute or stored value matches it"
            ),
            kind: None,
            attribute: None,
            missing: None,
            total: None,
            source: None,
            phrase: Some(w.clone()),
        });
    }
    Ok(ResolveResponse {
        revision: view.rev.id.clone(),
        candidates,
        unmatched,
        skipped_levels: skipped,
        coverage,
    })
}
