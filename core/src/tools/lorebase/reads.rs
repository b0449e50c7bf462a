//! The reads: `lorebase_schema`, `lorebase_get`, `lorebase_resolve`,
//! `lorebase_query`, `lorebase_search`, `lorebase_neighborhood`. Each tool is
//! its definition, its arguments (their doc comments are the descriptions a
//! model sees), its answer type (a Keeper wire type) and its handler.

use crate::keeper::endpoint;
use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::tool::LorebaseTool;
use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::model::{
    NeighborhoodRequest, NeighborhoodResponse, QueryRequest, QueryResponse, RecordParams,
    RecordView, ResolveRequest, ResolveResponse, Schema as DomainSchema, SchemaDetail,
    SchemaParams, SearchRequest, SearchResponse,
};
use crate::render;
use crate::tools::args::{
    Common, Flag, Int, Levels, Name, Names, QueryDsl, QueryVector, Ref, Refs, Scope, Text, Where,
    joined, tool_arguments, with_predicate_grammar,
};
use crate::tools::entry::Ctx;
use crate::tools::entry::TaskMention;
use crate::tools::search_hint::DomainWord;

/// `lorebase_schema`: `GET .../schema`.
pub(crate) struct LorebaseSchema;

tool_arguments! {
    pub(crate) struct SchemaArgs => SchemaChecked {
        /// Only these Kinds; default all.
        kinds: Option<Names<100>>,
        /// `full` adds descriptions, enum values and synonyms.
        #[schemars(with = "Option<SummaryByDefault>")]
        detail: Option<SchemaDetail>,
    }
}

/// `detail`'s schema: the wire enum, `summary` when left out.
struct SummaryByDefault;

impl JsonSchema for SummaryByDefault {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "SummaryByDefault".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = SchemaDetail::json_schema(generator);
        schema.insert("default".into(), SchemaDetail::Summary.as_str().into());
        schema
    }
}

impl LorebaseTool for LorebaseSchema {
    const NAME: &'static str = "lorebase_schema";
    const TITLE: &'static str = "Schema of the Domain: Kinds, attributes, Operations";
    const DESCRIPTION: &'static str = "Read the schema: Kinds (record types) with attributes and types (`!` required), Relations, the Operations you run with lorebase_execute and each operation's parameters, Traits, LENSES, Sources and a SEARCH line. Learn names here before you query or write. Example: {\"kinds\": [\"Supplier\"]}";
    const SEARCH_HINT: &'static str = "schema of the domain: what is in this domain, what kinds of records and \
        entities exist, record types, entity types, data model, fields, attributes, \
        columns, types, which attributes does a kind have, required fields, keys, \
        relations, operation, operations I can run, parameter, parameters, arguments, \
        traits, lenses, sources, search modes, names";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::SCHEMA.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[
        DomainWord::Kinds,
        DomainWord::Attributes,
        DomainWord::Lenses,
    ];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "Kinds, attributes, Operations, names",
        more: "",
    });
    type Args = SchemaArgs;
    type Answer = DomainSchema;

    async fn run(ctx: Ctx<'_>, c: &Common, a: SchemaChecked) -> Result<DomainSchema, ToolError> {
        let params = SchemaParams {
            read: c.read.clone(),
            kinds: joined(a.kinds),
            detail: a.detail,
        };
        Ok(ctx.keeper.schema(ctx.cred, &c.domain, &params).await?)
    }

    fn text(answer: &DomainSchema, settings: &Settings) -> render::Text {
        render::reads::schema(answer, &settings.output)
    }
}

/// `lorebase_get`: `GET .../kinds/{kind}/records/{key}`.
pub(crate) struct LorebaseGet;

tool_arguments! {
    pub(crate) struct GetArgs => GetChecked {
        /// The Record, Kind/key.
        r#ref: Ref,
        /// List the Links, not only their counts.
        links: Option<Flag<false>>,
    }
}

impl LorebaseTool for LorebaseGet {
    const NAME: &'static str = "lorebase_get";
    const TITLE: &'static str = "Read one Record's values";
    const DESCRIPTION: &'static str = "Read one Record (an entity, a row) by ref (Kind/key): its attribute values (masked ones show ***) and Link counts per Relation; `links: true` lists the Links. No ref yet? Find it with lorebase_search or lorebase_query. Example: {\"ref\": \"Supplier/S-1001\"}";
    const SEARCH_HINT: &'static str = "read one record by ref or key, get a record, show the values of a record, look \
        up an entity, fetch a row by id, current values, attribute values, links of a \
        record, open a record, details of an entity";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::RECORD.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Kinds, DomainWord::Attributes];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "read one Record by ref (Kind/key)",
        more: "",
    });
    type Args = GetArgs;
    type Answer = RecordView;

    async fn run(ctx: Ctx<'_>, c: &Common, a: GetChecked) -> Result<RecordView, ToolError> {
        let params = RecordParams {
            read: c.read.clone(),
            links: Flag::given(a.links),
        };
        Ok(ctx
            .keeper
            .record(ctx.cred, &c.domain, &a.r#ref, &params)
            .await?)
    }

    fn text(answer: &RecordView, settings: &Settings) -> render::Text {
        render::reads::record(answer, &settings.output)
    }
}

