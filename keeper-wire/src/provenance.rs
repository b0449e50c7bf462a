//! Provenance: explain, history and lineage of a Record.

#[allow(unused_imports)]
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::*;
use super::open::Open;
use super::schema::SourceInfo;
use super::uncut::Uncut;

/// Who set something, when, in which Revision, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Origin {
    /// How.
    pub origin_type: Open<OriginType>,
    /// The principal (`usr_editor`).
    pub actor: String,
    /// When (RFC 3339, UTC).
    pub time: String,
    /// The Revision (64 hex digits).
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// The Operation, for `operation` origins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub operation: Option<String>,
    /// The Source, for `source` and `import` origins that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The extraction evidence, for `extraction` origins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The Proposal that brought it to the branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalRef>,
}

/// Where in a document a value was extracted, and by which model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// The document.
    #[schemars(with = "Uncut<String>")]
    pub document_id: String,
    /// Span start (characters).
    pub start: u64,
    /// Span end (characters, exclusive).
    pub end: u64,
    /// The extracting model.
    pub model: String,
    /// The quoted span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

/// A Proposal, as referenced from provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProposalRef {
    /// Id (`prop_...`).
    #[schemars(with = "Uncut<String>")]
    pub id: String,
    /// Status.
    pub status: Open<ProposalStatus>,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The work branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub branch: Option<String>,
}

wire_enum! {
    /// A Proposal's status.
    pub enum ProposalStatus {
        /// Waiting for review.
        Proposed = "proposed",
        /// Merged into the target branch.
        Merged = "merged",
        /// Conflicts with the target branch.
        Conflicts = "conflicts",
        /// Closed without merging.
        Closed = "closed",
    }
}

/// One attribute's current value and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributeLineage {
    /// The attribute.
    #[schemars(with = "Uncut<String>")]
    pub attribute: String,
    /// Its current value.
    pub value: Value,
    /// Its last change.
    pub origin: Origin,
}

/// Query parameters of explain, history and lineage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProvenanceParams {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// explain: comma-separated attributes to explain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<String>,
    /// history: include before/after values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<bool>,
    /// history: page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// history: the cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `GET .../explain` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Explain {
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
    /// How the Record was created.
    pub created: Origin,
    /// Per attribute, its value and last change.
    pub attributes: Vec<AttributeLineage>,
    /// Its Links (when no attributes were asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Link>>,
    /// The Proposals that changed it (when no attributes were asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposals: Option<Vec<ProposalRef>>,
}

/// One change of a Record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryEntry {
    /// The Revision.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// When (RFC 3339, UTC).
    pub time: String,
    /// Who.
    pub author: String,
    /// How.
    pub origin_type: Open<OriginType>,
    /// The Operation, for `operation` origins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub operation: Option<String>,
    /// The Revision's message.
    #[serde(default)]
    pub message: String,
    /// What the change did.
    pub change: Open<ChangeType>,
    /// The attributes it changed (with values when asked for).
    pub changes: Vec<AttributeChange>,
}

/// `GET .../history` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct History {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Changes of the Record up to that Revision.
    pub total: u64,
    /// Changes, newest first.
    pub entries: Vec<HistoryEntry>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub next_cursor: Option<String>,
}

/// `GET .../lineage` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Lineage {
    /// `Kind/key`.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Changes of the Record up to that Revision.
    pub changes: u64,
    /// How the Record was created.
    pub created: Origin,
    /// Per current value, its origin.
    pub attributes: Vec<AttributeLineage>,
    /// The Sources behind the values.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub sources: Vec<SourceInfo>,
    /// The Proposals that brought values to the branch.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub proposals: Vec<ProposalRef>,
}
