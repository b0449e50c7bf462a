//! The sample Domains: readable YAML files in `sandbox/data/` (the schema, the
//! named sample Records, a description of the generated bulk, and the sample
//! history), compiled into a [`DomainDef`] and its first Revisions.

mod generate;

use std::collections::BTreeMap;

use keeper_wire::{
    AttributeDef, EmbeddingInfo, KindDef, OperationDef, ParameterDef, RelationDef, ReviewPolicy,
    TraitDef,
};
use serde::Deserialize;
use serde_json::Value;

pub(crate) use generate::{GeneratorSpec, fnv1a};

/// The sample Domain files, built into the binary.
pub(crate) const SAMPLE_FILES: [(&str, &str); 2] = [
    ("supply", include_str!("../../data/supply.yaml")),
    ("retail", include_str!("../../data/retail.yaml")),
];

/// One Domain file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DomainFile {
    pub name: String,
    #[serde(default = "main_branch")]
    pub default_branch: String,
    #[serde(default)]
    pub protected_branches: Vec<String>,
    #[serde(default)]
    pub policy: Policy,
    #[serde(default)]
    pub embedding: Option<EmbeddingInfo>,
    pub kinds: Vec<KindSpec>,
    #[serde(default)]
    pub relations: Vec<RelationDef>,
    #[serde(default)]
    pub traits: Vec<TraitDef>,
    #[serde(default)]
    pub operations: Vec<OperationSpec>,
    #[serde(default)]
    pub lenses: Vec<LensSpec>,
    #[serde(default)]
    pub sources: Vec<SourceSpec>,
    #[serde(default)]
    pub records: Vec<RecordSpec>,
    #[serde(default)]
    pub links: Vec<(String, String, String)>,
    #[serde(default)]
    pub generate: Vec<GeneratorSpec>,
    pub revisions: Vec<RevisionSpec>,
    #[serde(default)]
    pub tags: BTreeMap<String, usize>,
    #[serde(default)]
    pub branches: Vec<BranchSpec>,
}

fn main_branch() -> String {
    "main".into()
}

/// Who may do what in a Domain.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Policy {
    /// Roles for which `auto_merge` merges a Proposal at once.
    #[serde(default)]
    pub auto_merge_roles: Vec<String>,
    /// Open task branches per agent.
    #[serde(default = "branch_limit")]
    pub agent_branch_limit: usize,
}

fn branch_limit() -> usize {
    3
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            auto_merge_roles: Vec::new(),
            agent_branch_limit: branch_limit(),
        }
    }
}

/// A Kind as written in a Domain file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KindSpec {
    pub name: String,
    pub key: String,
    pub title: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub synonyms: Vec<String>,
    #[serde(default)]
    pub traits: Vec<String>,
    /// The Sources feeding it (for stale-Source coverage).
    #[serde(default)]
    pub sources: Vec<String>,
    /// `{attr}` placeholders; the Kind is embedded when set.
    #[serde(default)]
    pub embedding_template: Option<String>,
    pub attributes: Vec<AttributeSpec>,
}

/// An attribute as written in a Domain file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AttributeSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub sensitive: bool,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub values: Vec<String>,
    #[serde(default)]
    pub synonyms: Vec<String>,
    /// Words that stand for a stored value (`Calzature: [shoes]`).
    #[serde(default)]
    pub value_synonyms: BTreeMap<String, Vec<String>>,
    /// Bounds of a number (data rules checked by Operations).
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

/// A custom Operation: which Record it edits and how its parameters map to
/// attributes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OperationSpec {
    pub name: String,
    pub kind: String,
    #[serde(default)]
    pub description: Option<String>,
    pub review_policy: ReviewPolicy,
    pub parameters: Vec<ParameterDef>,
    /// The parameter holding the key of the Record edited.
    pub key_parameter: String,
    /// Values set on every run.
    #[serde(default)]
    pub set: BTreeMap<String, Value>,
    /// Parameter -> attribute it is written to.
    #[serde(default)]
    pub assign: BTreeMap<String, String>,
}

/// A lens as written in a Domain file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LensSpec {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub traits: Vec<String>,
    #[serde(default)]
    pub relations: Vec<String>,
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub token_budget: Option<u32>,
}

/// A Source as written in a Domain file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceSpec {
    pub name: String,
    #[serde(default)]
    pub synced_at: Option<String>,
    /// `YYYY-MM-DD`; stale after it.
    #[serde(default)]
    pub fresh_until: Option<String>,
}

/// A named sample Record.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordSpec {
    #[serde(rename = "ref")]
    pub record: String,
    pub values: BTreeMap<String, Value>,
    /// The Source its values came from.
    #[serde(default)]
    pub source: Option<String>,
}

/// One Revision of the sample history.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RevisionSpec {
    pub time: String,
    pub author: String,
    pub origin_type: keeper_wire::OriginType,
    #[serde(default)]
    pub operation: Option<String>,
    pub message: String,
    #[serde(default)]
    pub source: Option<String>,
    /// Creates every Record and Link of the file (the import).
    #[serde(default)]
    pub load: bool,
    #[serde(default)]
    pub updates: Vec<UpdateSpec>,
    #[serde(default)]
    pub proposal: Option<ProposalSpec>,
}

/// Values a sample Revision changes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateSpec {
    #[serde(rename = "ref")]
    pub record: String,
    pub values: BTreeMap<String, Value>,
    /// Extraction evidence per attribute.
    #[serde(default)]
    pub evidence: BTreeMap<String, keeper_wire::Evidence>,
}

