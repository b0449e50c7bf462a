//! Revisions: `lorebase_changes` (the branch log paged back to `since`),
//! `lorebase_diff`, `lorebase_branches`.

use super::tool::LorebaseTool;
use crate::config::Settings;
use crate::error::ToolError;
use crate::keeper::endpoint;
use crate::keeper::model::{BranchList, Diff, DiffParams, LogParams, OriginType, PageParams};
use crate::render;
use crate::render::revisions::Changes;
use crate::tools::args::{
    Common, Int, Name, Names, Revision, Scope, invalid, joined, tool_arguments,
};
use crate::tools::entry::Ctx;
use crate::tools::entry::TaskMention;

/// `lorebase_changes`: pages `GET .../branches/{b}/log` back to `since`,
/// bounded by `changes.max_pages`.
pub(crate) struct LorebaseChanges;

tool_arguments! {
    // Checked as before the types carried the rules: `cursor` before `author`.
    pub(crate) struct ChangesArgs => ChangesChecked
        checked in (since, limit, cursor, author, origin_type) {
        /// Back to this Revision (exclusive): id or 8+ hex prefix.
        since: Option<Revision>,
        /// Log page size; default Keeper's.
        limit: Option<Int<1, 200>>,
        /// Only Revisions by this principal.
        author: Option<Name<128>>,
        /// Only Revisions of this origin.
        origin_type: Option<OriginType>,
        // No description: the instructions say what a cursor is, once.
        cursor: Option<Name<1024>>,
    }
}

impl LorebaseTool for LorebaseChanges {
    const NAME: &'static str = "lorebase_changes";
    const TITLE: &'static str = "What changed on a branch";
    const DESCRIPTION: &'static str = "What changed recently: a branch's Revisions (commits) newest first, back to `since` (a Revision id or 8+ digit prefix seen earlier), each with author, origin, counts (+created ~updated -deleted) and message. Filter by `author`, `origin_type`. Example: {\"since\": \"97ce9a2ce272\"}";
    const SEARCH_HINT: &'static str = "changes on a branch: what happened, what changed since a revision, yesterday, \
        today, recently, recent commits, revisions, log, catch up, new edits, by \
        author, who committed, latest activity, feed";
    const SCOPE: Scope = Scope::BRANCH;
    const KEEPER: &'static [&'static str] = &[
        endpoint::BRANCHES.template(),
        endpoint::BRANCH_LOG.template(),
    ];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "what changed on a branch",
        more: "; between two Revisions: lorebase_diff",
    });
    type Args = ChangesArgs;
    type Answer = Changes;

    async fn run(ctx: Ctx<'_>, c: &Common, a: ChangesChecked) -> Result<Changes, ToolError> {
        let since = a.since;
        let mut params = LogParams {
            limit: a.limit,
            cursor: a.cursor,
            author: a.author,
            origin_type: a.origin_type,
        };
        let branch = match c.read.branch.clone() {
            Some(b) => b,
            None => default_branch(ctx, &c.domain).await?,
        };
        let max_pages = ctx.settings.changes.max_pages.max(1);
        let mut answer = Changes {
            branch: branch.clone(),
            head: String::new(),
            since: since.clone(),
            reached_since: false,
            stopped_by_max_pages: false,
            pages: 0,
            entries: Vec::new(),
            next_cursor: None,
        };
        loop {
            let page = ctx
                .keeper
                .branch_log(ctx.cred, &c.domain, &branch, &params)
                .await?;
            answer.pages += 1;
            if answer.head.is_empty() {
                answer.head = page.head.clone();
            }
            for entry in page.entries {
                if since
                    .as_deref()
                    .is_some_and(|s| entry.revision.to_ascii_lowercase().starts_with(s))
                {
                    answer.reached_since = true;
                    break;
                }
                answer.entries.push(entry);
            }
            if answer.reached_since || since.is_none() {
                answer.next_cursor = if answer.reached_since {
                    None
                } else {
                    page.next_cursor
                };
                break;
            }
            match page.next_cursor {
                None => break,
                Some(cur) if answer.pages >= max_pages => {
                    answer.stopped_by_max_pages = true;
                    answer.next_cursor = Some(cur);
                    break;
                }
                Some(cur) => params.cursor = Some(cur),
            }
        }
        Ok(answer)
    }

    fn text(answer: &Changes, settings: &Settings) -> render::Text {
        let max_pages = settings.changes.max_pages.max(1);
        render::revisions::changes(answer, max_pages, &settings.output)
    }
}

