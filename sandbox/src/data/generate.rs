//! The generated bulk of a Domain: deterministic Records described by a small
//! spec (counts, word lists, ranges), so the data files stay readable.

use std::collections::BTreeMap;

use keeper_wire::RecordRef;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::clock;

/// How to generate the Records of one Kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GeneratorSpec {
    pub kind: String,
    pub count: usize,
    pub key_prefix: String,
    #[serde(default = "one")]
    pub key_start: usize,
    /// Zero-padded width of the number (0: none).
    #[serde(default)]
    pub key_width: usize,
    /// The Source the values came from.
    #[serde(default)]
    pub source: Option<String>,
    pub attributes: BTreeMap<String, ValueGen>,
    #[serde(default)]
    pub links: Vec<LinkGen>,
}

fn one() -> usize {
    1
}

/// How to generate one attribute's values.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ValueGen {
    /// The Record's key.
    Key,
    /// One word of each list, joined by spaces.
    Words(Vec<Vec<String>>),
    /// One of these values, uniformly.
    Pick(Vec<Value>),
    /// Exactly these counts (`null` for missing), shuffled; they add up to `count`.
    Counts(Vec<(Value, usize)>),
    /// An integer in `[min, max]`.
    Int([i64; 2]),
    /// A number in `[min, max]` with two decimals.
    Number([f64; 2]),
    /// `true` with this probability.
    Bool(f64),
    /// A date `YYYY-MM-DD` in the range.
    Date([String; 2]),
    /// The pattern with every `#` replaced by a digit.
    Digits(String),
    /// `min..=max` words of the list.
    Sentence {
        words: Vec<String>,
        min: usize,
        max: usize,
    },
    /// Present with probability `p`.
    Optional { p: f64, of: Box<ValueGen> },
}

/// Links from each generated Record to Records of another Kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkGen {
    pub relation: String,
    pub to: String,
    #[serde(default = "one")]
    pub min: usize,
    #[serde(default = "one")]
    pub max: usize,
}

/// A generated Record.
pub(crate) struct GeneratedRecord {
    pub record: RecordRef,
    pub values: BTreeMap<String, Value>,
    pub source: Option<String>,
}

/// FNV-1a, for seeds that do not depend on the platform.
pub(crate) fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

impl GeneratorSpec {
    fn key(&self, i: usize) -> String {
        let n = self.key_start + i;
        format!("{}{:0width$}", self.key_prefix, n, width = self.key_width)
    }

    /// The Records, the same for the same domain name every time.
    pub(crate) fn records(&self, domain: &str) -> Result<Vec<GeneratedRecord>, String> {
        let mut rng = fastrand::Rng::with_seed(fnv1a(&[domain, &self.kind, "values"]));
        let mut columns: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
        for (attr, generator) in &self.attributes {
            if let ValueGen::Counts(counts) = generator {
                let total: usize = counts.iter().map(|(_, n)| n).sum();
                if total != self.count {
                    return Err(format!(
                        "{}.{attr}: counts add up to {total}, not {}",
                        self.kind, self.count
                    ));
                }
                let mut column: Vec<Value> = counts
                    .iter()
                    .flat_map(|(v, n)| std::iter::repeat_n(v.clone(), *n))
                    .collect();
                rng.shuffle(&mut column);
                columns.insert(attr, column);
            }
        }
        let mut out = Vec::with_capacity(self.count);
        for i in 0..self.count {
            let key = self.key(i);
            let mut values = BTreeMap::new();
            for (attr, generator) in &self.attributes {
                let value = match columns.get(attr.as_str()) {
                    Some(column) => column[i].clone(),
                    None => generator.value(&mut rng, &key)?,
                };
                if !value.is_null() {
                    values.insert(attr.clone(), value);
                }
            }
            out.push(GeneratedRecord {
                record: RecordRef::new(&self.kind, key),
                values,
                source: self.source.clone(),
            });
        }
        Ok(out)
    }

    /// The Links of the generated Records, to the given target keys per Kind.
    pub(crate) fn links(
        &self,
        domain: &str,
        targets: &BTreeMap<String, Vec<String>>,
    ) -> Vec<(String, RecordRef, RecordRef)> {
        let mut rng = fastrand::Rng::with_seed(fnv1a(&[domain, &self.kind, "links"]));
        let mut out = Vec::new();
        for i in 0..self.count {
            let from = RecordRef::new(&self.kind, self.key(i));
            for link in &self.links {
                let Some(keys) = targets.get(&link.to).filter(|k| !k.is_empty()) else {
                    continue;
                };
                let n = rng.usize(link.min..=link.max.max(link.min));
                let mut chosen: Vec<&String> =
                    (0..n).map(|_| &keys[rng.usize(..keys.len())]).collect();
                chosen.sort();
                chosen.dedup();
                for key in chosen {
                    out.push((
                        link.relation.clone(),
                        from.clone(),
                        RecordRef::new(&link.to, key.clone()),
                    ));
                }
            }
        }
        out
    }
}

impl ValueGen {
    fn value(&self, rng: &mut fastrand::Rng, key: &str) -> Result<Value, String> {
        Ok(match self {
            Self::Key => Value::String(key.to_string()),
            Self::Words(lists) => {
                let words: Vec<&str> = lists
                    .iter()
                    .filter(|l| !l.is_empty())
                    .map(|l| l[rng.usize(..l.len())].as_str())
                    .collect();
                Value::String(words.join(" "))
            }
            Self::Pick(values) if values.is_empty() => Value::Null,
            Self::Pick(values) => values[rng.usize(..values.len())].clone(),
            Self::Counts(_) => Value::Null,
            Self::Int([lo, hi]) => json!(rng.i64(*lo..=(*hi).max(*lo))),
            Self::Number([lo, hi]) => {
                let x = lo + rng.f64() * (hi - lo);
                json!((x * 100.0).round() / 100.0)
            }
            Self::Bool(p) => Value::Bool(rng.f64() < *p),
            Self::Date([from, to]) => {
                let a = clock::parse_date(from).ok_or_else(|| format!("bad date {from}"))?;
                let b = clock::parse_date(to).ok_or_else(|| format!("bad date {to}"))?;
                let day = rng.i64(a..=b.max(a));
                Value::String(clock::format_date(day))
            }
            Self::Digits(pattern) => Value::String(
                pattern
                    .chars()
                    .map(|c| {
                        if c == '#' {
                            char::from(b'0' + rng.u8(0..10))
                        } else {
                            c
                        }
                    })
                    .collect(),
            ),
            Self::Sentence { words, min, max } => {
                if words.is_empty() {
                    return Ok(Value::Null);
                }
                let n = rng.usize(*min..=(*max).max(*min));
                let picked: Vec<&str> = (0..n)
                    .map(|_| words[rng.usize(..words.len())].as_str())
                    .collect();
                Value::String(picked.join(" "))
            }
            Self::Optional { p, of } => {
                if rng.f64() < *p {
                    of.value(rng, key)?
                } else {
                    Value::Null
                }
            }
        })
    }
}
