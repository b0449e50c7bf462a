//! Revisions: branches, the branch log and diffs.

#[allow(unused_imports)]
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::*;
use super::open::Open;
use super::uncut::Uncut;

/// Pagination parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageParams {
    /// Page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// A branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Branch {
    /// Name (`main`, `agent/agt_x/fix-risk`).
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// Head Revision.
    #[schemars(with = "Uncut<String>")]
    pub head: String,
    /// The Domain's default branch.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub default: bool,
    /// Writes need a Proposal.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub protected: bool,
    /// The principal owning a work branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

/// `GET /branches` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BranchList {
    /// Branches, the default first, then by name.
    pub branches: Vec<Branch>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub next_cursor: Option<String>,
}

/// `GET /branches/{b}/log` query parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogParams {
    /// Page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Only Revisions by this principal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Only Revisions of this origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_type: Option<OriginType>,
}

/// Counts of what a Revision or diff did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeCounts {
    /// Records or Links added.
    pub created: u64,
    /// Records changed.
    pub updated: u64,
    /// Records or Links removed.
    pub deleted: u64,
}

/// One Revision of a branch log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    /// The Revision.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// Its parent (none for the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub parent: Option<String>,
    /// When.
    pub time: String,
    /// Who.
    pub author: String,
    /// How.
    pub origin_type: Open<OriginType>,
    /// The Operation, for `operation` origins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub operation: Option<String>,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// What it did.
    pub counts: ChangeCounts,
}

// The counts first, then the name and scope, as documented in `docs/tools.md`.
wire_schema!(DiffCount, |generator| diff_count_schema(generator));

fn diff_count_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut schema = generator.subschema_for::<ChangeCounts>();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        let name = generator.subschema_for::<Uncut<String>>();
        properties.insert("name".into(), name.into());
        properties.insert(
            "scope".into(),
            serde_json::json!({"type": "string", "examples": ["kind", "relation"]}),
        );
    }
    schema.insert(
        "required".into(),
        serde_json::json!(["name", "scope", "created", "updated", "deleted"]),
    );
    schema
}

/// `GET /branches/{b}/log` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchLog {
    /// The branch.
    pub branch: String,
    /// Its head.
    pub head: String,
    /// Revisions, newest first.
    pub entries: Vec<LogEntry>,
    /// The next (older) page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `GET /diff` query parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiffParams {
    /// The older Revision (id, 8+ prefix, or tag).
    pub from: String,
    /// The newer Revision.
    pub to: String,
    /// Comma-separated Kinds to limit to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<String>,
    /// Comma-separated Relations to limit to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<String>,
    /// Page size of the elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Counts per Kind or Relation in a diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiffCount {
    /// The Kind (Records) or Relation (Links).
    pub name: String,
    /// `kind` or `relation` (or a newer Keeper's own scope).
    pub scope: String,
    /// What changed.
    #[serde(flatten)]
    pub counts: ChangeCounts,
}

/// One element of a diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiffElement {
    /// `+` added, `~` changed, `-` removed (or a newer Keeper's own op).
    #[schemars(extend("examples" = ["+", "~", "-"]))]
    pub op: String,
    /// The Record (for Records).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordRef>,
    /// The Link (for Links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// Changed values, old -> new.
    #[serde(default)]
    pub changes: Vec<AttributeChange>,
}

/// `GET /diff` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Diff {
    /// The older Revision (full id).
    #[schemars(with = "Uncut<String>")]
    pub from: String,
    /// The newer Revision (full id).
    #[schemars(with = "Uncut<String>")]
    pub to: String,
    /// Counts per Kind and Relation.
    pub counts: Vec<DiffCount>,
    /// This page's elements.
    pub elements: Vec<DiffElement>,
    /// The next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub next_cursor: Option<String>,
}
