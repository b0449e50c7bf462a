//! The Keeper logic behind each endpoint, over one Revision of a Domain.

pub(crate) mod execute;
pub(crate) mod graph;
pub(crate) mod operations;
pub(crate) mod predicate;
pub(crate) mod provenance;
pub(crate) mod query;
pub(crate) mod reads;
pub(crate) mod resolve;
pub(crate) mod revisions;
pub(crate) mod search;
mod vocabulary;

use std::collections::BTreeMap;
use std::sync::Arc;

use keeper_wire::{RecordHeader, RecordRef};
use serde_json::Value;

use crate::auth::Principal;
use crate::data::{DomainDef, KindSpec};
use crate::problem::{ApiError, ApiResult};
use crate::store::{Revision, Snapshot, StoredRecord};

/// What a masked value reads as.
pub(crate) const MASK: &str = "***";

/// One read: the Domain's definitions, the branch and Revision read, and who
/// reads.
#[derive(Debug, Clone)]
pub(crate) struct ReadView {
    pub def: Arc<DomainDef>,
    pub branch: String,
    pub rev: Arc<Revision>,
    pub principal: Principal,
    /// Lexical search ranks at most this many matches of common words.
    pub candidate_cap: usize,
}

impl ReadView {
    pub(crate) fn snap(&self) -> &Snapshot {
        &self.rev.snapshot
    }

    pub(crate) fn kind(&self, name: &str) -> ApiResult<&KindSpec> {
        self.def.kind(name).ok_or_else(|| {
            ApiError::not_found(format!("no Kind {name:?} in Domain {}", self.def.name))
        })
    }

    pub(crate) fn record(&self, r: &RecordRef) -> ApiResult<&Arc<StoredRecord>> {
        self.kind(&r.kind)?;
        self.snap()
            .get(r)
            .ok_or_else(|| ApiError::not_found(format!("no Record {r} at this Revision")))
    }

    /// Whether an attribute is masked for the caller.
    pub(crate) fn is_masked(&self, kind: &str, attr: &str) -> bool {
        !self.principal.sees_sensitive()
            && self
                .def
                .kind(kind)
                .and_then(|k| k.attribute(attr))
                .is_some_and(|a| a.sensitive)
    }

    /// A value as the caller may see it.
    pub(crate) fn shown(&self, kind: &str, attr: &str, v: &Value) -> Value {
        if self.is_masked(kind, attr) && !v.is_null() {
            Value::String(MASK.into())
        } else {
            v.clone()
        }
    }

    /// The Record's values as the caller may see them.
    pub(crate) fn values(&self, rec: &StoredRecord) -> BTreeMap<String, Value> {
        rec.values
            .iter()
            .map(|(a, v)| (a.clone(), self.shown(&rec.record.kind, a, v)))
            .collect()
    }

    /// The attributes of the Record masked for the caller.
    pub(crate) fn masked(&self, rec: &StoredRecord) -> Vec<String> {
        rec.values
            .keys()
            .filter(|a| self.is_masked(&rec.record.kind, a))
            .cloned()
            .collect()
    }

    pub(crate) fn title(&self, rec: &StoredRecord) -> String {
        let Some(kind) = self.def.kind(&rec.record.kind) else {
            return rec.record.key.clone();
        };
        match rec.values.get(&kind.title) {
            Some(Value::String(s)) if !self.is_masked(&kind.name, &kind.title) => s.clone(),
            Some(v) if !v.is_null() && !self.is_masked(&kind.name, &kind.title) => v.to_string(),
            _ => rec.record.key.clone(),
        }
    }

    pub(crate) fn header(&self, rec: &StoredRecord) -> RecordHeader {
        RecordHeader {
            record: rec.record.clone(),
            title: self.title(rec),
        }
    }

    /// Fails with forbidden when the caller may not read an attribute's values
    /// (filters, grouping and sorting on masked attributes would reveal them).
    pub(crate) fn check_readable(&self, kind: &str, attr: &str, path: &str) -> ApiResult<()> {
        if self.is_masked(kind, attr) {
            return Err(ApiError::forbidden(format!(
                "{kind}.{attr} is sensitive: your key has no grant to read it"
            ))
            .with_issue(path, "sensitive attribute"));
        }
        Ok(())
    }
}

/// Opaque cursors: a revision, an offset and what they page through.
pub(crate) mod cursor {
    use crate::problem::{ApiError, ApiResult};

    /// Encodes a cursor (hex of `v1|revision|offset|scope`).
    pub(crate) fn encode(revision: &str, offset: usize, scope: &str) -> String {
        format!("v1|{revision}|{offset}|{scope}")
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The revision a cursor was issued at, whatever its scope.
    pub(crate) fn revision(cursor: &str) -> Option<String> {
        let scope = decode_text(cursor)?.splitn(4, '|').nth(3)?.to_string();
        decode(cursor, &scope).ok().map(|(rev, _)| rev)
    }

    fn decode_text(cursor: &str) -> Option<String> {
        if !cursor.len().is_multiple_of(2) || cursor.len() > 4096 {
            return None;
        }
        let bytes: Option<Vec<u8>> = (0..cursor.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(cursor.get(i..i + 2)?, 16).ok())
            .collect();
        String::from_utf8(bytes?).ok()
    }

    /// The offset a cursor of this scope points at, when it was issued at
    /// `revision` (a page of one read); no cursor is the first page.
    pub(crate) fn offset_at(cursor: Option<&str>, scope: &str, revision: &str) -> ApiResult<usize> {
        let Some(cursor) = cursor else { return Ok(0) };
        let (rev, offset) = decode(cursor, scope)?;
        if rev != revision {
            return Err(ApiError::invalid(
                "cursor",
                "the cursor belongs to another Revision: pass the same at",
            ));
        }
        Ok(offset)
    }

    /// Decodes a cursor of this scope: its revision and offset.
    pub(crate) fn decode(cursor: &str, scope: &str) -> ApiResult<(String, usize)> {
        let bad = || ApiError::invalid("cursor", "not a cursor of this listing");
        let text = decode_text(cursor).ok_or_else(bad)?;
        let mut parts = text.splitn(4, '|');
        let (Some("v1"), Some(rev), Some(off), Some(s)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if s != scope {
            return Err(bad());
        }
        Ok((rev.to_string(), off.parse().map_err(|_| bad())?))
    }
}

/// A page size: the default when absent, refused outside `1..=max`.
pub(crate) fn page_size(
    limit: Option<u32>,
    default: usize,
    max: usize,
    path: &str,
) -> ApiResult<usize> {
    match limit {
        None => Ok(default),
        Some(n) if n >= 1 && (n as usize) <= max => Ok(n as usize),
        Some(_) => Err(ApiError::invalid(
            path,
            format!("must be between 1 and {max}"),
        )),
    }
}

/// Percent with no decimals, or one below 1%.
pub(crate) fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0".into();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p >= 1.0 || p == 0.0 {
        format!("{}", p.round())
    } else {
        format!("{p:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_junk() {
        let c = cursor::encode("abc", 40, "history:Supplier/S-1");
        assert_eq!(
            cursor::decode(&c, "history:Supplier/S-1").unwrap(),
            ("abc".into(), 40)
        );
        assert!(cursor::decode(&c, "log:main").is_err());
        for junk in ["", "zz", "abc", "7631"] {
            assert!(cursor::decode(junk, "x").is_err(), "{junk}");
        }
    }

    #[test]
    fn percents() {
        assert_eq!(percent(100, 400), "25");
        assert_eq!(percent(1, 400), "0.2");
        assert_eq!(percent(0, 0), "0");
    }
}
