//! The agent endpoints: context packs and Operation runs.

#[allow(unused_imports)]
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::*;
use super::open::Open;
use super::provenance::{AttributeLineage, HistoryEntry, ProposalStatus};
use super::reads::RecordView;
use super::schema::KindDef;
use super::uncut::Uncut;

/// `POST /context` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextRequest {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// Seed Records.
    pub records: Vec<RecordRef>,
    /// The question the seeds were found for (kept in the pack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Hops from the seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Relations to follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<Vec<String>>,
    /// Limit neighbors to Kinds implementing these Traits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traits: Option<Vec<String>>,
    /// A read preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lens: Option<String>,
    /// Budget in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u32>,
}

/// What the budget trimmed from a pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Trimmed {
    /// The section (`neighbors`, `links`, `recent_changes`, `lineage`, `schema`).
    pub section: String,
    /// How many items were dropped.
    pub dropped: u64,
}

/// A change in a context pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecentChange {
    /// The Record.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The change.
    #[serde(flatten)]
    pub entry: HistoryEntry,
}

/// A value's lineage in a context pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackLineage {
    /// The Record.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The value and its origin.
    #[serde(flatten)]
    pub lineage: AttributeLineage,
}

/// A change or a lineage line of a pack: the entry's schema, and its Record.
fn with_ref<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    // Values, not `Schema`s: serializing a `Schema` reorders its keywords.
    let entry = generator.subschema_for::<T>().to_value();
    let record = generator.subschema_for::<RecordRef>().to_value();
    schemars::json_schema!({
        "allOf": [entry, {"type": "object", "properties": {"ref": record}, "required": ["ref"]}]
    })
}

wire_schema!(RecentChange, |generator| with_ref::<HistoryEntry>(
    generator
));
wire_schema!(PackLineage, |generator| with_ref::<AttributeLineage>(
    generator
));

/// `POST /context` answer: Keeper's context pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextPack {
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// The question, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The seed Records with values.
    pub seeds: Vec<RecordView>,
    /// Nearby Records (headers).
    pub neighbors: Vec<RecordHeader>,
    /// Links among seeds and neighbors.
    pub links: Vec<Link>,
    /// Schema of the Kinds present.
    pub schema: Vec<KindDef>,
    /// Recent changes of the seeds.
    pub recent_changes: Vec<RecentChange>,
    /// Lineage of the seeds' values.
    pub lineage: Vec<PackLineage>,
    /// What the budget trimmed.
    pub trimmed: Vec<Trimmed>,
    /// The budget applied.
    pub token_budget: u32,
    /// The pack's estimated size in tokens.
    pub token_estimate: u32,
}

/// `POST /operations/{op}/execute` body.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecuteRequest {
    /// The branch to write (default: the Domain's default branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The Operation's parameters.
    pub parameters: serde_json::Map<String, Value>,
    /// Check without committing.
    pub dry_run: bool,
    /// Fail with stale-head unless the branch head is this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_head: Option<String>,
    /// A retried commit with the same key commits once and answers the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// The Revision's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A short slug: run on `agent/{agent}/{task}` and open a Proposal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// Why (the Proposal's description).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Open a Proposal when review is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_propose: Option<bool>,
    /// Merge the Proposal at once where the Domain allows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_merge: Option<bool>,
}

wire_enum! {
    /// What an Operation run came to.
    pub enum ExecuteStatus {
        /// Checked, nothing written.
        DryRun = "dry_run",
        /// Written to the branch.
        Committed = "committed",
        /// Written to a work branch with a Proposal (HTTP 202).
        Proposed = "proposed",
        /// Violations stopped it (dry runs report them; commits fail with validation-failed).
        Rejected = "rejected",
    }
}

/// One edit an Operation makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Edit {
    /// What it does to the Record.
    pub change: Open<ChangeType>,
    /// The Record.
    #[serde(rename = "ref")]
    pub record: RecordRef,
    /// The values, old -> new.
    pub changes: Vec<AttributeChange>,
}

/// A Proposal, as answered by execute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Proposal {
    /// Id (`prop_...`).
    #[schemars(with = "Uncut<String>")]
    pub id: String,
    /// Status.
    pub status: Open<ProposalStatus>,
    /// The work branch.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The branch it targets.
    #[schemars(with = "Uncut<String>")]
    pub target: String,
    /// Title (the intent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// `POST /operations/{op}/execute` answer (200, or 202 with a Proposal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecuteResult {
    /// The Operation.
    #[schemars(with = "Uncut<String>")]
    pub operation: String,
    /// What happened.
    pub status: Open<ExecuteStatus>,
    /// The branch written (or that would be).
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The head the run started from (pass it as `expected_head` to commit).
    #[schemars(with = "Uncut<String>")]
    pub head: String,
    /// The new Revision, when something was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-nullable" = true))]
    #[schemars(with = "Option<Uncut<String>>")]
    pub revision: Option<String>,
    /// The edits.
    pub edits: Vec<Edit>,
    /// Rule violations.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub violations: Vec<Issue>,
    /// Warnings.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub warnings: Vec<String>,
    /// The Proposal, when the write went to review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<Proposal>,
    /// What to do next.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub next: Vec<String>,
    /// The answer was replayed for a repeated `idempotency_key`.
    #[serde(default)]
    #[schemars(extend("x-required" = true))]
    pub replayed: bool,
}
