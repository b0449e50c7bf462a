//! The output schemas: the JSON Schema of each tool's `json` format (its
//! `structuredContent`), as documented in `docs/tools.md`. Objects stay open
//! (new fields may be added); the listed fields are stable. Every answer may
//! carry `cuts` when the output caps cut it.

use serde_json::{Map, Value, json};

use crate::render::caps::cuts_schema;

/// An object with these properties, these required.
fn obj(properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut props = Map::new();
    for (k, v) in properties {
        props.insert(k.to_string(), v);
    }
    json!({"type": "object", "properties": props, "required": required})
}

/// A top-level answer: an object with `cuts` allowed.
fn answer(mut properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    properties.push(("cuts", cuts_schema()));
    obj(properties, required)
}

fn string() -> Value {
    json!({"type": "string"})
}

fn nullable_string() -> Value {
    json!({"type": ["string", "null"]})
}

fn integer() -> Value {
    json!({"type": "integer", "minimum": 0})
}

fn boolean() -> Value {
    json!({"type": "boolean"})
}

fn number() -> Value {
    json!({"type": "number"})
}

fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

fn strings() -> Value {
    array(string())
}

/// Attribute values by name (any JSON value).
fn values() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

fn record_ref() -> Value {
    json!({"type": "string", "description": "Kind/key"})
}

fn link() -> Value {
    obj(
        vec![
            ("relation", string()),
            ("from", record_ref()),
            ("to", record_ref()),
        ],
        &["relation", "from", "to"],
    )
}

fn header() -> Value {
    obj(vec![("ref", record_ref()), ("title", string())], &["ref"])
}

fn attribute_change() -> Value {
    obj(
        vec![
            ("attribute", string()),
            ("before", json!({})),
            ("after", json!({})),
        ],
        &["attribute"],
    )
}

fn origin_type() -> Value {
    json!({"type": "string", "enum": ["import", "operation", "extraction", "proposal", "source"]})
}

fn proposal_ref() -> Value {
    obj(
        vec![
            ("id", string()),
            (
                "status",
                json!({"type": "string", "enum": ["proposed", "merged", "conflicts", "closed"]}),
            ),
            ("title", string()),
            ("branch", string()),
        ],
        &["id", "status"],
    )
}

fn origin() -> Value {
    obj(
        vec![
            ("origin_type", origin_type()),
            ("actor", string()),
            ("time", string()),
            ("revision", string()),
            ("operation", string()),
            ("source", string()),
            (
                "evidence",
                obj(
                    vec![
                        ("document_id", string()),
                        ("start", integer()),
                        ("end", integer()),
                        ("model", string()),
                        ("quote", string()),
                    ],
                    &["document_id", "start", "end", "model"],
                ),
            ),
            ("proposal", proposal_ref()),
        ],
        &["origin_type", "actor", "time", "revision"],
    )
}

fn attribute_lineage() -> Value {
    obj(
        vec![
            ("attribute", string()),
            ("value", json!({})),
            ("origin", origin()),
        ],
        &["attribute", "value", "origin"],
    )
}

fn history_entry() -> Value {
    obj(
        vec![
            ("revision", string()),
            ("time", string()),
            ("author", string()),
            ("origin_type", origin_type()),
            ("operation", string()),
            ("message", string()),
            (
                "change",
                json!({"type": "string", "enum": ["created", "updated", "deleted"]}),
            ),
            ("changes", array(attribute_change())),
        ],
        &[
            "revision",
            "time",
            "author",
            "origin_type",
            "change",
            "changes",
        ],
    )
}

fn coverage() -> Value {
    array(obj(
        vec![
            (
                "signal",
                json!({"type": "string", "enum": ["missing_values", "stale_source", "unknown_phrase"]}),
            ),
            ("message", string()),
            ("kind", string()),
            ("attribute", string()),
            ("missing", integer()),
            ("total", integer()),
            ("source", string()),
            ("phrase", string()),
        ],
        &["signal", "message"],
    ))
}

fn record_view() -> Value {
    obj(
        vec![
            ("ref", record_ref()),
            ("title", string()),
            ("branch", string()),
            ("revision", string()),
            ("values", values()),
            ("masked", strings()),
            (
                "link_counts",
                json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            ),
            ("links", array(link())),
        ],
        &["ref", "branch", "revision", "values"],
    )
}

