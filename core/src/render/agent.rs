//! Text renderings of the agent endpoints: the context pack (markdown) and an
//! Operation run.

use serde_json::Value;

use super::provenance::{attribute_changes, attribute_lineage, history_entry};
use super::reads::link;
use super::{Lines, Text, count, inline_text, quoted, short_rev};
use crate::config::OutputSettings;
use crate::keeper::model::*;

/// `lorebase_context`: Keeper's pack as markdown (seeds with values,
/// neighbors, Links, schema, recent changes, lineage, what the budget trimmed).
pub fn context(p: &ContextPack, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "# Context: {} on {} rev {} (~{} of {} tokens)",
        count(p.seeds.len() as u64, "seed", "seeds"),
        p.branch,
        short_rev(&p.revision),
        p.token_estimate,
        p.token_budget
    ));
    if let Some(q) = &p.question {
        l.line(format!(
            "Question: {}",
            inline_text(q, caps.max_value_chars)
        ));
    }
    l.line("## Seeds");
    l.list(&p.seeds, "seeds", "", |l, r| {
        l.line(format!(
            "### {} {}",
            r.record,
            quoted(&r.title, l.caps().max_value_chars)
        ));
        let values: Vec<(&String, &Value)> = r.values.iter().collect();
        l.list(&values, "values", "", |l, (k, v)| {
            let line = format!("- {k}: {}", l.val(v));
            l.line(line);
        });
        if !r.masked.is_empty() {
            l.line(format!("- masked: {}", l.inline(&r.masked, "masked")));
        }
        if !r.link_counts.is_empty() {
            let parts: Vec<String> = r
                .link_counts
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            l.line(format!("- links: {}", l.inline(&parts, "Relations")));
        }
    });
    if !p.neighbors.is_empty() {
        l.line("## Neighbors");
        l.list(&p.neighbors, "neighbors", "", |l, n| {
            let line = format!(
                "- {} {}",
                n.record,
                quoted(&n.title, l.caps().max_value_chars)
            );
            l.line(line);
        });
    }
    if !p.links.is_empty() {
        l.line("## Links");
        l.list(&p.links, "links", "", |l, k| {
            l.line(format!("- {}", link(k)));
        });
    }
    if !p.schema.is_empty() {
        l.line("## Schema");
        l.list(&p.schema, "Kinds", "", |l, k| {
            let attrs: Vec<String> = k
                .attributes
                .iter()
                .map(|a| {
                    format!(
                        "{}: {}{}",
                        a.name,
                        a.type_name,
                        if a.required { "!" } else { "" }
                    )
                })
                .collect();
            l.line(format!(
                "- {} (key {}, title {}): {}",
                k.name,
                k.key,
                k.title,
                l.inline(&attrs, "attributes")
            ));
        });
    }
    if !p.recent_changes.is_empty() {
        l.line("## Recent changes");
        l.list(&p.recent_changes, "changes", "", |l, c| {
            history_entry(l, &c.entry, &format!("- {} ", c.record));
        });
    }
    if !p.lineage.is_empty() {
        l.line("## Lineage");
        l.list(&p.lineage, "values", "", |l, g| {
            let mut sub = Lines::new(l.caps());
            attribute_lineage(&mut sub, &g.lineage);
            for (i, line) in sub.into_string().lines().enumerate() {
                if i == 0 {
                    l.line(format!("- {} {line}", g.record));
                } else {
                    l.line(format!("  {line}"));
                }
            }
        });
    }
    l.begin_footer();
    if !p.trimmed.is_empty() {
        let parts: Vec<String> = p
            .trimmed
            .iter()
            .map(|t| format!("{} {}", t.section, t.dropped))
            .collect();
        l.line(format!(
            "trimmed to the budget: {} (raise token_budget for more)",
            parts.join(", ")
        ));
    }
    l.into_text()
}

/// `lorebase_execute`: status, edits, violations, warnings, the new Revision,
/// the Proposal, and the `next` steps.
pub fn execute(r: &ExecuteResult, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} {} on {} from head {}{}",
        r.operation,
        r.status.as_str(),
        r.branch,
        r.head,
        if r.replayed {
            " (replayed for the same idempotency_key)"
        } else {
            ""
        }
    ));
    l.line(format!("edits: {}", r.edits.len()));
    l.list(&r.edits, "edits", "", |l, e| {
        // A change this Herald does not know is marked `*` and named as it is.
        let op = match e.change.known() {
            Some(ChangeType::Created) => "+",
            Some(ChangeType::Updated) => "~",
            Some(ChangeType::Deleted) => "-",
            None => "*",
        };
        l.line(format!("{op} {} {}", e.record, e.change.as_str()));
        attribute_changes(l, &e.changes, "  ");
    });
    l.begin_footer();
    if !r.violations.is_empty() {
        l.line(format!("violations: {}", r.violations.len()));
        l.list(&r.violations, "violations", "  ", |l, v| {
            let line = format!(
                "  {}: {}",
                v.path,
                inline_text(&v.message, l.caps().max_value_chars)
            );
            l.line(line);
        });
    }
    if !r.warnings.is_empty() {
        l.line(format!("warnings: {}", r.warnings.len()));
        l.list(&r.warnings, "warnings", "  ", |l, w| {
            let line = format!("  {}", inline_text(w, l.caps().max_value_chars));
            l.line(line);
        });
    }
    if let Some(rev) = &r.revision {
        l.line(format!("revision: {rev}"));
    }
    if let Some(p) = &r.proposal {
        let mut line = format!(
            "proposal: {} {} {} -> {}",
            p.id,
            p.status.as_str(),
            p.branch,
            p.target
        );
        if let Some(t) = &p.title {
            line.push_str(&format!(" {}", quoted(t, caps.max_value_chars)));
        }
        l.line(line);
    }
    l.list(&r.next, "next steps", "", |l, n| {
        let line = format!("next: {}", inline_text(n, l.caps().max_value_chars));
        l.line(line);
    });
    l.into_text()
}
