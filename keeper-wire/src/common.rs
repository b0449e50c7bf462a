//! The types the endpoints share: a Record reference ([`RecordRef`]), the
//! problem body and its codes, origins and changes, Links, coverage signals,
//! the query DSL's predicates and the Revision selectors every read accepts.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::open::Open;
use super::uncut::Uncut;

/// A Record reference, `Kind/key` (for example `Supplier/S-1001`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordRef {
    /// The Kind's api name.
    pub kind: String,
    /// The Record's key within its Kind.
    pub key: String,
}

/// Why a string is not a [`RecordRef`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a ref is Kind/key, for example Supplier/S-1001; got {0:?}")]
pub struct RefParseError(pub String);

impl RecordRef {
    /// Builds a ref from its parts.
    pub fn new(kind: impl Into<String>, key: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            key: key.into(),
        }
    }
}

impl fmt::Display for RecordRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.kind, self.key)
    }
}

impl FromStr for RecordRef {
    type Err = RefParseError;

    /// `Kind/key`: the Kind is an identifier (`[A-Za-z_][A-Za-z0-9_]*`), the key
    /// is non-empty, at most 256 bytes, without control characters; the first `/`
    /// splits them, so keys may contain `/`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || RefParseError(s.to_string());
        let (kind, key) = s.split_once('/').ok_or_else(err)?;
        let mut chars = kind.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(err());
        }
        if key.is_empty() || key.len() > 256 || key.chars().any(char::is_control) {
            return Err(err());
        }
        Ok(Self::new(kind, key))
    }
}

impl Serialize for RecordRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

// A string; the description (`Kind/key`) stays in output schemas, which
// drop the descriptions doc comments give. A ref is an identifier wherever
// an answer holds one: the output caps never cut it.
wire_schema!(RecordRef, |generator| {
    let mut schema = generator.subschema_for::<Uncut<String>>();
    schema.insert("x-description".into(), "Kind/key".into());
    schema
});

impl<'de> Deserialize<'de> for RecordRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

wire_enum! {
    /// Keeper's problem codes (docs/tools.md, "Results").
    pub enum ProblemCode {
        /// The branch moved since `expected_head`.
        StaleHead = "stale-head",
        /// The change needs a Proposal.
        ReviewRequired = "review-required",
        /// The branch is protected; the change needs a Proposal.
        ProtectedBranch = "protected-branch",
        /// Too many task branches for this agent.
        AgentBranchLimit = "agent-branch-limit",
        /// The branch (or object) exists and is someone else's.
        AlreadyExists = "already-exists",
        /// Parameters or data rules failed.
        ValidationFailed = "validation-failed",
        /// No such Domain, branch, Kind or Record.
        NotFound = "not-found",
        /// The key lacks the grant.
        Forbidden = "forbidden",
        /// The key is missing or invalid.
        Unauthorized = "unauthorized",
        /// Too many requests; retry after the delay.
        RateLimited = "rate-limited",
        /// The branch is busy with another write; retry after the delay.
        BranchBusy = "branch-busy",
        /// Keeper is unreachable or overloaded.
        KeeperUnavailable = "keeper-unavailable",
    }
}

impl ProblemCode {
    /// Whether the failure is transient (worth retrying after a delay).
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::BranchBusy | Self::KeeperUnavailable
        )
    }

    /// The HTTP status Keeper answers with this code.
    pub fn http_status(self) -> u16 {
        match self {
            Self::StaleHead | Self::AlreadyExists | Self::AgentBranchLimit => 409,
            Self::ReviewRequired | Self::ProtectedBranch | Self::Forbidden => 403,
            Self::ValidationFailed => 422,
            Self::NotFound => 404,
            Self::Unauthorized => 401,
            Self::RateLimited => 429,
            Self::BranchBusy => 423,
            Self::KeeperUnavailable => 503,
        }
    }
}

/// One issue of a problem: what is wrong, and where (a JSON-pointer-like path
/// such as `parameters.risk_score`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Issue {
    /// Where the issue is (`parameters.risk_score`, `query.where.and[0].op`).
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    #[schemars(with = "Uncut<String>")]
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// An `application/problem+json` body (RFC 9457) with Keeper's extensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    /// A URI naming the problem type (`https://lorebase.dev/problems/<code>`).
    #[serde(rename = "type", default)]
    pub type_uri: String,
    /// A short summary of the problem type.
    #[serde(default)]
    pub title: String,
    /// The HTTP status (0 when the body leaves it out: the answer's is used).
    #[serde(default)]
    pub status: u16,
    /// What went wrong in this occurrence.
    #[serde(default)]
    pub detail: String,
    /// Keeper's problem code (a newer Keeper's own codes kept as they are).
    pub code: Open<ProblemCode>,
    /// The issues, one per path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
    /// The branch's current head (on `stale-head`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Seconds to wait (mirrors the `Retry-After` header on transient codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

