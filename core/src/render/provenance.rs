//! Text renderings of provenance: explain, history and lineage (docs/tools.md,
//! `lorebase_history` and `lorebase_lineage`).

use serde_json::Value;

use super::reads::{link, source};
use super::{Lines, Text, count, inline_text, quoted, short_rev};
use crate::config::OutputSettings;
use crate::keeper::model::*;

/// `lorebase_history`: the changes of one Record, newest first.
///
/// ```text
/// Supplier/S-1001 rev f4d229169a37... on main: 2 changes
/// f4d229169a37... 2026-10-01T08:00:04Z usr_editor [operation] updated: Raise the risk of S-1001
///   risk_score: 32 -> 90
/// ```
pub fn history(h: &History, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} rev {} on {}: {}",
        h.record,
        short_rev(&h.revision),
        h.branch,
        count(h.total, "change", "changes")
    ));
    l.list(&h.entries, "changes", "", |l, e| history_entry(l, e, ""));
    l.begin_footer();
    if let Some(c) = &h.next_cursor {
        l.line(format!("next_cursor: {c}"));
    }
    l.into_text()
}

/// One history entry: its header line and its attribute changes.
pub fn history_entry(l: &mut Lines<'_>, e: &HistoryEntry, prefix: &str) {
    let mut line = format!(
        "{prefix}{} {} {} [{}] {}",
        short_rev(&e.revision),
        e.time,
        e.author,
        e.origin_type.as_str(),
        e.change.as_str()
    );
    if !e.message.is_empty() {
        line.push_str(&format!(
            ": {}",
            inline_text(&e.message, l.caps().max_value_chars)
        ));
    }
    l.line(line);
    attribute_changes(l, &e.changes, "  ");
}

/// Attribute changes: `attr: before -> after` per line when the values are
/// known, else one `changed: a, b` line.
pub fn attribute_changes(l: &mut Lines<'_>, changes: &[AttributeChange], indent: &str) {
    if changes.is_empty() {
        return;
    }
    let with_values = changes
        .iter()
        .any(|c| c.before.is_some() || c.after.is_some());
    if with_values {
        l.list(changes, "attributes", indent, |l, c| {
            let before = l.val(c.before.as_ref().unwrap_or(&Value::Null));
            let after = l.val(c.after.as_ref().unwrap_or(&Value::Null));
            l.line(format!("{indent}{}: {before} -> {after}", c.attribute));
        });
    } else {
        let names: Vec<&str> = changes.iter().map(|c| c.attribute.as_str()).collect();
        let max = l.caps().max_items;
        let mut line = format!(
            "{indent}changed: {}",
            names[..names.len().min(max)].join(", ")
        );
        if names.len() > max {
            line.push_str(&format!(" ... {} more attributes", names.len() - max));
        }
        l.line(line);
    }
}

/// `lorebase_lineage`: per current value, which Revision, actor and origin set
/// it, then SOURCES and one PROPOSAL line per Proposal.
///
/// ```text
/// Supplier/S-1001 rev f4d229169a37... on main (2 changes)
/// created <- usr_loader at 2026-10-01T08:00:03Z in 97ce9a2ce272...
/// risk_score = 90 <- operation by usr_editor at 2026-10-01T08:00:04Z in f4d229169a37... operation update_supplier
/// ```
pub fn lineage(g: &Lineage, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} rev {} on {} ({})",
        g.record,
        short_rev(&g.revision),
        g.branch,
        count(g.changes, "change", "changes")
    ));
    l.line(created(&g.created));
    l.list(&g.attributes, "attributes", "", attribute_lineage);
    l.begin_footer();
    if !g.sources.is_empty() {
        let names: Vec<String> = g.sources.iter().map(source).collect();
        let shown: Vec<&str> = names
            .iter()
            .take(caps.max_items)
            .map(String::as_str)
            .collect();
        let mut line = format!("SOURCES: {}", shown.join("; "));
        if names.len() > shown.len() {
            line.push_str(&format!("; ... {} more Sources", names.len() - shown.len()));
        }
        l.line(line);
    }
    l.list(&g.proposals, "proposals", "", |l, p| {
        let line = format!("PROPOSAL {}", proposal(p, l.caps().max_value_chars));
        l.line(line);
    });
    l.into_text()
}

fn created(o: &Origin) -> String {
    format!(
        "created <- {} at {} in {}",
        o.actor,
        o.time,
        short_rev(&o.revision)
    )
}

/// `attr = value <- origin by actor at time in rev[ operation op][ source s][ proposal p]`,
/// then the extraction evidence line when the value came from a document.
pub fn attribute_lineage(l: &mut Lines<'_>, a: &AttributeLineage) {
    let line = format!(
        "{} = {} <- {}",
        a.attribute,
        l.val(&a.value),
        origin(&a.origin)
    );
    l.line(line);
    if let Some(e) = &a.origin.evidence {
        let mut line = format!(
            "  extracted from document {} [{}:{}] by {}",
            e.document_id, e.start, e.end, e.model
        );
        if let Some(q) = &e.quote {
            line.push_str(&format!(": {}", quoted(q, l.caps().max_value_chars)));
        }
        l.line(line);
    }
}

/// `origin by actor at time in rev`, with the Operation, Source and Proposal.
pub fn origin(o: &Origin) -> String {
    let mut line = format!(
        "{} by {} at {} in {}",
        o.origin_type.as_str(),
        o.actor,
        o.time,
        short_rev(&o.revision)
    );
    if let Some(op) = &o.operation {
        line.push_str(&format!(" operation {op}"));
    }
    if let Some(s) = &o.source {
        line.push_str(&format!(" source {s}"));
    }
    if let Some(p) = &o.proposal {
        line.push_str(&format!(" proposal {}", p.id));
    }
    line
}

/// `prop_1 merged "title" branch agent/x/y`.
pub fn proposal(p: &ProposalRef, max_value_chars: usize) -> String {
    let mut line = format!("{} {}", p.id, p.status.as_str());
    if let Some(t) = &p.title {
        line.push_str(&format!(" {}", quoted(t, max_value_chars)));
    }
    if let Some(b) = &p.branch {
        line.push_str(&format!(" branch {b}"));
    }
    line
}

/// `lorebase_explain`: how the Record was created, per attribute its value and
/// last change, then its Links and the Proposals that changed it.
pub fn explain(x: &Explain, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} {} rev {} on {}",
        x.record,
        quoted(&x.title, caps.max_value_chars),
        short_rev(&x.revision),
        x.branch
    ));
    l.line(format!("created <- {}", origin(&x.created)));
    l.list(&x.attributes, "attributes", "", attribute_lineage);
    if let Some(links) = &x.links {
        l.line(format!("LINKS ({})", links.len()));
        l.list(links, "links", "  ", |l, k| {
            l.line(format!("  {}", link(k)));
        });
    }
    l.begin_footer();
    if let Some(props) = &x.proposals {
        l.line(format!("PROPOSALS ({})", props.len()));
        l.list(props, "proposals", "  ", |l, p| {
            let line = format!("  {}", proposal(p, l.caps().max_value_chars));
            l.line(line);
        });
    }
    l.into_text()
}