/// The Domain's default branch (the first page of `GET /branches` lists it first).
async fn default_branch(ctx: Ctx<'_>, domain: &str) -> Result<String, ToolError> {
    let list = ctx
        .keeper
        .branches(ctx.cred, domain, &PageParams::default())
        .await?;
    list.branches
        .iter()
        .find(|b| b.default)
        .map(|b| b.name.clone())
        .ok_or_else(|| ToolError {
            next: Some("pass `branch` (see lorebase_branches)".into()),
            ..invalid(
                "branch",
                "no branch given and the Domain reports no default branch",
            )
        })
}

/// `lorebase_diff`: `GET .../diff`.
pub(crate) struct LorebaseDiff;

tool_arguments! {
    pub(crate) struct DiffArgs => DiffChecked {
        /// The older Revision (id, 8+ digit prefix, or tag).
        from_revision: Name<128>,
        /// The newer Revision (id, 8+ digit prefix, or tag).
        to_revision: Name<128>,
        /// Limit to these Kinds.
        kinds: Option<Names<50>>,
        /// Limit to these Relations.
        relations: Option<Names<50>>,
        /// Page size of the elements.
        limit: Option<Int<1, 500>>,
        // No description: the instructions say what a cursor is, once.
        cursor: Option<Name<1024>>,
    }
}

impl LorebaseTool for LorebaseDiff {
    const NAME: &'static str = "lorebase_diff";
    const TITLE: &'static str = "Differences between two Revisions";
    const DESCRIPTION: &'static str = "Compare two Revisions (versions): counts per Kind and Relation, then the Records and Links `+` added, `~` changed (old -> new) and `-` removed. Revisions: ids, 8+ digit prefixes or tags. Example: {\"from_revision\": \"97ce9a2ce272\", \"to_revision\": \"f4d229169a37\"}";
    const SEARCH_HINT: &'static str = "diff: compare two revisions, revision a and revision b, versions, commits, \
        snapshots or tags, difference between, the changes between two revisions, what was \
        added, removed or modified between, delta, before and after";
    const SCOPE: Scope = Scope::DOMAIN;
    const KEEPER: &'static [&'static str] = &[endpoint::DIFF.template()];
    type Args = DiffArgs;
    type Answer = Diff;

    async fn run(ctx: Ctx<'_>, c: &Common, a: DiffChecked) -> Result<Diff, ToolError> {
        let params = DiffParams {
            from: a.from_revision,
            to: a.to_revision,
            kinds: joined(a.kinds),
            relations: joined(a.relations),
            limit: a.limit,
            cursor: a.cursor,
        };
        Ok(ctx.keeper.diff(ctx.cred, &c.domain, &params).await?)
    }

    fn text(answer: &Diff, settings: &Settings) -> render::Text {
        render::revisions::diff(answer, &settings.output)
    }
}

/// `lorebase_branches`: `GET .../branches`.
pub(crate) struct LorebaseBranches;

tool_arguments! {
    pub(crate) struct BranchesArgs => BranchesChecked {
        /// Page size.
        limit: Option<Int<1, 200>>,
        // No description: the instructions say what a cursor is, once.
        cursor: Option<Name<1024>>,
    }
}

impl LorebaseTool for LorebaseBranches {
    const NAME: &'static str = "lorebase_branches";
    const TITLE: &'static str = "Branches of the Domain";
    const DESCRIPTION: &'static str = "List the Domain's branches: each branch's head Revision, whether it is the default or protected, the owner of work branches; the head for lorebase_changes or lorebase_execute. Example: {\"limit\": 20}";
    const SEARCH_HINT: &'static str = "branches: list branches, heads, default branch, protected branch, main, work \
        branch, agent branch, head revision";
    const SCOPE: Scope = Scope::DOMAIN;
    const KEEPER: &'static [&'static str] = &[endpoint::BRANCHES.template()];
    const TASK: Option<TaskMention> = Some(TaskMention {
        what: "branches and their heads",
        more: "",
    });
    type Args = BranchesArgs;
    type Answer = BranchList;

    async fn run(ctx: Ctx<'_>, c: &Common, a: BranchesChecked) -> Result<BranchList, ToolError> {
        let params = PageParams {
            limit: a.limit,
            cursor: a.cursor,
        };
        Ok(ctx.keeper.branches(ctx.cred, &c.domain, &params).await?)
    }

    fn text(answer: &BranchList, settings: &Settings) -> render::Text {
        render::revisions::branches(answer, &settings.output)
    }
}