/// `lorebase_resolve`: `POST .../resolve`.
pub(crate) struct LorebaseResolve;

tool_arguments! {
    pub(crate) struct ResolveArgs => ResolveChecked {
        /// The words to resolve.
        text: Text<2000>,
        /// Limit candidates to these Kinds.
        kinds: Option<Names<50>>,
        /// Levels to try; default all that apply.
        levels: Option<Levels>,
        /// The text embedded by the Domain's model.
        query_vector: Option<QueryVector>,
        /// Most candidates.
        limit: Option<Int<1, 50>>,
    }
}

impl LorebaseTool for LorebaseResolve {
    const NAME: &'static str = "lorebase_resolve";
    const TITLE: &'static str = "Words to Kinds, attributes and values";
    const DESCRIPTION: &'static str = "Ground a question's words in the Domain: the Kinds, attributes and stored values they mean, ranked, each value with a ready `where` filter and Record count; unmatched words, coverage: lines. Never runs the query: pass the filters to lorebase_query. Example: {\"text\": \"red shoes per brand\"}";
    const SEARCH_HINT: &'static str = "resolve the words of a question: what does a word or phrase mean in the \
        domain, which kind, attribute or value stands for a word, map words to \
        filters, where predicates, synonyms, vocabulary, ground a question, turn a \
        phrase into a filter, which value means";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::RESOLVE.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Attributes, DomainWord::Values];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "a question's words to Kinds, values, filters",
        more: ", then lorebase_query",
    });
    type Args = ResolveArgs;
    type Answer = ResolveResponse;

    async fn run(
        ctx: Ctx<'_>,
        c: &Common,
        a: ResolveChecked,
    ) -> Result<ResolveResponse, ToolError> {
        let req = ResolveRequest {
            read: c.read.clone(),
            text: a.text,
            kinds: a.kinds,
            levels: a.levels,
            query_vector: a.query_vector,
            limit: a.limit,
        };
        Ok(ctx.keeper.resolve(ctx.cred, &c.domain, &req).await?)
    }

    fn text(answer: &ResolveResponse, settings: &Settings) -> render::Text {
        render::reads::resolve(answer, &settings.output)
    }
}

/// `lorebase_query`: `POST .../query`.
pub(crate) struct LorebaseQuery;

tool_arguments! {
    pub(crate) struct QueryArgs => QueryChecked {
        /// The query (DSL JSON).
        query: QueryDsl,
        // No description: the instructions say what a cursor is, once.
        cursor: Option<Name<1024>>,
    }
}

impl LorebaseTool for LorebaseQuery {
    const NAME: &'static str = "lorebase_query";
    const TITLE: &'static str = "Filter, list and count Records";
    const DESCRIPTION: &'static str = "Filter, list, count and group Records (rows) of one Kind: `where`, `select`, `include` linked Records, `order_by`, `limit`, `aggregate: {\"group_by\": attr}` counts per value. Page with `cursor`; read the coverage: lines before answering \"none\". Example: {\"query\": {\"kind\": \"Product\", \"where\": {\"attr\": \"color\", \"op\": \"eq\", \"value\": \"Rosso\"}, \"aggregate\": {\"group_by\": \"brand\"}}}";
    const SEARCH_HINT: &'static str = "query records: list, filter, count, how many, per, by, group by, aggregate, \
        totals, rows, table, all records of a kind where an attribute is a value, \
        sort, order by, more than, over, under, between, top, page, cursor, which \
        records match";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::QUERY.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[
        DomainWord::Plural,
        DomainWord::Attributes,
        DomainWord::Values,
    ];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "filtered lists, counts, group by",
        more: "",
    });
    type Args = QueryArgs;
    type Answer = QueryResponse;

    async fn run(ctx: Ctx<'_>, c: &Common, a: QueryChecked) -> Result<QueryResponse, ToolError> {
        let req = QueryRequest {
            read: c.read.clone(),
            query: a.query,
            cursor: a.cursor,
        };
        Ok(ctx.keeper.query(ctx.cred, &c.domain, &req).await?)
    }

    fn text(answer: &QueryResponse, settings: &Settings) -> render::Text {
        render::reads::query(answer, &settings.output)
    }
}

