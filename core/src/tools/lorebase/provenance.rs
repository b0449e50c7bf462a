//! Provenance: `lorebase_explain`, `lorebase_history`, `lorebase_lineage`.

use schemars::JsonSchema;
use serde::Deserialize;

use super::tool::{Ctx, LorebaseTool};
use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::model::{Explain, History, Lineage, ProvenanceParams};
use crate::render;
use crate::tools::args::{Arg, Checks, Common, Flag, Int, Name, Names, Ref, Scope, joined};

/// `lorebase_explain`: `GET .../records/{key}/explain`.
pub(crate) struct LorebaseExplain;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExplainArgs {
    /// The Record, Kind/key.
    #[serde(rename = "ref")]
    record: Ref,
    /// Explain only these attributes.
    attributes: Option<Names<100>>,
}

impl LorebaseTool for LorebaseExplain {
    const NAME: &'static str = "lorebase_explain";
    const TITLE: &'static str = "Where a Record's values came from";
    const DESCRIPTION: &'static str = "Explains one Record: how it was created, and per attribute its value, origin type, actor, time and Revision of its last change (with the Source, Operation, extraction evidence or Proposal); without `attributes`, also its Links and the Proposals that changed it. Call it before trusting a surprising value. Use lorebase_history for the sequence of changes, lorebase_lineage for the evidence only. Example: {\"ref\": \"Supplier/S-1001\", \"attributes\": [\"risk_score\"]}";
    const SCOPE: Scope = Scope::READ;
    type Args = ExplainArgs;
    type Answer = Explain;

    async fn run(ctx: Ctx<'_>, c: &Common, a: ExplainArgs) -> Result<Explain, ToolError> {
        let mut v = Checks::default();
        let record = v.keep(a.record.check("ref"));
        let params = ProvenanceParams {
            read: c.read.clone(),
            attributes: joined(v.check(a.attributes, "attributes")),
            ..ProvenanceParams::default()
        };
        let record = v.done_with(record)?;
        Ok(ctx
            .keeper
            .explain(ctx.cred, &c.domain, &record, &params)
            .await?)
    }

    fn text(answer: &Explain, settings: &Settings) -> render::Text {
        render::provenance::explain(answer, &settings.output)
    }
}

/// `lorebase_history`: `GET .../records/{key}/history`.
pub(crate) struct LorebaseHistory;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoryArgs {
    /// The Record, Kind/key.
    #[serde(rename = "ref")]
    record: Ref,
    /// Add each changed value before and after.
    values: Option<Flag<false>>,
    /// Page size.
    limit: Option<Int<1, 200>>,
    /// The `next_cursor` of the previous page.
    cursor: Option<Name<1024>>,
}

impl LorebaseTool for LorebaseHistory {
    const NAME: &'static str = "lorebase_history";
    const TITLE: &'static str = "Changes of one Record";
    const DESCRIPTION: &'static str = "Lists the changes of one Record, newest first: Revision, time, author, origin, created/updated/deleted and the message, with the attributes changed; `values: true` adds before -> after. Page with `limit` and `cursor`; `at` answers as of an earlier Revision. Use lorebase_lineage for the evidence behind the current values, lorebase_changes for the whole branch. Example: {\"ref\": \"Supplier/S-1001\", \"values\": true, \"limit\": 2}";
    const SCOPE: Scope = Scope::READ;
    type Args = HistoryArgs;
    type Answer = History;

    async fn run(ctx: Ctx<'_>, c: &Common, a: HistoryArgs) -> Result<History, ToolError> {
        let mut v = Checks::default();
        let record = v.keep(a.record.check("ref"));
        let params = ProvenanceParams {
            read: c.read.clone(),
            values: v.check(a.values, "values"),
            limit: v.check(a.limit, "limit"),
            cursor: v.check(a.cursor, "cursor"),
            ..ProvenanceParams::default()
        };
        let record = v.done_with(record)?;
        Ok(ctx
            .keeper
            .history(ctx.cred, &c.domain, &record, &params)
            .await?)
    }

    fn text(answer: &History, settings: &Settings) -> render::Text {
        render::provenance::history(answer, &settings.output)
    }
}

/// `lorebase_lineage`: `GET .../records/{key}/lineage`.
pub(crate) struct LorebaseLineage;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LineageArgs {
    /// The Record, Kind/key.
    #[serde(rename = "ref")]
    record: Ref,
}

impl LorebaseTool for LorebaseLineage {
    const NAME: &'static str = "lorebase_lineage";
    const TITLE: &'static str = "Evidence behind a Record's values";
    const DESCRIPTION: &'static str = "Per current value of one Record: which Revision, actor and origin set it, with the Source, Operation, document span (extracted from document <id> [start:end] by <model>) or Proposal behind it; ends with SOURCES and PROPOSAL lines. Use lorebase_history for the sequence of changes, lorebase_explain for lineage plus Links. Example: {\"ref\": \"Supplier/S-1001\"}";
    const SCOPE: Scope = Scope::READ;
    type Args = LineageArgs;
    type Answer = Lineage;

    async fn run(ctx: Ctx<'_>, c: &Common, a: LineageArgs) -> Result<Lineage, ToolError> {
        let mut v = Checks::default();
        let record = v.keep(a.record.check("ref"));
        let params = ProvenanceParams {
            read: c.read.clone(),
            ..ProvenanceParams::default()
        };
        let record = v.done_with(record)?;
        Ok(ctx
            .keeper
            .lineage(ctx.cred, &c.domain, &record, &params)
            .await?)
    }

    fn text(answer: &Lineage, settings: &Settings) -> render::Text {
        render::provenance::lineage(answer, &settings.output)
    }
}
