//! The table of the 14 Lorebase tools: name, title, description for a model,
//! input schema, output schema and whether it writes. The handlers are in
//! [`super::handlers`]; the output schemas in [`super::outputs`].

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::outputs;
use super::schemas::*;

/// A tool's own arguments (name, schema) and the names of the required ones.
pub(crate) type InputSpec = (Vec<(&'static str, Value)>, &'static [&'static str]);

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolSpec {
    /// Unique name.
    pub name: &'static str,
    /// A human title.
    pub title: &'static str,
    /// What it is for, when to use it instead of another tool, one example.
    pub description: &'static str,
    /// Whether it takes `branch`.
    pub branch: bool,
    /// Whether it takes `at`.
    pub at: bool,
    /// Only `lorebase_execute` writes.
    pub writes: bool,
    /// The tool's own arguments (the shared ones are appended) and the required ones.
    pub input: fn() -> InputSpec,
    /// The JSON Schema of its `json` format.
    pub output: fn() -> Value,
}

impl ToolSpec {
    /// The full input schema: its own arguments, then the shared ones.
    pub fn input_schema(&self) -> Value {
        let (mut props, required) = (self.input)();
        props.extend(common(self.branch, self.at));
        object(props, required)
    }
}

/// The argument names each tool takes, in its input schema's order. Every
/// call checks its arguments against them, so they are built once (on first
/// use) and kept by the toolbox, not rebuilt from the schema per call; owned
/// by the toolbox rather than a static, so freeing a toolbox frees them.
#[derive(Debug, Default)]
pub(crate) struct ArgumentNames(OnceLock<HashMap<&'static str, Vec<String>>>);

impl ArgumentNames {
    /// The names `spec` takes.
    pub fn of(&self, spec: &ToolSpec) -> &[String] {
        self.0
            .get_or_init(|| {
                TOOLS
                    .iter()
                    .map(|t| {
                        let schema = t.input_schema();
                        let names = schema["properties"]
                            .as_object()
                            .map(|props| props.keys().cloned().collect())
                            .unwrap_or_default();
                        (t.name, names)
                    })
                    .collect()
            })
            .get(spec.name)
            .map_or(&[], Vec::as_slice)
    }
}

/// The tools, in the order models see them.
pub(crate) const TOOLS: [ToolSpec; 14] = [
    ToolSpec {
        name: "lorebase_context",
        title: "Context pack for Records or a question",
        description: "Start here. Returns Keeper's context pack: the seed Records with their values, nearby Records, the Links between them, the schema of the Kinds present, recent changes and lineage, trimmed to a token budget (markdown in text format). Give `records` when you know the Records (refs Kind/key); give `question` to find the seeds by a lexical search first. Use lorebase_get for one Record's values only, lorebase_neighborhood for a wider graph walk. Example: {\"records\": [\"Supplier/S-1001\"], \"depth\": 1, \"token_budget\": 2000}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    (
                        "records",
                        record_refs("Seed Records (Kind/key). Give this or `question`.", 20),
                    ),
                    (
                        "question",
                        string(
                            "A short question; its search hits become the seeds. Give this or `records`.",
                            1000,
                        ),
                    ),
                    (
                        "depth",
                        int(
                            "Hops from the seeds (default: the lens's or Keeper's).",
                            0,
                            3,
                        ),
                    ),
                    (
                        "relations",
                        names("Relations to follow (default: all, or the lens's).", 50),
                    ),
                    (
                        "traits",
                        names(
                            "Limit neighbors to Kinds implementing these Traits (api names).",
                            20,
                        ),
                    ),
                    (
                        "lens",
                        string(
                            "A lens (read preset) api name: gives Relations, depth and budget unless passed.",
                            128,
                        ),
                    ),
                    (
                        "token_budget",
                        int("Trim the pack to about this many tokens.", 100, 100_000),
                    ),
                ],
                &[],
            )
        },
        output: outputs::context,
    },
    ToolSpec {
        name: "lorebase_schema",
        title: "Schema of the Domain",
        description: "Lists the Domain's Kinds with attribute types (`!` marks required), key and title attributes, built-in Operations; Relations; custom Operations with parameters and review policy; Traits; LENSES; Sources; and a final SEARCH line with the search modes and the embedding model and dimension for query_vector. Use it to learn names before writing a lorebase_query, or when lorebase_resolve finds nothing. Example: {\"kinds\": [\"Supplier\"], \"detail\": \"full\"}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("kinds", names("Limit to these Kinds (default: all).", 100)),
                    (
                        "detail",
                        json!({"type": "string", "enum": ["summary", "full"], "default": "summary",
                                      "description": "`summary`: names, types and flags. `full`: plus descriptions, enum values and synonyms."}),
                    ),
                ],
                &[],
            )
        },
        output: outputs::schema,
    },
    ToolSpec {
        name: "lorebase_get",
        title: "One Record",
        description: "Reads one Record by ref (Kind/key): its values (masked ones show ***) and its Link counts per Relation; `links: true` lists the Links too. Use it when you know the ref; use lorebase_search or lorebase_query to find refs, lorebase_explain to see where values came from. Example: {\"ref\": \"Supplier/S-1001\", \"links\": true}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    (
                        "ref",
                        record_ref("The Record, Kind/key (for example Supplier/S-1001)."),
                    ),
                    (
                        "links",
                        boolean("Also list the Links (not only their counts).", false),
                    ),
                ],
                &["ref"],
            )
        },
        output: outputs::get,
    },
    ToolSpec {
        name: "lorebase_resolve",
        title: "Words to Kinds, Attributes and values",
        description: "Grounds a question's own words in the Domain: ranked candidates the words may stand for (Kinds, Attributes with type, stored values with a ready-to-use `where` predicate and Record count), each with its level (exact, synonym, trigram, embedding) and the words matched; then unmatched words, skipped levels and coverage: lines. It never runs a query: copy the `where` fragments into lorebase_query. The embedding level needs `query_vector` (Herald never embeds). Example: {\"text\": \"red shoes per brand\", \"kinds\": [\"Product\"]}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("text", string("The words to resolve.", 2000)),
                    ("kinds", names("Limit candidates to these Kinds.", 50)),
                    (
                        "levels",
                        json!({"type": "array", "maxItems": 4, "uniqueItems": true,
                                      "items": {"type": "string", "enum": ["exact", "synonym", "trigram", "embedding"]},
                                      "description": "Levels to try (default: all that apply)."}),
                    ),
                    (
                        "query_vector",
                        query_vector(
                            "The text embedded with the Domain's model (see the SEARCH line of lorebase_schema), for the embedding level.",
                        ),
                    ),
                    ("limit", int("Most candidates.", 1, 50)),
                ],
                &["text"],
            )
        },
        output: outputs::resolve,
    },
    ToolSpec {
        name: "lorebase_query",
        title: "Filtered lists and counts",
        description: "Runs a query of the DSL: Records of one Kind filtered by `where`, with `select`, `include` (neighbors per Relation), `order_by`, `limit`, and `aggregate: {\"group_by\": attr}` to count Records per value. Text rows are `ref \"title\" | attr=value`, aggregates `count <Kind> <value>: <n>`, then `next_cursor:` and `coverage:` lines; read coverage before answering \"none\". Use lorebase_resolve first to get the `where` fragments for a question's words. Example: {\"query\": {\"kind\": \"Product\", \"where\": {\"and\": [{\"attr\": \"color\", \"op\": \"in\", \"value\": [\"Rosso\", \"red\"]}, {\"attr\": \"category\", \"op\": \"eq\", \"value\": \"Calzature\"}]}, \"aggregate\": {\"group_by\": \"brand\"}}}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    (
                        "query",
                        json!({
                            "type": "object",
                            "description": "The query (DSL JSON).",
                            "properties": {
                                "kind": {"type": "string", "minLength": 1, "description": "The Kind to read."},
                                "where": predicate("The filter."),
                                "select": {"type": "array", "items": {"type": "string"}, "description": "Attributes to return (default: all)."},
                                "include": {"type": "array", "items": {"type": "object",
                                    "properties": {"relation": {"type": "string"}, "select": {"type": "array", "items": {"type": "string"}}},
                                    "required": ["relation"], "additionalProperties": false},
                                    "description": "Neighbors to include per row."},
                                "aggregate": {"type": "object", "properties": {"group_by": {"type": "string"}},
                                    "required": ["group_by"], "additionalProperties": false,
                                    "description": "Count Records per value of an attribute."},
                                "order_by": {"type": "string", "description": "Sort attribute; `-attr` for descending."},
                                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Page size."},
                                "coverage": {"type": "boolean", "description": "`false` leaves the coverage lines out."}
                            },
                            "required": ["kind"],
                            "additionalProperties": false
                        }),
                    ),
                    ("cursor", cursor()),
                ],
                &["query"],
            )
        },
        output: outputs::query,
    },
    ToolSpec {
        name: "lorebase_search",
        title: "Find Records by words",
        description: "Finds Records by words: ranked hits with snippet and score. Lexical unless you pass `query_vector` (computed on your side with the Domain's embedding model, see the SEARCH line of lorebase_schema; Herald never embeds), which makes it vector or hybrid. Narrow with `kinds`, `traits`, `lens` or a `where` predicate. Use lorebase_query for exact filters and counts, lorebase_resolve to map words to attributes and values. Example: {\"query\": \"Kavsen alloys\", \"kinds\": [\"Supplier\"], \"limit\": 5}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("query", string("Words to search for.", 1000)),
                    ("kinds", names("Limit to these Kinds.", 50)),
                    (
                        "traits",
                        names("Limit to Kinds implementing these Traits.", 20),
                    ),
                    ("lens", string("Limit to a lens's Kinds.", 128)),
                    ("where", predicate("A filter on the hits.")),
                    (
                        "query_vector",
                        query_vector(
                            "The query embedded with the Domain's model: vector or hybrid search.",
                        ),
                    ),
                    ("limit", int("Most hits.", 1, 100)),
                ],
                &[],
            )
        },
        output: outputs::search,
    },
    ToolSpec {
        name: "lorebase_neighborhood",
        title: "Graph walk around Records",
        description: "Walks the Links from seed Records up to `depth` hops: nodes (with their depth) and edges; `truncated` when Keeper's caps stopped the walk. Without `values: true` (the default) it returns Record headers and Link endpoints only, which is cheap. Use lorebase_context for a ready-made pack with values and schema, lorebase_get for one Record. Example: {\"seeds\": [\"Supplier/S-1001\"], \"depth\": 2, \"relations\": [\"supplies\"]}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("seeds", record_refs("Where to start (Kind/key).", 20)),
                    (
                        "depth",
                        int("Hops from the seeds (0: the seeds only).", 0, 5),
                    ),
                    (
                        "relations",
                        names("Relations to follow (default: all).", 50),
                    ),
                    ("max_nodes", int("Cap on nodes.", 1, 1000)),
                    ("max_edges", int("Cap on edges.", 1, 5000)),
                    (
                        "values",
                        boolean(
                            "Return the nodes' values (default false: headers only).",
                            false,
                        ),
                    ),
                ],
                &["seeds", "depth"],
            )
        },
        output: outputs::neighborhood,
    },
    ToolSpec {
        name: "lorebase_explain",
        title: "Where a Record's values came from",
        description: "Explains one Record: how it was created, and per attribute its value, origin type, actor, time and Revision of its last change (with the Source, Operation, extraction evidence or Proposal); without `attributes`, also its Links and the Proposals that changed it. Call it before trusting a surprising value. Use lorebase_history for the sequence of changes, lorebase_lineage for the evidence only. Example: {\"ref\": \"Supplier/S-1001\", \"attributes\": [\"risk_score\"]}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("ref", record_ref("The Record, Kind/key.")),
                    ("attributes", names("Explain only these attributes.", 100)),
                ],
                &["ref"],
            )
        },
        output: outputs::explain,
    },
    ToolSpec {
        name: "lorebase_history",
        title: "Changes of one Record",
        description: "Lists the changes of one Record, newest first: Revision, time, author, origin, created/updated/deleted and the message, with the attributes changed; `values: true` adds before -> after. Page with `limit` and `cursor`; `at` answers as of an earlier Revision. Use lorebase_lineage for the evidence behind the current values, lorebase_changes for the whole branch. Example: {\"ref\": \"Supplier/S-1001\", \"values\": true, \"limit\": 2}",
        branch: true,
        at: true,
        writes: false,
        input: || {
            (
                vec![
                    ("ref", record_ref("The Record, Kind/key.")),
                    (
                        "values",
                        boolean("Add each changed value before and after.", false),
                    ),
                    ("limit", int("Page size.", 1, 200)),
                    ("cursor", cursor()),
                ],
                &["ref"],
            )
        },
        output: outputs::history,
    },
    ToolSpec {
        name: "lorebase_lineage",
        title: "Evidence behind a Record's values",
        description: "Per current value of one Record: which Revision, actor and origin set it, with the Source, Operation, document span (extracted from document <id> [start:end] by <model>) or Proposal behind it; ends with SOURCES and PROPOSAL lines. Use lorebase_history for the sequence of changes, lorebase_explain for lineage plus Links. Example: {\"ref\": \"Supplier/S-1001\"}",
        branch: true,
        at: true,
        writes: false,
        input: || (vec![("ref", record_ref("The Record, Kind/key."))], &["ref"]),
        output: outputs::lineage,
    },
    ToolSpec {
        name: "lorebase_changes",
        title: "What changed on a branch since a Revision",
        description: "Lists the Revisions of a branch newest first, back to `since` (a Revision id or 8+ digit prefix you saw earlier), paging the branch log up to a configured bound and saying when the bound stopped it; each line has author, origin, counts (+created ~updated -deleted) and message. Filter by `author` or `origin_type`. Use lorebase_diff for the element-level changes between two Revisions. Example: {\"since\": \"97ce9a2ce272\", \"branch\": \"main\"}",
        branch: true,
        at: false,
        writes: false,
        input: || {
            (
                vec![
                    (
                        "since",
                        revision(
                            "Page back to this Revision (exclusive): 64 hex digits or an 8+ digit prefix.",
                        ),
                    ),
                    ("limit", int("Log page size (default Keeper's).", 1, 200)),
                    ("author", string("Only Revisions by this principal.", 128)),
                    (
                        "origin_type",
                        json!({"type": "string", "enum": ["import", "operation", "extraction", "proposal", "source"],
                                           "description": "Only Revisions of this origin."}),
                    ),
                    ("cursor", cursor()),
                ],
                &[],
            )
        },
        output: outputs::changes,
    },
    ToolSpec {
        name: "lorebase_diff",
        title: "Differences between two Revisions",
        description: "Compares two Revisions: counts per Kind and Relation, then `+` added, `~` changed, `-` removed elements with old -> new values. Revisions are ids, 8+ digit prefixes or tags. Use lorebase_changes to find the Revisions, lorebase_history for one Record. Example: {\"from_revision\": \"97ce9a2ce272\", \"to_revision\": \"f4d229169a37\", \"kinds\": [\"Supplier\"]}",
        branch: false,
        at: false,
        writes: false,
        input: || {
            (
                vec![
                    (
                        "from_revision",
                        string("The older Revision (id, 8+ digit prefix, or tag).", 128),
                    ),
                    (
                        "to_revision",
                        string("The newer Revision (id, 8+ digit prefix, or tag).", 128),
                    ),
                    ("kinds", names("Limit to these Kinds.", 50)),
                    ("relations", names("Limit to these Relations.", 50)),
                    ("limit", int("Page size of the elements.", 1, 500)),
                    ("cursor", cursor()),
                ],
                &["from_revision", "to_revision"],
            )
        },
        output: outputs::diff,
    },
    ToolSpec {
        name: "lorebase_execute",
        title: "Run an Operation (the only write)",
        description: "Runs an Operation (see lorebase_schema) with parameters. `dry_run` defaults to true: check the edits and violations, then commit with `dry_run: false` and `expected_head` set to the head the dry run reported; keep one `idempotency_key` per intended change so retries commit once. Operations with a review policy and protected branches need a Proposal: add `task` (a short slug) and `intent`; the answer then has the Proposal (id, status) and `next` steps. `auto_propose` needs `task`; `auto_merge` only merges where the Domain allows it. Example: {\"operation\": \"flag_supplier_risk\", \"parameters\": {\"supplier_code\": \"S-1001\", \"level\": \"high\"}, \"dry_run\": true}",
        branch: true,
        at: false,
        writes: true,
        input: || {
            (
                vec![
                    (
                        "operation",
                        json!({"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": 128,
                                         "description": "The Operation's api name (built-in such as update_supplier, or custom)."}),
                    ),
                    (
                        "parameters",
                        json!({"type": "object", "description": "The Operation's parameters, as lorebase_schema lists them."}),
                    ),
                    (
                        "dry_run",
                        boolean("Check without writing (default true).", true),
                    ),
                    (
                        "expected_head",
                        revision(
                            "Fail with stale-head unless the branch head is this (the head the dry run reported).",
                        ),
                    ),
                    (
                        "idempotency_key",
                        // Clients of MCP 2026-07-28 mirror it in the header
                        // Mcp-Param-Idempotency-Key, so a balancer may resend
                        // the call (deploy/nginx/herald.conf).
                        with_header(
                            string(
                                "A retried commit with the same key commits once and answers the same.",
                                200,
                            ),
                            "Idempotency-Key",
                        ),
                    ),
                    ("message", string("The Revision's message.", 1000)),
                    (
                        "task",
                        json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,62}$",
                                    "description": "A short slug: run on agent/{agent}/{task} and open or update a Proposal."}),
                    ),
                    ("intent", string("Why: the Proposal's description.", 2000)),
                    (
                        "auto_propose",
                        boolean(
                            "Open a Proposal when review is required (needs `task`).",
                            false,
                        ),
                    ),
                    (
                        "auto_merge",
                        boolean(
                            "Merge the Proposal at once where the Domain allows it.",
                            false,
                        ),
                    ),
                ],
                &["operation", "parameters"],
            )
        },
        output: outputs::execute,
    },
    ToolSpec {
        name: "lorebase_branches",
        title: "Branches of the Domain",
        description: "Lists the Domain's branches with head Revision, default and protected flags and the owner of work branches. Use it to find a branch's head before lorebase_changes or lorebase_execute. Example: {\"limit\": 20}",
        branch: false,
        at: false,
        writes: false,
        input: || {
            (
                vec![("limit", int("Page size.", 1, 200)), ("cursor", cursor())],
                &[],
            )
        },
        output: outputs::branches,
    },
];

/// The row of a tool, by name.
pub(crate) fn spec(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}