wire_enum! {
    /// Where a value or change came from.
    pub enum OriginType {
        /// Bulk import (a loader).
        Import = "import",
        /// An Operation run by a principal.
        Operation = "operation",
        /// Extracted from a document by a model.
        Extraction = "extraction",
        /// Merged through a Proposal.
        Proposal = "proposal",
        /// Synced from a Source.
        Source = "source",
    }
}

wire_enum! {
    /// What a change did to a Record.
    pub enum ChangeType {
        /// The Record was created.
        Created = "created",
        /// Some values changed.
        Updated = "updated",
        /// The Record was deleted.
        Deleted = "deleted",
    }
}

/// One attribute's change, `before -> after` (`null` when absent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributeChange {
    /// The attribute's api name.
    #[schemars(with = "Uncut<String>")]
    pub attribute: String,
    /// The value before (omitted when the request did not ask for values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    /// The value after (omitted when the request did not ask for values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
}

/// A Record's identity and title, without values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordHeader {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The Record's title (its Kind's title attribute).
    #[serde(default)]
    pub title: String,
}

/// A Link between two Records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Link {
    /// The Relation's api name.
    #[schemars(with = "Uncut<String>")]
    pub relation: String,
    /// The source Record.
    pub from: RecordRef,
    /// The target Record.
    pub to: RecordRef,
}

/// A signal that an answer may be incomplete (a `coverage:` line of a rendering).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CoverageSignal {
    /// The kind of signal (a newer Keeper's own kinds kept as they are).
    pub signal: Open<CoverageKind>,
    /// The line to show, for example `color missing on 25% of Product: a filter on color excludes them`.
    pub message: String,
    /// The Kind concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub kind: Option<String>,
    /// The Attribute concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub attribute: Option<String>,
    /// Records missing the Attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<u64>,
    /// Records of the Kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// The Source concerned (stale Sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The phrase concerned (unknown phrases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phrase: Option<String>,
}

wire_enum! {
    /// The kinds of [`CoverageSignal`].
    pub enum CoverageKind {
        /// Records of a Kind lack an Attribute the answer used.
        MissingValues = "missing_values",
        /// A Source behind the answer is past its freshness date.
        StaleSource = "stale_source",
        /// A phrase of the question is unknown in the Domain.
        UnknownPhrase = "unknown_phrase",
    }
}

/// A filter predicate of the query DSL: `and`/`or`/`not` or a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Predicate {
    /// Every predicate holds.
    And {
        /// The predicates.
        and: Vec<Predicate>,
    },
    /// At least one predicate holds.
    Or {
        /// The predicates.
        or: Vec<Predicate>,
    },
    /// The predicate does not hold.
    Not {
        /// The negated predicate.
        not: Box<Predicate>,
    },
    /// `attr op value`.
    Compare {
        /// The Attribute's api name.
        attr: String,
        /// The comparison.
        op: CompareOp,
        /// The operand (a list for `in`; omitted for `exists`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
    },
}

// Any object (the grammar is in the `where` argument's description).
wire_schema!(
    Predicate,
    |_generator| schemars::json_schema!({"type": "object"})
);

wire_enum! {
    /// Comparison operators of the query DSL.
    pub enum CompareOp {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// One of a list.
        In = "in",
        /// Less than.
        Lt = "lt",
        /// Less than or equal.
        Lte = "lte",
        /// Greater than.
        Gt = "gt",
        /// Greater than or equal.
        Gte = "gte",
        /// Substring (strings, case-insensitive) or membership (lists).
        Contains = "contains",
        /// The attribute has a value (`value: false` for has none).
        Exists = "exists",
    }
}

/// Revision selectors every read accepts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadAt {
    /// Branch (default: the Domain's default branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// A Revision id (64 hex digits or an 8+ digit prefix) or a tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_parse_and_print() {
        let r: RecordRef = "Supplier/S-1001".parse().unwrap();
        assert_eq!(r, RecordRef::new("Supplier", "S-1001"));
        assert_eq!(r.to_string(), "Supplier/S-1001");
        let nested: RecordRef = "Doc/a/b".parse().unwrap();
        assert_eq!(nested.key, "a/b");
        for bad in [
            "",
            "Supplier",
            "/S-1",
            "Supplier/",
            "1Kind/x",
            "Ki nd/x",
            "K/\u{7}",
        ] {
            assert!(bad.parse::<RecordRef>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn predicates_round_trip() {
        let json = serde_json::json!({"and": [
            {"attr": "color", "op": "in", "value": ["Rosso", "red"]},
            {"not": {"attr": "brand", "op": "exists"}}
        ]});
        let p: Predicate = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(serde_json::to_value(&p).unwrap(), json);
    }

    #[test]
    fn problem_codes_are_kebab_case() {
        for code in ProblemCode::ALL {
            let v = serde_json::to_value(code).unwrap();
            assert_eq!(v, serde_json::Value::String(code.as_str().into()));
        }
    }
}