/// `lorebase_search`: `POST .../search`; the vector is passed through, never
/// computed.
pub(crate) struct LorebaseSearch;

tool_arguments! {
    pub(crate) struct SearchArgs => SearchChecked {
        /// Words to search for.
        query: Option<Text<1000>>,
        /// Limit to these Kinds.
        kinds: Option<Names<50>>,
        /// Limit to Kinds implementing these Traits.
        traits: Option<Names<20>>,
        /// Limit to a lens's Kinds.
        lens: Option<Name<128>>,
        /// A filter on the hits.
        #[schemars(transform = with_predicate_grammar)]
        r#where: Option<Where>,
        /// The query embedded by the Domain's model.
        query_vector: Option<QueryVector>,
        /// Most hits.
        limit: Option<Int<1, 100>>,
    }
}

impl LorebaseTool for LorebaseSearch {
    const NAME: &'static str = "lorebase_search";
    const TITLE: &'static str = "Find Records by words";
    const DESCRIPTION: &'static str = "Find Records by words (full-text), or by meaning with a `query_vector` you embed with the model on lorebase_schema's SEARCH line: ranked hits with snippet and score. Narrow with `kinds`, `traits`, `lens`, `where`. Example: {\"query\": \"Kavsen alloys\", \"kinds\": [\"Supplier\"]}";
    const SEARCH_HINT: &'static str = "search records: find records by words, text, keyword, name, mention, full \
        text, lexical, semantic, vector, hybrid, similar, similarity, look for, fuzzy, \
        ranked hits, snippet";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::SEARCH.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Plural];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "find Records by words or by vector",
        more: "",
    });
    type Args = SearchArgs;
    type Answer = SearchResponse;

    async fn run(ctx: Ctx<'_>, c: &Common, a: SearchChecked) -> Result<SearchResponse, ToolError> {
        let req = SearchRequest {
            read: c.read.clone(),
            query: a.query,
            kinds: a.kinds,
            traits: a.traits,
            lens: a.lens,
            where_predicate: a.r#where,
            query_vector: a.query_vector,
            limit: a.limit,
        };
        Ok(ctx.keeper.search(ctx.cred, &c.domain, &req).await?)
    }

    fn text(answer: &SearchResponse, settings: &Settings) -> render::Text {
        render::reads::search(answer, &settings.output)
    }
}

/// `lorebase_neighborhood`: `POST .../neighborhood`, `values: false` unless asked.
pub(crate) struct LorebaseNeighborhood;

tool_arguments! {
    pub(crate) struct NeighborhoodArgs => NeighborhoodChecked {
        /// Start Records (Kind/key).
        seeds: Refs<20>,
        /// Hops; 0: the seeds only.
        depth: Int<0, 5>,
        /// Relations to follow; default all.
        relations: Option<Names<50>>,
        /// Cap on nodes.
        max_nodes: Option<Int<1, 1000>>,
        /// Cap on edges.
        max_edges: Option<Int<1, 5000>>,
        /// Return values, not only headers.
        values: Option<Flag<false>>,
    }
}

impl LorebaseTool for LorebaseNeighborhood {
    const NAME: &'static str = "lorebase_neighborhood";
    const TITLE: &'static str = "Linked Records: a graph walk";
    const DESCRIPTION: &'static str = "Walk the graph from seed Records: the Records linked to them up to `depth` hops, as nodes and edges; headers only unless `values: true`; `truncated` when a cap stopped it. Example: {\"seeds\": [\"Supplier/S-1001\"], \"depth\": 2}";
    const SEARCH_HINT: &'static str = "neighbors: what is linked or connected to a record, related records, links, \
        relations, edges, walk the graph, graph traversal, hops, nodes, which records \
        does it point to, supply, uses, network around";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::NEIGHBORHOOD.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Kinds, DomainWord::Relations];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "linked Records, graph walk",
        more: "",
    });
    type Args = NeighborhoodArgs;
    type Answer = NeighborhoodResponse;

    async fn run(
        ctx: Ctx<'_>,
        c: &Common,
        a: NeighborhoodChecked,
    ) -> Result<NeighborhoodResponse, ToolError> {
        let req = NeighborhoodRequest {
            read: c.read.clone(),
            seeds: a.seeds,
            depth: a.depth,
            relations: a.relations,
            max_nodes: a.max_nodes,
            max_edges: a.max_edges,
            values: Flag::or_default(a.values),
        };
        Ok(ctx.keeper.neighborhood(ctx.cred, &c.domain, &req).await?)
    }

    fn text(answer: &NeighborhoodResponse, settings: &Settings) -> render::Text {
        render::reads::neighborhood(answer, &settings.output)
    }
}
