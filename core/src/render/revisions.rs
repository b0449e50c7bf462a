//! Text renderings of revisions: the changes since a Revision, diffs and
//! branches.

use schemars::JsonSchema;
use serde::Serialize;

use super::provenance::attribute_changes;
use super::reads::link;
use super::{Lines, Text, count, inline_text, short_rev};
use crate::config::OutputSettings;
use crate::keeper::model::*;

/// The answer of `lorebase_changes`: the branch log paged back to `since`
/// (its JSON shape).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Changes {
    /// The branch read.
    #[schemars(with = "Uncut<String>")]
    pub branch: String,
    /// Its head.
    #[schemars(with = "Uncut<String>")]
    pub head: String,
    /// The Revision (id or 8+ digit prefix) the log was paged back to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub since: Option<String>,
    /// `since` was found: `entries` are every Revision after it.
    pub reached_since: bool,
    /// `herald.changes.max_pages` stopped the paging before `since`.
    pub stopped_by_max_pages: bool,
    /// Log pages read.
    pub pages: u32,
    /// Revisions, newest first (without `since` itself).
    pub entries: Vec<LogEntry>,
    /// Where to continue (older Revisions), when there are more.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Uncut<String>>")]
    pub next_cursor: Option<String>,
}

/// `lorebase_changes`: one line per Revision, newest first, and how the paging
/// ended.
pub fn changes(c: &Changes, max_pages: u32, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    let mut head = format!(
        "{} head {}: {}",
        c.branch,
        short_rev(&c.head),
        count(c.entries.len() as u64, "revision", "revisions")
    );
    if let Some(s) = &c.since {
        head.push_str(&format!(" since {}", short_rev(s)));
    }
    l.line(head);
    l.list(&c.entries, "revisions", "", |l, e| {
        let what = match &e.operation {
            Some(op) => format!("{} {op}", e.origin_type.as_str()),
            None => e.origin_type.as_str().to_string(),
        };
        let mut line = format!(
            "{} {} {} [{what}] +{} ~{} -{}",
            short_rev(&e.revision),
            e.time,
            e.author,
            e.counts.created,
            e.counts.updated,
            e.counts.deleted
        );
        if !e.message.is_empty() {
            line.push_str(&format!(
                ": {}",
                inline_text(&e.message, l.caps().max_value_chars)
            ));
        }
        l.line(line);
    });
    l.begin_footer();
    if let Some(s) = &c.since {
        if c.stopped_by_max_pages {
            l.line(format!(
                "stopped: read {} (herald.{} = {max_pages}) without reaching {}; call again with the cursor below, or use lorebase_diff",
                count(c.pages, "page", "pages"),
                crate::config::SettingKey::ChangesMaxPages,
                short_rev(s)
            ));
        } else if !c.reached_since {
            l.line(format!(
                "not found: {} is not in the log of {}; the list goes back to the first Revision",
                short_rev(s),
                c.branch
            ));
        }
    }
    if let Some(cur) = &c.next_cursor {
        l.line(format!("next_cursor: {cur}"));
    }
    l.into_text()
}

/// `lorebase_diff`: counts per Kind and Relation, then `+`/`~`/`-` elements
/// with old -> new values.
pub fn diff(d: &Diff, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "diff {} -> {}: {}",
        short_rev(&d.from),
        short_rev(&d.to),
        count(d.elements.len() as u64, "element", "elements")
    ));
    l.list(&d.counts, "counts", "", |l, c| {
        l.line(format!(
            "{} ({}): +{} ~{} -{}",
            c.name, c.scope, c.counts.created, c.counts.updated, c.counts.deleted
        ));
    });
    l.list(&d.elements, "elements", "", |l, e| {
        let target = match (&e.record, &e.link) {
            (Some(r), _) => r.to_string(),
            (None, Some(k)) => link(k),
            (None, None) => "?".into(),
        };
        l.line(format!("{} {target}", e.op));
        attribute_changes(l, &e.changes, "  ");
    });
    l.begin_footer();
    if let Some(c) = &d.next_cursor {
        l.line(format!("next_cursor: {c}"));
    }
    l.into_text()
}

/// `lorebase_branches`: branches with head, default and protected flags.
pub fn branches(b: &BranchList, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(count(b.branches.len() as u64, "branch", "branches"));
    l.list(&b.branches, "branches", "", |l, br| {
        let mut line = format!("{} head {}", br.name, short_rev(&br.head));
        if br.default {
            line.push_str(" default");
        }
        if br.protected {
            line.push_str(" protected");
        }
        if let Some(o) = &br.owner {
            line.push_str(&format!(" owner {o}"));
        }
        l.line(line);
    });
    l.begin_footer();
    if let Some(c) = &b.next_cursor {
        l.line(format!("next_cursor: {c}"));
    }
    l.into_text()
}
