//! The agent endpoints: `lorebase_context` (a context pack) and
//! `lorebase_execute` (Operation runs, the only write).

use crate::keeper::endpoint;
use serde_json::{Map, Value};

use super::tool::LorebaseTool;
use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::model::{
    ContextPack, ContextRequest, ExecuteRequest, ExecuteResult, ProblemCode, SearchRequest,
};
use crate::render;
use crate::tools::args::{
    AnyObject, ApiName, Common, Flag, Int, Name, Names, Refs, Revision, Scope, Slug, Text, invalid,
    tool_arguments,
};
use crate::tools::entry::Ctx;
use crate::tools::entry::TaskMention;
use crate::tools::search_hint::DomainWord;

/// Seeds taken from the search hits of a question.
const QUESTION_SEEDS: u32 = 5;

/// `lorebase_context`: `POST .../context`; with a `question` and no
/// `records`, `POST .../search` first and the hits become the seeds.
pub(crate) struct LorebaseContext;

tool_arguments! {
    // Checked as before the types carried the rules: the question and the
    // narrowing first, the seeds last.
    pub(crate) struct ContextArgs => ContextChecked
        checked in (question, traits, lens, depth, relations, token_budget, records) {
        /// Seed Records (Kind/key), or give `question`.
        records: Option<Refs<20>>,
        /// A short question: its search hits become the seeds.
        question: Option<Text<1000>>,
        /// Hops from the seeds; default the lens's or Keeper's.
        depth: Option<Int<0, 3>>,
        /// Relations to follow; default all, or the lens's.
        relations: Option<Names<50>>,
        /// Only neighbors of Kinds implementing these Traits.
        traits: Option<Names<20>>,
        /// A lens (read preset) giving Relations, depth and budget.
        lens: Option<Name<128>>,
        /// Trim the pack to about this many tokens.
        token_budget: Option<Int<100, 100_000>>,
    }
}

impl LorebaseTool for LorebaseContext {
    const NAME: &'static str = "lorebase_context";
    const TITLE: &'static str = "Start here: context for Records or a question";
    const DESCRIPTION: &'static str = "Start here: one call reads what the Domain knows about Records or a question, within a token budget: values, neighbors and Links, the schema of their Kinds, recent changes, lineage. Give `records` (Kind/key refs) or a `question`. Example: {\"records\": [\"Supplier/S-1001\"], \"depth\": 1}";
    const SEARCH_HINT: &'static str = "start here: what do we know about records, a question, overview, summary, \
        everything about an entity, context pack, background, neighbors, related \
        records, recent changes";
    const SCOPE: Scope = Scope::READ;
    const KEEPER: &'static [&'static str] =
        &[endpoint::SEARCH.template(), endpoint::CONTEXT.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[DomainWord::Kinds, DomainWord::Lenses];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "what is known about Records or a question",
        more: "",
    });
    type Args = ContextArgs;
    type Answer = ContextPack;

    async fn run(ctx: Ctx<'_>, c: &Common, a: ContextChecked) -> Result<ContextPack, ToolError> {
        let (question, traits, lens) = (a.question, a.traits, a.lens);
        let mut req = ContextRequest {
            read: c.read.clone(),
            records: Vec::new(),
            question: question.clone(),
            depth: a.depth,
            relations: a.relations,
            traits: traits.clone(),
            lens: lens.clone(),
            token_budget: a.token_budget,
        };
        match (a.records, question) {
            (Some(records), _) => req.records = records,
            (None, Some(q)) => {
                let search = SearchRequest {
                    read: c.read.clone(),
                    query: Some(q.clone()),
                    traits,
                    lens,
                    limit: Some(QUESTION_SEEDS),
                    ..SearchRequest::default()
                };
                let hits = ctx.keeper.search(ctx.cred, &c.domain, &search).await?;
                if hits.hits.is_empty() {
                    return Err(ToolError {
                        code: ProblemCode::NotFound.into(),
                        message: format!("no Records match the question {q:?}"),
                        issues: Vec::new(),
                        head: None,
                        retry_after: None,
                        next: Some(
                            "ground the words with lorebase_resolve, or find Records with lorebase_search and pass them as `records`"
                                .into(),
                        ),
                    });
                }
                req.records = hits.hits.into_iter().map(|h| h.record).collect();
            }
            (None, None) => {
                return Err(invalid(
                    "records",
                    "give `records` (refs Kind/key) or a `question`",
                ));
            }
        }
        Ok(ctx.keeper.context(ctx.cred, &c.domain, &req).await?)
    }

    fn text(answer: &ContextPack, settings: &Settings) -> render::Text {
        render::agent::context(answer, &settings.output)
    }
}