fn attribute_def() -> Value {
    obj(
        vec![
            ("name", string()),
            ("type", string()),
            ("required", boolean()),
            ("sensitive", boolean()),
            ("description", string()),
            ("values", strings()),
            ("synonyms", strings()),
        ],
        &["name", "type"],
    )
}

fn kind_def() -> Value {
    obj(
        vec![
            ("name", string()),
            ("key", string()),
            ("title", string()),
            ("description", string()),
            ("record_count", integer()),
            ("attributes", array(attribute_def())),
            ("traits", strings()),
            ("operations", strings()),
            ("synonyms", strings()),
            ("embedded", boolean()),
        ],
        &["name", "key", "title", "attributes"],
    )
}

fn source_info() -> Value {
    obj(
        vec![
            ("name", string()),
            ("synced_at", string()),
            ("fresh_until", string()),
            ("stale", boolean()),
        ],
        &["name"],
    )
}

/// `lorebase_context`: Keeper's context pack.
pub(crate) fn context() -> Value {
    answer(
        vec![
            ("branch", string()),
            ("revision", string()),
            ("question", string()),
            ("seeds", array(record_view())),
            ("neighbors", array(header())),
            ("links", array(link())),
            ("schema", array(kind_def())),
            (
                "recent_changes",
                array(
                    json!({"allOf": [history_entry(), obj(vec![("ref", record_ref())], &["ref"])]}),
                ),
            ),
            (
                "lineage",
                array(
                    json!({"allOf": [attribute_lineage(), obj(vec![("ref", record_ref())], &["ref"])]}),
                ),
            ),
            (
                "trimmed",
                array(obj(
                    vec![("section", string()), ("dropped", integer())],
                    &["section", "dropped"],
                )),
            ),
            ("token_budget", integer()),
            ("token_estimate", integer()),
        ],
        &[
            "branch",
            "revision",
            "seeds",
            "neighbors",
            "links",
            "schema",
            "recent_changes",
            "lineage",
            "trimmed",
            "token_budget",
            "token_estimate",
        ],
    )
}

/// `lorebase_schema`: the Domain's schema.
pub(crate) fn schema() -> Value {
    answer(
        vec![
            ("domain", string()),
            ("branch", string()),
            ("revision", string()),
            ("kinds", array(kind_def())),
            (
                "relations",
                array(obj(
                    vec![
                        ("name", string()),
                        ("from", string()),
                        ("to", string()),
                        ("cardinality", string()),
                        ("description", string()),
                    ],
                    &["name", "from", "to", "cardinality"],
                )),
            ),
            (
                "traits",
                array(obj(
                    vec![
                        ("name", string()),
                        ("kinds", strings()),
                        ("attributes", strings()),
                        ("description", string()),
                    ],
                    &["name", "kinds"],
                )),
            ),
            (
                "operations",
                array(obj(
                    vec![
                        ("name", string()),
                        ("description", string()),
                        ("kind", string()),
                        (
                            "parameters",
                            array(obj(
                                vec![
                                    ("name", string()),
                                    ("type", string()),
                                    ("required", boolean()),
                                    ("description", string()),
                                ],
                                &["name", "type"],
                            )),
                        ),
                        (
                            "review_policy",
                            json!({"type": "string", "enum": ["none", "review"]}),
                        ),
                    ],
                    &["name", "parameters", "review_policy"],
                )),
            ),
            (
                "lenses",
                array(obj(
                    vec![
                        ("name", string()),
                        ("description", string()),
                        ("kinds", strings()),
                        ("traits", strings()),
                        ("relations", strings()),
                        ("depth", integer()),
                        ("token_budget", integer()),
                    ],
                    &["name", "kinds"],
                )),
            ),
            ("sources", array(source_info())),
            (
                "search",
                obj(
                    vec![
                        ("modes", strings()),
                        (
                            "embedding",
                            obj(
                                vec![("model", string()), ("dimension", integer())],
                                &["model", "dimension"],
                            ),
                        ),
                    ],
                    &["modes"],
                ),
            ),
        ],
        &[
            "domain",
            "branch",
            "revision",
            "kinds",
            "relations",
            "search",
        ],
    )
}

/// `lorebase_get`: one Record.
pub(crate) fn get() -> Value {
    let mut v = record_view();
    v["properties"]["cuts"] = cuts_schema();
    v
}

