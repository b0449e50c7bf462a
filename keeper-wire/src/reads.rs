//! Reads: one Record, resolve, query, search and neighborhood.

#[allow(unused_imports)]
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::*;
use super::open::Open;
use super::uncut::Uncut;

/// `GET /kinds/{kind}/records/{key}` query parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordParams {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// Include the Links themselves (not only their counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<bool>,
}

/// One Record with its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordView {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Attribute values (masked ones are `"***"`).
    pub values: BTreeMap<String, Value>,
    /// Attributes masked for this caller.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
    /// Link counts per Relation (outgoing and incoming, by relation name).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, i64>")]
    pub link_counts: BTreeMap<String, u64>,
    /// The Links, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Link>>,
}

wire_enum! {
    /// Resolution levels, cheapest first.
    pub enum ResolveLevel {
        /// The words are a name or value.
        Exact = "exact",
        /// The words are a declared synonym.
        Synonym = "synonym",
        /// The words are close in spelling (trigrams).
        Trigram = "trigram",
        /// The words are close in meaning (needs `query_vector`).
        Embedding = "embedding",
    }
}

/// `POST /resolve` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResolveRequest {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// The words to resolve.
    pub text: String,
    /// Limit candidates to these Kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<String>>,
    /// Levels to try (default: all that apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<ResolveLevel>>,
    /// A query embedding for the `embedding` level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_vector: Option<Vec<f32>>,
    /// Most candidates to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

wire_enum! {
    /// What a candidate stands for.
    pub enum CandidateType {
        /// A Kind.
        Kind = "kind",
        /// An Attribute of a Kind.
        Attribute = "attribute",
        /// Stored values of an Attribute.
        Value = "value",
    }
}

/// One thing the words may stand for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Candidate {
    /// Kind, attribute or value.
    #[serde(rename = "type")]
    pub candidate_type: Open<CandidateType>,
    /// The Kind.
    #[schemars(with = "Uncut<String>")]
    pub kind: String,
    /// The Attribute (attribute and value candidates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub attribute: Option<String>,
    /// The Attribute's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute_type: Option<String>,
    /// The stored values (value candidates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<Value>,
    /// How it matched.
    pub level: Open<ResolveLevel>,
    /// How well, 0..1.
    pub score: f64,
    /// The words it matched.
    pub matched: Vec<String>,
    /// A ready-to-use predicate (value candidates), as Keeper wrote it: it
    /// is passed on unchanged, so a newer Keeper's predicate stays whole.
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<Predicate>>")]
    pub where_predicate: Option<Value>,
    /// Records it selects (kind and value candidates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_count: Option<u64>,
}

/// A level that was not tried, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedLevel {
    /// The level.
    pub level: Open<ResolveLevel>,
    /// Why (`no query_vector`, `not requested`).
    pub reason: String,
}

/// `POST /resolve` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResolveResponse {
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Candidates, best first.
    pub candidates: Vec<Candidate>,
    /// Words no candidate matched (stop words included).
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub unmatched: Vec<String>,
    /// Levels not tried.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub skipped_levels: Vec<SkippedLevel>,
    /// Coverage signals.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub coverage: Vec<CoverageSignal>,
}

/// A query of the DSL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// The Kind to read.
    pub kind: String,
    /// The filter.
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    pub where_predicate: Option<Predicate>,
    /// Attributes to return (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
    /// Neighbors to include per row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<Include>>,
    /// Count Records per value of an attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Aggregate>,
    /// Sort by an attribute (`-attr` for descending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// Page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// `false` leaves the coverage signals out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<bool>,
}

/// Neighbors to include in query rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Include {
    /// The Relation to follow.
    pub relation: String,
    /// Attributes of the neighbors to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<Vec<String>>,
}

/// An aggregate: counts per value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    /// The attribute to group by.
    pub group_by: String,
}

/// `POST /query` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryRequest {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// The query.
    pub query: Query,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One query row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueryRow {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Selected values.
    pub values: BTreeMap<String, Value>,
    /// Included neighbors, per Relation.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub included: BTreeMap<String, Vec<NeighborRow>>,
}

/// A neighbor included in a query row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NeighborRow {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Selected values.
    #[serde(default)]
    pub values: BTreeMap<String, Value>,
}

/// One group of an aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AggregateGroup {
    /// The value (`null` for Records without one).
    pub value: Value,
    /// Records with it.
    pub count: u64,
}

/// An aggregate's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AggregateResult {
    /// The Kind counted.
    #[schemars(with = "Uncut<String>")]
    pub kind: String,
    /// The attribute grouped by.
    pub group_by: String,
    /// Groups, largest first, ties by value.
    pub groups: Vec<AggregateGroup>,
}

/// `POST /query` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QueryResponse {
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Records matching the filter.
    pub total: u64,
    /// This page's rows.
    pub rows: Vec<QueryRow>,
    /// Counts per value, when the query aggregates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<AggregateResult>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub next_cursor: Option<String>,
    /// Coverage signals.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub coverage: Vec<CoverageSignal>,
}

/// `POST /search` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchRequest {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// Words to search for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Limit to these Kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<Vec<String>>,
    /// Limit to Kinds implementing these Traits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traits: Option<Vec<String>>,
    /// Limit to a lens's Kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lens: Option<String>,
    /// A filter on the hits.
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    pub where_predicate: Option<Predicate>,
    /// A query embedding (vector or hybrid search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_vector: Option<Vec<f32>>,
    /// Most hits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// The matching text, with the terms in `**bold**`.
    #[serde(default)]
    pub snippet: String,
    /// Score (BM25, cosine, or fused).
    pub score: f64,
}

/// `POST /search` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResponse {
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// `lexical`, `vector` or `hybrid` (or a newer Keeper's own mode).
    #[schemars(extend("examples" = ["lexical", "vector", "hybrid"]))]
    pub mode: String,
    /// Hits, best first.
    pub hits: Vec<SearchHit>,
    /// Every term was so common that only a sample of the matches was ranked.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub truncated_candidates: bool,
    /// The vector list stopped short while more Records match the filters.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub truncated: bool,
}

/// `POST /neighborhood` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NeighborhoodRequest {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// Where to start.
    pub seeds: Vec<RecordRef>,
    /// How many hops.
    pub depth: u32,
    /// Relations to follow (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<Vec<String>>,
    /// Cap on nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_nodes: Option<u32>,
    /// Cap on edges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_edges: Option<u32>,
    /// Return values (default false: headers and Link endpoints only).
    pub values: bool,
}

/// A node of a neighborhood.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NeighborhoodNode {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Hops from the nearest seed.
    pub depth: u32,
    /// Values, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, Value>>,
}

/// `POST /neighborhood` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NeighborhoodResponse {
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Nodes, seeds first.
    pub nodes: Vec<NeighborhoodNode>,
    /// Links between nodes.
    pub edges: Vec<Link>,
    /// A cap stopped the walk.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub truncated: bool,
}
