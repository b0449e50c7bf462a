//! Text: tokens, stop words, trigrams, the BM25 index and the deterministic
//! per-record embeddings of the embedded Kinds.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use keeper_wire::RecordRef;
use serde_json::Value;

use crate::data::fnv1a;
use crate::data::{DomainDef, KindSpec};

/// Lowercase words of a text (letters and digits).
pub(crate) fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words that carry no meaning of their own in a question.
pub(crate) fn is_stop_word(word: &str) -> bool {
    const STOP: &[&str] = &[
        "a", "all", "an", "and", "any", "are", "as", "at", "be", "by", "count", "do", "does",
        "each", "every", "find", "for", "from", "get", "give", "have", "how", "i", "in", "is",
        "it", "list", "many", "me", "much", "my", "of", "on", "or", "our", "per", "show", "some",
        "that", "the", "their", "there", "these", "this", "those", "to", "was", "we", "what",
        "where", "which", "who", "with", "you",
    ];
    STOP.contains(&word)
}

/// Padded character trigrams of a word or phrase.
pub(crate) fn trigrams(s: &str) -> BTreeSet<String> {
    let padded: Vec<char> = format!("  {} ", s.to_lowercase()).chars().collect();
    padded.windows(3).map(|w| w.iter().collect()).collect()
}

/// Jaccard similarity of the trigram sets.
pub(crate) fn trigram_similarity(a: &str, b: &str) -> f64 {
    let (ta, tb) = (trigrams(a), trigrams(b));
    let inter = ta.intersection(&tb).count() as f64;
    let union = (ta.len() + tb.len()) as f64 - inter;
    if union == 0.0 { 0.0 } else { inter / union }
}

/// The deterministic embedding of a text: hashed word features, L2-normalized.
pub(crate) fn embed(text: &str, dimension: usize) -> Vec<f32> {
    let mut v = vec![0f32; dimension.max(1)];
    for t in tokens(text) {
        let h = fnv1a(&[&t]);
        let i = (h % v.len() as u64) as usize;
        let sign = if (h >> 40) & 1 == 0 { 1.0 } else { -1.0 };
        v[i] += sign;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Cosine similarity (vectors of the same length).
pub(crate) fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        f64::from(dot / (na * nb))
    }
}

/// The text of a value (strings and lists of strings).
pub(crate) fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// A Record's values by attribute.
pub(crate) type Values = BTreeMap<String, Value>;

/// Fills `{attr}` placeholders from a Record's values.
pub(crate) fn render_template(template: &str, values: &Values) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &rest[start + 1..start + end];
        if let Some(v) = values.get(name) {
            out.push_str(&value_text(v).unwrap_or_else(|| v.to_string()));
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

/// The searchable attributes of a Kind (text, not sensitive).
pub(crate) fn searchable<'a>(kind: &'a KindSpec) -> impl Iterator<Item = &'a str> + 'a {
    kind.attributes
        .iter()
        .filter(|a| {
            !a.sensitive
                && (a.type_name == "string"
                    || a.type_name == "list<string>"
                    || a.type_name == "enum")
        })
        .map(|a| a.name.as_str())
}

/// One indexed Record.
#[derive(Debug)]
pub(crate) struct Doc {
    pub record: RecordRef,
    pub len: u32,
}

/// The BM25 index and the vectors of a snapshot.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    pub docs: Vec<Doc>,
    pub postings: HashMap<String, Vec<(u32, u32)>>,
    pub avg_len: f64,
    /// (doc, embedding) of the embedded Kinds.
    pub vectors: Vec<(u32, Vec<f32>)>,
}

/// A ranked match.
#[derive(Debug, Clone)]
pub(crate) struct Ranked {
    pub record: RecordRef,
    pub score: f64,
}