/// The merged Proposal behind a sample Revision.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposalSpec {
    pub id: String,
    pub title: String,
    pub branch: String,
}

/// A branch besides the default one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BranchSpec {
    pub name: String,
    /// Index of the Revision it starts at.
    pub at: usize,
    #[serde(default)]
    pub protected: bool,
}

/// A Domain's definitions, compiled.
#[derive(Debug, Clone)]
pub(crate) struct DomainDef {
    pub name: String,
    pub default_branch: String,
    pub policy: Policy,
    pub embedding: Option<EmbeddingInfo>,
    pub kinds: Vec<KindSpec>,
    pub relations: Vec<RelationDef>,
    pub traits: Vec<TraitDef>,
    pub operations: Vec<OperationSpec>,
    pub lenses: Vec<LensSpec>,
    pub sources: Vec<SourceSpec>,
}

impl DomainDef {
    pub(crate) fn kind(&self, name: &str) -> Option<&KindSpec> {
        self.kinds.iter().find(|k| k.name == name)
    }

    pub(crate) fn relation(&self, name: &str) -> Option<&RelationDef> {
        self.relations.iter().find(|r| r.name == name)
    }

    pub(crate) fn custom_operation(&self, name: &str) -> Option<&OperationSpec> {
        self.operations.iter().find(|o| o.name == name)
    }

    /// Per Kind, its attributes in schema order.
    pub(crate) fn attribute_order(&self) -> BTreeMap<String, Vec<String>> {
        self.kinds
            .iter()
            .map(|k| {
                (
                    k.name.clone(),
                    k.attributes.iter().map(|a| a.name.clone()).collect(),
                )
            })
            .collect()
    }

    pub(crate) fn lens(&self, name: &str) -> Option<&LensSpec> {
        self.lenses.iter().find(|l| l.name == name)
    }

    pub(crate) fn trait_def(&self, name: &str) -> Option<&TraitDef> {
        self.traits.iter().find(|t| t.name == name)
    }

    /// The Kinds a lens reads (its Kinds plus those of its Traits).
    pub(crate) fn lens_kinds(&self, lens: &LensSpec) -> Vec<String> {
        let mut kinds = lens.kinds.clone();
        for t in &lens.traits {
            if let Some(def) = self.trait_def(t) {
                kinds.extend(def.kinds.iter().cloned());
            }
        }
        kinds.sort();
        kinds.dedup();
        kinds
    }
}

impl KindSpec {
    pub(crate) fn attribute(&self, name: &str) -> Option<&AttributeSpec> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// `PurchaseOrder` -> `purchase_order` (built-in Operation names).
    pub(crate) fn snake_name(&self) -> String {
        let mut out = String::new();
        for (i, c) in self.name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// The built-in Operations: create, update and delete.
    pub(crate) fn builtin_operations(&self) -> Vec<String> {
        let s = self.snake_name();
        vec![
            format!("create_{s}"),
            format!("update_{s}"),
            format!("delete_{s}"),
        ]
    }

    /// The schema entry; `full` adds descriptions, enum values and synonyms.
    pub(crate) fn to_def(&self, full: bool, record_count: u64) -> KindDef {
        KindDef {
            name: self.name.clone(),
            key: self.key.clone(),
            title: self.title.clone(),
            description: if full { self.description.clone() } else { None },
            record_count,
            attributes: self
                .attributes
                .iter()
                .map(|a| AttributeDef {
                    name: a.name.clone(),
                    type_name: a.type_name.clone(),
                    required: a.required,
                    sensitive: a.sensitive,
                    description: if full { a.description.clone() } else { None },
                    values: if full { a.values.clone() } else { Vec::new() },
                    synonyms: if full { a.synonyms.clone() } else { Vec::new() },
                })
                .collect(),
            traits: self.traits.clone(),
            operations: self.builtin_operations(),
            synonyms: if full {
                self.synonyms.clone()
            } else {
                Vec::new()
            },
            embedded: self.embedding_template.is_some(),
        }
    }
}

impl OperationSpec {
    pub(crate) fn to_def(&self) -> OperationDef {
        OperationDef {
            name: self.name.clone(),
            description: self.description.clone(),
            kind: Some(self.kind.clone()),
            parameters: self.parameters.clone(),
            review_policy: self.review_policy.into(),
        }
    }
}

impl AttributeSpec {
    /// Whether a value fits an attribute's type (`null` never does).
    pub(crate) fn type_error(&self, v: &Value) -> Option<String> {
        let ok = match self.type_name.as_str() {
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "date" => v
                .as_str()
                .is_some_and(|s| s.len() == 10 && crate::clock::parse_date(s).is_some()),
            "datetime" => v
                .as_str()
                .is_some_and(|s| s.len() >= 20 && crate::clock::parse_date(s).is_some()),
            "enum" => v
                .as_str()
                .is_some_and(|s| self.values.iter().any(|x| x == s)),
            "list<string>" => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            _ => false,
        };
        if !ok {
            return Some(match self.type_name.as_str() {
                "enum" => format!("must be one of {}", self.values.join(", ")),
                t => format!("must be a {t}"),
            });
        }
        if let Some(x) = v.as_f64()
            && (self.min.is_some_and(|m| x < m) || self.max.is_some_and(|m| x > m))
        {
            return Some(format!(
                "must be between {} and {}",
                self.min.map_or("-inf".into(), |m| m.to_string()),
                self.max.map_or("inf".into(), |m| m.to_string())
            ));
        }
        None
    }
}
