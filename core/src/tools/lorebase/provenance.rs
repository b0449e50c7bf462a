//! Provenance: `lorebase_explain`, `lorebase_history`, `lorebase_lineage`.

use super::tool::LorebaseTool;
use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::endpoint;
use crate::keeper::model::{Explain, History, Lineage, ProvenanceParams};
use crate::render;
use crate::tools::args::{Common, Flag, Int, Name, Names, Ref, Scope, joined, tool_arguments};
use crate::tools::entry::Ctx;
use crate::tools::entry::TaskMention;
use crate::tools::search_hint::DomainWord;

/// `lorebase_explain`: `GET .../records/{key}/explain`.
pub(crate) struct LorebaseExplain;

tool_arguments! {
    pub(crate) struct ExplainArgs => ExplainChecked {
        /// The Record, Kind/key.
        r#ref: Ref,
        /// Explain only these attributes.
        attributes: Option<Names<100>>,
    }
}

impl LorebaseTool for LorebaseExplain {
    const NAME: &'static str = "lorebase_explain";
    const TITLE: &'static str = "Where a Record's values came from";
    const DESCRIPTION: &'static str = "Explain where a Record's values came from and who set them: per attribute the value, origin, actor, time, Revision and evidence (Source, Operation, document, Proposal); without `attributes`, its Links and Proposals too. Check before you trust a value. Example: {\"ref\": \"Supplier/S-1001\", \"attributes\": [\"risk_score\"]}";
    const SEARCH_HINT: &'static str = "explain a record: where did a value come from, why does it have a value, who \
        set it, how it was created, origin of a value, provenance, actor, which \
        operation or proposal set it, links and proposals that changed it";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::EXPLAIN.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Kinds, DomainWord::Attributes];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "where a value came from, who set it",
        more: ", lorebase_lineage",
    });
    type Args = ExplainArgs;
    type Answer = Explain;

    async fn run(ctx: Ctx<'_>, c: &Common, a: ExplainChecked) -> Result<Explain, ToolError> {
        let params = ProvenanceParams {
            read: c.read.clone(),
            attributes: joined(a.attributes),
            ..ProvenanceParams::default()
        };
        Ok(ctx
            .keeper
            .explain(ctx.cred, &c.domain, &a.r#ref, &params)
            .await?)
    }

    fn text(answer: &Explain, settings: &Settings) -> render::Text {
        render::provenance::explain(answer, &settings.output)
    }
}

/// `lorebase_history`: `GET .../records/{key}/history`.
pub(crate) struct LorebaseHistory;

tool_arguments! {
    pub(crate) struct HistoryArgs => HistoryChecked {
        /// The Record, Kind/key.
        r#ref: Ref,
        /// Add each changed value before and after.
        values: Option<Flag<false>>,
        /// Page size.
        limit: Option<Int<1, 200>>,
        // No description: the instructions say what a cursor is, once.
        cursor: Option<Name<1024>>,
    }
}

impl LorebaseTool for LorebaseHistory {
    const NAME: &'static str = "lorebase_history";
    const TITLE: &'static str = "History: who changed a Record, when";
    const DESCRIPTION: &'static str = "History of one Record: who changed it, when and how, newest first: Revision, time, author, origin, created/updated/deleted, message, attributes changed (`values: true`: before -> after). Page with `cursor`. Example: {\"ref\": \"Supplier/S-1001\", \"values\": true, \"limit\": 2}";
    const SEARCH_HINT: &'static str = "history of one record: who changed it and when, last change, last edit, last \
        modified, past and previous versions, old values before and after, change log, \
        audit trail, edits over time, modified, updated, created, deleted, revisions \
        of a record, timeline";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::HISTORY.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Kinds];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "who changed a Record, when",
        more: "",
    });
    type Args = HistoryArgs;
    type Answer = History;

    async fn run(ctx: Ctx<'_>, c: &Common, a: HistoryChecked) -> Result<History, ToolError> {
        let params = ProvenanceParams {
            read: c.read.clone(),
            values: Flag::given(a.values),
            limit: a.limit,
            cursor: a.cursor,
            ..ProvenanceParams::default()
        };
        Ok(ctx
            .keeper
            .history(ctx.cred, &c.domain, &a.r#ref, &params)
            .await?)
    }

    fn text(answer: &History, settings: &Settings) -> render::Text {
        render::provenance::history(answer, &settings.output)
    }
}

/// `lorebase_lineage`: `GET .../records/{key}/lineage`.
pub(crate) struct LorebaseLineage;

tool_arguments! {
    pub(crate) struct LineageArgs => LineageChecked {
        /// The Record, Kind/key.
        r#ref: Ref,
    }
}

impl LorebaseTool for LorebaseLineage {
    const NAME: &'static str = "lorebase_lineage";
    const TITLE: &'static str = "Evidence behind a Record's values";
    const DESCRIPTION: &'static str = "Lineage of a Record's current values: per value the Revision, actor and origin that set it, and the evidence (Source, Operation, document span a model extracted, Proposal); ends with SOURCES and PROPOSAL lines. Example: {\"ref\": \"Supplier/S-1001\"}";
    const SEARCH_HINT: &'static str = "lineage of values: which source, document, import or extraction is behind a \
        value, evidence, provenance, origin, span, source system, sync, operation or \
        proposal that brought it, trust";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] = &[endpoint::LINEAGE.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Attributes];
    type Args = LineageArgs;
    type Answer = Lineage;

    async fn run(ctx: Ctx<'_>, c: &Common, a: LineageChecked) -> Result<Lineage, ToolError> {
        let params = ProvenanceParams {
            read: c.read.clone(),
            ..ProvenanceParams::default()
        };
        Ok(ctx
            .keeper
            .lineage(ctx.cred, &c.domain, &a.r#ref, &params)
            .await?)
    }

    fn text(answer: &Lineage, settings: &Settings) -> render::Text {
        render::provenance::lineage(answer, &settings.output)
    }
}