/// `lorebase_resolve`: candidates, unmatched words, skipped levels, coverage.
pub(crate) fn resolve() -> Value {
    let level = json!({"type": "string", "enum": ["exact", "synonym", "trigram", "embedding"]});
    answer(
        vec![
            ("revision", string()),
            (
                "candidates",
                array(obj(
                    vec![
                        (
                            "type",
                            json!({"type": "string", "enum": ["kind", "attribute", "value"]}),
                        ),
                        ("kind", string()),
                        ("attribute", string()),
                        ("attribute_type", string()),
                        ("values", json!({"type": "array"})),
                        ("level", level.clone()),
                        ("score", number()),
                        ("matched", strings()),
                        ("where", json!({"type": "object"})),
                        ("record_count", integer()),
                    ],
                    &["type", "kind", "level", "score", "matched"],
                )),
            ),
            ("unmatched", strings()),
            (
                "skipped_levels",
                array(obj(
                    vec![("level", level), ("reason", string())],
                    &["level", "reason"],
                )),
            ),
            ("coverage", coverage()),
        ],
        &[
            "revision",
            "candidates",
            "unmatched",
            "skipped_levels",
            "coverage",
        ],
    )
}

/// `lorebase_query`: rows, aggregate, cursor, coverage.
pub(crate) fn query() -> Value {
    let neighbor = obj(
        vec![
            ("ref", record_ref()),
            ("title", string()),
            ("values", values()),
        ],
        &["ref"],
    );
    answer(
        vec![
            ("revision", string()),
            ("total", integer()),
            (
                "rows",
                array(obj(
                    vec![
                        ("ref", record_ref()),
                        ("title", string()),
                        ("values", values()),
                        (
                            "included",
                            json!({"type": "object", "additionalProperties": array(neighbor)}),
                        ),
                    ],
                    &["ref", "values"],
                )),
            ),
            (
                "aggregate",
                obj(
                    vec![
                        ("kind", string()),
                        ("group_by", string()),
                        (
                            "groups",
                            array(obj(
                                vec![("value", json!({})), ("count", integer())],
                                &["value", "count"],
                            )),
                        ),
                    ],
                    &["kind", "group_by", "groups"],
                ),
            ),
            ("next_cursor", string()),
            ("coverage", coverage()),
        ],
        &["revision", "total", "rows", "coverage"],
    )
}

/// `lorebase_search`: ranked hits.
pub(crate) fn search() -> Value {
    answer(
        vec![
            ("revision", string()),
            (
                "mode",
                json!({"type": "string", "enum": ["lexical", "vector", "hybrid"]}),
            ),
            (
                "hits",
                array(obj(
                    vec![
                        ("ref", record_ref()),
                        ("title", string()),
                        ("snippet", string()),
                        ("score", number()),
                    ],
                    &["ref", "score"],
                )),
            ),
            ("truncated_candidates", boolean()),
            ("truncated", boolean()),
        ],
        &[
            "revision",
            "mode",
            "hits",
            "truncated_candidates",
            "truncated",
        ],
    )
}

/// `lorebase_neighborhood`: nodes and edges.
pub(crate) fn neighborhood() -> Value {
    answer(
        vec![
            ("revision", string()),
            (
                "nodes",
                array(obj(
                    vec![
                        ("ref", record_ref()),
                        ("title", string()),
                        ("depth", integer()),
                        ("values", values()),
                    ],
                    &["ref", "depth"],
                )),
            ),
            ("edges", array(link())),
            ("truncated", boolean()),
        ],
        &["revision", "nodes", "edges", "truncated"],
    )
}

/// `lorebase_explain`: creation, attributes, Links, Proposals.
pub(crate) fn explain() -> Value {
    answer(
        vec![
            ("ref", record_ref()),
            ("title", string()),
            ("branch", string()),
            ("revision", string()),
            ("created", origin()),
            ("attributes", array(attribute_lineage())),
            ("links", array(link())),
            ("proposals", array(proposal_ref())),
        ],
        &["ref", "branch", "revision", "created", "attributes"],
    )
}

/// `lorebase_history`: changes newest first.
pub(crate) fn history() -> Value {
    answer(
        vec![
            ("ref", record_ref()),
            ("branch", string()),
            ("revision", string()),
            ("total", integer()),
            ("entries", array(history_entry())),
            ("next_cursor", string()),
        ],
        &["ref", "branch", "revision", "total", "entries"],
    )
}

