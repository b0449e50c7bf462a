//! The schema of a Domain: Kinds, Relations, Traits, Operations, lenses, Sources.

#[allow(unused_imports)]
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[allow(unused_imports)]
use serde_json::Value;

use super::common::*;
use super::open::Open;
use super::uncut::Uncut;

/// `GET /schema` query parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemaParams {
    /// Branch and Revision.
    #[serde(flatten)]
    pub read: ReadAt,
    /// Comma-separated Kind names to limit the answer to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<String>,
    /// `summary` (default) or `full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<SchemaDetail>,
}

wire_enum! {
    /// How much schema to return.
    pub enum SchemaDetail {
        /// Names, types and flags.
        Summary = "summary",
        /// Plus descriptions, enums and synonyms.
        Full = "full",
    }
}

/// A Domain's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Schema {
    /// The Domain.
    pub domain: String,
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// The Revision read.
    #[schemars(with = "Uncut<String>")]
    pub revision: String,
    /// The Kinds.
    pub kinds: Vec<KindDef>,
    /// The Relations.
    pub relations: Vec<RelationDef>,
    /// The Traits.
    #[serde(default)]
    pub traits: Vec<TraitDef>,
    /// Custom Operations (built-in ones are listed per Kind).
    #[serde(default)]
    pub operations: Vec<OperationDef>,
    /// Read presets.
    #[serde(default)]
    pub lenses: Vec<LensDef>,
    /// The Sources that feed the Domain.
    #[serde(default)]
    pub sources: Vec<SourceInfo>,
    /// How the Domain can be searched.
    pub search: SearchInfo,
}

/// A Kind (a type of Record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KindDef {
    /// Api name (`Supplier`).
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// The key attribute.
    pub key: String,
    /// The title attribute.
    pub title: String,
    /// What the Kind is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Records of this Kind on the branch read.
    #[serde(default)]
    pub record_count: u64,
    /// The attributes.
    pub attributes: Vec<AttributeDef>,
    /// The Traits it implements.
    #[serde(default)]
    pub traits: Vec<String>,
    /// Built-in Operations (`create_supplier`, `update_supplier`, ...).
    #[serde(default)]
    pub operations: Vec<String>,
    /// Synonyms of the Kind's name (full detail).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
    /// Whether the Kind has an embedding template (vector search).
    #[serde(default)]
    pub embedded: bool,
}

/// An attribute of a Kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttributeDef {
    /// Api name.
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// `string`, `integer`, `number`, `boolean`, `date`, `datetime`, `enum`, `list<string>`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// Required on every Record.
    #[serde(default)]
    pub required: bool,
    /// Masked for roles without its grant.
    #[serde(default)]
    pub sensitive: bool,
    /// What it means (full detail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Allowed values of an enum (full detail).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Synonyms of the attribute's name (full detail).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synonyms: Vec<String>,
}

/// A Relation between two Kinds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RelationDef {
    /// Api name (`supplies`).
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// Source Kind.
    #[schemars(with = "Uncut<String>")]
    pub from: String,
    /// Target Kind.
    #[schemars(with = "Uncut<String>")]
    pub to: String,
    /// `one` or `many` targets per source.
    pub cardinality: String,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A Trait: a set of attributes several Kinds implement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraitDef {
    /// Api name.
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// The Kinds implementing it.
    pub kinds: Vec<String>,
    /// The attributes it requires.
    #[serde(default)]
    pub attributes: Vec<String>,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A custom Operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OperationDef {
    /// Api name (`flag_supplier_risk`).
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The Kind it acts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub kind: Option<String>,
    /// Its parameters.
    pub parameters: Vec<ParameterDef>,
    /// `none` (commits directly) or `review` (needs a Proposal).
    pub review_policy: Open<ReviewPolicy>,
}

wire_enum! {
    /// Whether an Operation needs review.
    pub enum ReviewPolicy {
        /// Commits directly (unless the branch is protected).
        None = "none",
        /// Needs a Proposal that a reviewer approves.
        Review = "review",
    }
}

/// A parameter of an Operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParameterDef {
    /// Name.
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// Type, as for attributes.
    #[serde(rename = "type")]
    pub type_name: String,
    /// Required.
    #[serde(default)]
    pub required: bool,
    /// What it means.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A lens: a read preset of the schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LensDef {
    /// Api name.
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Kinds it reads (Traits already resolved to their Kinds).
    pub kinds: Vec<String>,
    /// Traits it names.
    #[serde(default)]
    pub traits: Vec<String>,
    /// Relations it follows.
    #[serde(default)]
    pub relations: Vec<String>,
    /// Default depth for context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Default token budget for context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u32>,
}

/// A Source feeding the Domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SourceInfo {
    /// Name.
    #[schemars(with = "Uncut<String>")]
    pub name: String,
    /// When it was last synced (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synced_at: Option<String>,
    /// The date after which it counts as stale (RFC 3339 date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_until: Option<String>,
    /// Whether it is stale now.
    #[serde(default)]
    pub stale: bool,
}

/// Search modes and the embedding model of a Domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchInfo {
    /// `lexical`, plus `vector` and `hybrid` when a Kind is embedded.
    pub modes: Vec<String>,
    /// The model to embed queries with, when any Kind has an embedding template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingInfo>,
}

/// The embedding model of a Domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmbeddingInfo {
    /// Model name.
    pub model: String,
    /// Vector dimension.
    pub dimension: u32,
}