impl SearchIndex {
    /// Indexes the text attributes of every Record; `of_kind` lists the
    /// Records of a Kind (ref and values).
    pub(crate) fn build<'a>(
        def: &DomainDef,
        of_kind: impl Fn(&str) -> Vec<(&'a RecordRef, &'a Values)>,
    ) -> Self {
        let mut index = Self::default();
        let dim = def.embedding.as_ref().map(|e| e.dimension as usize);
        let mut total_len = 0u64;
        for kind in &def.kinds {
            let attrs: Vec<&str> = searchable(kind).collect();
            for (record, values) in of_kind(&kind.name) {
                let doc = index.docs.len() as u32;
                let mut tf: HashMap<String, u32> = HashMap::new();
                let mut len = 0u32;
                for a in &attrs {
                    if let Some(text) = values.get(*a).and_then(value_text) {
                        for t in tokens(&text) {
                            *tf.entry(t).or_default() += 1;
                            len += 1;
                        }
                    }
                }
                for (t, n) in tf {
                    index.postings.entry(t).or_default().push((doc, n));
                }
                total_len += u64::from(len);
                index.docs.push(Doc {
                    record: record.clone(),
                    len,
                });
                if let (Some(template), Some(dim)) = (&kind.embedding_template, dim) {
                    index
                        .vectors
                        .push((doc, embed(&render_template(template, values), dim)));
                }
            }
        }
        index.avg_len = if index.docs.is_empty() {
            0.0
        } else {
            total_len as f64 / index.docs.len() as f64
        };
        index
    }

    /// BM25 over the query's words; `keep` filters the candidates. When every
    /// word matches more than `cap` Records, only the first `cap` matches of
    /// the rarest word are ranked (the second value is then true).
    pub(crate) fn lexical(
        &self,
        query: &str,
        cap: usize,
        keep: &dyn Fn(&RecordRef) -> bool,
    ) -> (Vec<Ranked>, bool) {
        let mut terms = tokens(query);
        terms.sort();
        terms.dedup();
        let lists: Vec<(&String, &Vec<(u32, u32)>)> = terms
            .iter()
            .filter_map(|t| self.postings.get(t).map(|p| (t, p)))
            .collect();
        if lists.is_empty() {
            return (Vec::new(), false);
        }
        let n = self.docs.len() as f64;
        let truncated = lists.iter().all(|(_, p)| p.len() > cap);
        let sample: Option<BTreeSet<u32>> = truncated.then(|| {
            let rarest = lists.iter().min_by_key(|(_, p)| p.len()).map(|(_, p)| *p);
            rarest
                .map(|p| p.iter().take(cap).map(|(d, _)| *d).collect())
                .unwrap_or_default()
        });
        let mut scores: HashMap<u32, f64> = HashMap::new();
        let (k1, b) = (1.2, 0.75);
        for (_, postings) in &lists {
            let df = postings.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (doc, tf) in postings.iter() {
                if sample.as_ref().is_some_and(|s| !s.contains(doc)) {
                    continue;
                }
                let len = f64::from(self.docs[*doc as usize].len);
                let tf = f64::from(*tf);
                let norm =
                    tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / self.avg_len.max(1.0)));
                *scores.entry(*doc).or_default() += idf * norm;
            }
        }
        let mut ranked: Vec<Ranked> = scores
            .into_iter()
            .filter(|(d, _)| keep(&self.docs[*d as usize].record))
            .map(|(d, s)| Ranked {
                record: self.docs[d as usize].record.clone(),
                score: (s * 10_000.0).round() / 10_000.0,
            })
            .collect();
        ranked.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.record.cmp(&b.record))
        });
        (ranked, truncated)
    }

    /// The `list_size` nearest embedded Records by cosine, then filtered.
    pub(crate) fn nearest(
        &self,
        vector: &[f32],
        list_size: usize,
        keep: &dyn Fn(&RecordRef) -> bool,
    ) -> Vec<Ranked> {
        let mut all: Vec<Ranked> = self
            .vectors
            .iter()
            .map(|(d, v)| Ranked {
                record: self.docs[*d as usize].record.clone(),
                score: (cosine(vector, v) * 10_000.0).round() / 10_000.0,
            })
            .collect();
        all.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.record.cmp(&b.record))
        });
        all.truncate(list_size);
        all.retain(|r| keep(&r.record));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_trigrams() {
        assert_eq!(
            tokens("Red shoes, per-brand!"),
            ["red", "shoes", "per", "brand"]
        );
        assert!(is_stop_word("per") && !is_stop_word("brand"));
        assert!(trigram_similarity("shoes", "shoe") > 0.5);
        assert!(trigram_similarity("many", "mango") < 0.5);
        assert_eq!(trigram_similarity("red", "red"), 1.0);
    }

    #[test]
    fn embeddings_are_deterministic_and_normalized() {
        let a = embed("steel bolt", 16);
        assert_eq!(a, embed("Steel  BOLT", 16));
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        assert!(cosine(&a, &embed("steel bolt coated", 16)) > cosine(&a, &embed("oak hinge", 16)));
    }
}
