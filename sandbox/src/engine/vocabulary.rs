//! The vocabulary of a Domain for `POST /resolve`: the phrases that stand
//! for its Kinds, Attributes and categorical stored values, with their
//! synonyms, looked up whole or in the singular.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::ReadView;
use crate::data::KindSpec;
use crate::text::tokens;

/// Attributes with more distinct values than this are not categorical: their
/// values are not offered as candidates.
const MAX_DISTINCT: usize = 1000;
/// What an entry of the vocabulary stands for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Target {
    Kind(String),
    Attribute(String, String),
    Value(String, String, String),
}

/// One phrase of the Domain's vocabulary.
pub(super) struct Entry {
    pub phrase: String,
    pub target: Target,
    pub synonym: bool,
}

pub(super) fn normalize(s: &str) -> String {
    tokens(s).join(" ")
}

/// `PurchaseOrder` -> `purchase order`.
fn split_camel(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn singular(phrase: &str) -> Option<String> {
    let p = phrase.strip_suffix('s')?;
    (p.len() >= 3 && !p.ends_with('s')).then(|| p.to_string())
}

pub(super) struct Vocabulary {
    pub entries: Vec<Entry>,
    by_phrase: HashMap<String, Vec<usize>>,
    /// (kind, attr, value) -> Records with it.
    pub value_counts: HashMap<(String, String, String), u64>,
}

impl Vocabulary {
    pub(crate) fn build(view: &ReadView, kinds: &[&KindSpec]) -> Self {
        let mut entries = Vec::new();
        let mut value_counts = HashMap::new();
        for kind in kinds {
            let k = || Target::Kind(kind.name.clone());
            for p in [split_camel(&kind.name), kind.name.to_lowercase()] {
                entries.push(Entry {
                    phrase: normalize(&p),
                    target: k(),
                    synonym: false,
                });
            }
            for s in &kind.synonyms {
                entries.push(Entry {
                    phrase: normalize(s),
                    target: k(),
                    synonym: true,
                });
            }
            let mut distinct: BTreeMap<&str, BTreeMap<String, u64>> = BTreeMap::new();
            for rec in view.snap().of_kind(&kind.name) {
                for (a, v) in &rec.values {
                    if let Value::String(s) = v {
                        *distinct
                            .entry(a.as_str())
                            .or_default()
                            .entry(s.clone())
                            .or_default() += 1;
                    }
                }
            }
            for attr in &kind.attributes {
                let t = || Target::Attribute(kind.name.clone(), attr.name.clone());
                entries.push(Entry {
                    phrase: normalize(&attr.name.replace('_', " ")),
                    target: t(),
                    synonym: false,
                });
                for s in &attr.synonyms {
                    entries.push(Entry {
                        phrase: normalize(s),
                        target: t(),
                        synonym: true,
                    });
                }
                if attr.sensitive {
                    continue;
                }
                let values = distinct.remove(attr.name.as_str()).unwrap_or_default();
                let categorical = values.len() <= MAX_DISTINCT;
                for (value, n) in values {
                    value_counts.insert((kind.name.clone(), attr.name.clone(), value.clone()), n);
                    if categorical {
                        entries.push(Entry {
                            phrase: normalize(&value),
                            target: Target::Value(kind.name.clone(), attr.name.clone(), value),
                            synonym: false,
                        });
                    }
                }
                for (value, words) in &attr.value_synonyms {
                    for w in words {
                        entries.push(Entry {
                            phrase: normalize(w),
                            target: Target::Value(
                                kind.name.clone(),
                                attr.name.clone(),
                                value.clone(),
                            ),
                            synonym: true,
                        });
                    }
                }
            }
        }
        entries.retain(|e| !e.phrase.is_empty());
        let mut by_phrase: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_phrase.entry(e.phrase.clone()).or_default().push(i);
        }
        Self {
            entries,
            by_phrase,
            value_counts,
        }
    }

    pub(crate) fn lookup(&self, phrase: &str) -> Vec<&Entry> {
        let mut out: Vec<&Entry> = Vec::new();
        for p in std::iter::once(phrase.to_string()).chain(singular(phrase)) {
            for i in self.by_phrase.get(&p).into_iter().flatten() {
                out.push(&self.entries[*i]);
            }
        }
        out
    }
}