/// `lorebase_lineage`: per value, its origin.
pub(crate) fn lineage() -> Value {
    answer(
        vec![
            ("ref", record_ref()),
            ("branch", string()),
            ("revision", string()),
            ("changes", integer()),
            ("created", origin()),
            ("attributes", array(attribute_lineage())),
            ("sources", array(source_info())),
            ("proposals", array(proposal_ref())),
        ],
        &[
            "ref",
            "branch",
            "revision",
            "changes",
            "created",
            "attributes",
            "sources",
            "proposals",
        ],
    )
}

fn counts() -> Vec<(&'static str, Value)> {
    vec![
        ("created", integer()),
        ("updated", integer()),
        ("deleted", integer()),
    ]
}

/// `lorebase_changes`: Revisions back to `since`, and how the paging ended.
pub(crate) fn changes() -> Value {
    answer(
        vec![
            ("branch", string()),
            ("head", string()),
            ("since", string()),
            ("reached_since", boolean()),
            ("stopped_by_max_pages", boolean()),
            ("pages", integer()),
            (
                "entries",
                array(obj(
                    vec![
                        ("revision", string()),
                        ("parent", string()),
                        ("time", string()),
                        ("author", string()),
                        ("origin_type", origin_type()),
                        ("operation", string()),
                        ("message", string()),
                        ("counts", obj(counts(), &["created", "updated", "deleted"])),
                    ],
                    &["revision", "time", "author", "origin_type", "counts"],
                )),
            ),
            ("next_cursor", string()),
        ],
        &[
            "branch",
            "head",
            "reached_since",
            "stopped_by_max_pages",
            "pages",
            "entries",
        ],
    )
}

/// `lorebase_diff`: counts and elements.
pub(crate) fn diff() -> Value {
    let mut count = counts();
    count.extend([
        ("name", string()),
        (
            "scope",
            json!({"type": "string", "enum": ["kind", "relation"]}),
        ),
    ]);
    answer(
        vec![
            ("from", string()),
            ("to", string()),
            (
                "counts",
                array(obj(
                    count,
                    &["name", "scope", "created", "updated", "deleted"],
                )),
            ),
            (
                "elements",
                array(obj(
                    vec![
                        ("op", json!({"type": "string", "enum": ["+", "~", "-"]})),
                        ("ref", record_ref()),
                        ("link", link()),
                        ("changes", array(attribute_change())),
                    ],
                    &["op"],
                )),
            ),
            ("next_cursor", string()),
        ],
        &["from", "to", "counts", "elements"],
    )
}

/// `lorebase_execute`: the run, the Proposal and the next steps.
pub(crate) fn execute() -> Value {
    answer(
        vec![
            ("operation", string()),
            (
                "status",
                json!({"type": "string", "enum": ["dry_run", "committed", "proposed", "rejected"]}),
            ),
            ("branch", string()),
            ("head", string()),
            ("revision", nullable_string()),
            (
                "edits",
                array(obj(
                    vec![
                        (
                            "change",
                            json!({"type": "string", "enum": ["created", "updated", "deleted"]}),
                        ),
                        ("ref", record_ref()),
                        ("changes", array(attribute_change())),
                    ],
                    &["change", "ref", "changes"],
                )),
            ),
            (
                "violations",
                array(obj(
                    vec![("path", string()), ("message", string())],
                    &["path", "message"],
                )),
            ),
            ("warnings", strings()),
            (
                "proposal",
                obj(
                    vec![
                        ("id", string()),
                        (
                            "status",
                            json!({"type": "string", "enum": ["proposed", "merged", "conflicts", "closed"]}),
                        ),
                        ("branch", string()),
                        ("target", string()),
                        ("title", string()),
                    ],
                    &["id", "status", "branch", "target"],
                ),
            ),
            ("next", strings()),
            ("replayed", boolean()),
        ],
        &[
            "operation",
            "status",
            "branch",
            "head",
            "edits",
            "violations",
            "warnings",
            "next",
            "replayed",
        ],
    )
}

/// `lorebase_branches`: branches with flags.
pub(crate) fn branches() -> Value {
    answer(
        vec![
            (
                "branches",
                array(obj(
                    vec![
                        ("name", string()),
                        ("head", string()),
                        ("default", boolean()),
                        ("protected", boolean()),
                        ("owner", string()),
                    ],
                    &["name", "head", "default", "protected"],
                )),
            ),
            ("next_cursor", string()),
        ],
        &["branches"],
    )
}