/// `lorebase_execute`: `POST .../operations/{op}/execute`, a dry run unless
/// `dry_run: false`.
pub(crate) struct LorebaseExecute;

tool_arguments! {
    pub(crate) struct ExecuteArgs => ExecuteChecked {
        /// Its api name, as lorebase_schema lists it.
        operation: ApiName,
        /// Its parameters, as lorebase_schema lists them.
        #[schemars(with = "AnyObject")]
        parameters: Map<String, Value>,
        /// Check without writing.
        dry_run: Option<Flag<true>>,
        /// The head the dry run reported (stale-head if the branch moved).
        expected_head: Option<Revision>,
        /// Retries with the same key commit once.
        // Clients of MCP 2026-07-28 mirror it in the header
        // `Mcp-Param-Idempotency-Key` (SEP-2243), so a balancer may resend the
        // call (deploy/nginx/herald.conf).
        #[schemars(extend("x-mcp-header" = "Idempotency-Key"))]
        idempotency_key: Option<Name<200>>,
        /// The Revision's message.
        message: Option<Text<1000>>,
        /// A short slug: run on agent/{agent}/{task}, open a Proposal.
        task: Option<Slug>,
        /// Why: the Proposal's description.
        intent: Option<Text<2000>>,
        /// Open a Proposal when review is required (with `task`).
        auto_propose: Option<Flag<false>>,
        /// Merge the Proposal at once if the Domain allows.
        auto_merge: Option<Flag<false>>,
    }
}

impl LorebaseTool for LorebaseExecute {
    const NAME: &'static str = "lorebase_execute";
    const TITLE: &'static str = "Write: run an Operation";
    const DESCRIPTION: &'static str = "Write a change to the graph: create, update, delete or link Records by running an Operation (see lorebase_schema). The only write; one needing review opens a Proposal. A dry run by default: check edits and violations, then commit with `dry_run: false`, `expected_head` from the dry run and one `idempotency_key` per change. For review, add `task` and `intent`. Example: {\"operation\": \"flag_supplier_risk\", \"parameters\": {\"supplier_code\": \"S-1001\", \"level\": \"high\"}}";
    const SEARCH_HINT: &'static str = "write: create, add, insert, update, set, change, edit, modify, rename, delete, \
        remove, link, unlink, flag, mark, fix, correct a record or value by running an \
        operation, save, commit, dry run, expected head, idempotency key, propose, \
        proposal, review, merge, task, intent";
    const SCOPE: Scope = Scope::BRANCH;
    const KEEPER: &'static [&'static str] = &[endpoint::EXECUTE.template()];
    const DOMAIN_WORDS: &'static [DomainWord] = &[
        DomainWord::Kinds,
        DomainWord::Attributes,
        DomainWord::Operations,
    ];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "create, update, delete, link Records",
        more: " (Operations from lorebase_schema)",
    });
    const WRITES: bool = true;
    type Args = ExecuteArgs;
    type Answer = ExecuteResult;

    async fn run(ctx: Ctx<'_>, c: &Common, a: ExecuteChecked) -> Result<ExecuteResult, ToolError> {
        // `intent`, `auto_propose` and `auto_merge` are passed on as given
        // and Keeper answers (auto_propose without a task is Keeper's
        // validation-failed, returned unchanged).
        let req = ExecuteRequest {
            branch: c.read.branch.clone(),
            parameters: a.parameters,
            dry_run: Flag::or_default(a.dry_run),
            expected_head: a.expected_head,
            idempotency_key: a.idempotency_key,
            message: a.message,
            task: a.task,
            intent: a.intent,
            auto_propose: Flag::given(a.auto_propose),
            auto_merge: Flag::given(a.auto_merge),
        };
        Ok(ctx
            .keeper
            .execute(ctx.cred, &c.domain, &a.operation, &req)
            .await?)
    }

    fn text(answer: &ExecuteResult, settings: &Settings) -> render::Text {
        render::agent::execute(answer, &settings.output)
    }
}
