//! Text renderings of the reads: schema, one Record, resolve, query, search and
//! neighborhood.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Lines, Text, count, quoted, score, short_id, short_rev};
use crate::config::OutputSettings;
use crate::keeper::model::*;

/// `lorebase_schema`: Kinds (`!` = required), Relations, Operations, Traits,
/// LENSES, Sources, then the SEARCH line.
pub fn schema(s: &Schema, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} rev {} on {}: {}, {}",
        s.domain,
        short_rev(&s.revision),
        s.branch,
        count(s.kinds.len() as u64, "Kind", "Kinds"),
        count(s.relations.len() as u64, "Relation", "Relations")
    ));
    l.line("KINDS");
    l.list(&s.kinds, "Kinds", "", |l, k| {
        let mut head = format!(
            "{} key {} title {}, {}",
            k.name,
            k.key,
            k.title,
            count(k.record_count, "record", "records")
        );
        if !k.traits.is_empty() {
            head.push_str(&format!(", traits {}", l.inline(&k.traits, "Traits")));
        }
        if k.embedded {
            head.push_str(", embedded");
        }
        if let Some(d) = &k.description {
            head.push_str(&format!(": {}", l.val(&Value::String(d.clone()))));
        }
        l.line(head);
        if !k.synonyms.is_empty() {
            l.line(format!("  synonyms: {}", l.inline(&k.synonyms, "synonyms")));
        }
        let attrs: Vec<String> = k.attributes.iter().map(attribute).collect();
        l.line(format!("  {}", l.inline(&attrs, "attributes")));
        for a in k.attributes.iter().take(l.caps().max_items) {
            let mut extra = Vec::new();
            if let Some(d) = &a.description {
                extra.push(l.val(&Value::String(d.clone())));
            }
            if !a.values.is_empty() {
                extra.push(format!("values {}", l.inline(&a.values, "values")));
            }
            if !a.synonyms.is_empty() {
                extra.push(format!("synonyms {}", l.inline(&a.synonyms, "synonyms")));
            }
            if !extra.is_empty() {
                l.line(format!("    {}: {}", a.name, extra.join("; ")));
            }
        }
        if !k.operations.is_empty() {
            l.line(format!("  ops: {}", l.inline(&k.operations, "Operations")));
        }
    });
    if !s.relations.is_empty() {
        l.line("RELATIONS");
        l.list(&s.relations, "Relations", "  ", |l, r| {
            let mut line = format!("  {}: {} -> {} ({})", r.name, r.from, r.to, r.cardinality);
            if let Some(d) = &r.description {
                line.push_str(&format!(": {}", l.val(&Value::String(d.clone()))));
            }
            l.line(line);
        });
    }
    if !s.operations.is_empty() {
        l.line("OPERATIONS");
        l.list(&s.operations, "Operations", "  ", |l, o| {
            let params: Vec<String> = o
                .parameters
                .iter()
                .map(|p| {
                    format!(
                        "{}: {}{}",
                        p.name,
                        p.type_name,
                        if p.required { "!" } else { "" }
                    )
                })
                .collect();
            let mut line = format!("  {}({})", o.name, l.inline(&params, "parameters"));
            if let Some(k) = &o.kind {
                line.push_str(&format!(" on {k}"));
            }
            match o.review_policy.known() {
                Some(ReviewPolicy::None) => line.push_str(", review none"),
                Some(ReviewPolicy::Review) => {
                    line.push_str(", review required (needs task and intent)");
                }
                None => line.push_str(&format!(", review {}", o.review_policy)),
            }
            if let Some(d) = &o.description {
                line.push_str(&format!(": {}", l.val(&Value::String(d.clone()))));
            }
            l.line(line);
        });
    }
    if !s.traits.is_empty() {
        l.line("TRAITS");
        l.list(&s.traits, "Traits", "  ", |l, t| {
            let mut line = format!("  {}: {}", t.name, l.inline(&t.kinds, "Kinds"));
            if !t.attributes.is_empty() {
                line.push_str(&format!(" [{}]", l.inline(&t.attributes, "attributes")));
            }
            l.line(line);
        });
    }
    if !s.lenses.is_empty() {
        l.line("LENSES");
        l.list(&s.lenses, "lenses", "  ", |l, lens| {
            let mut parts = vec![format!("kinds {}", l.inline(&lens.kinds, "Kinds"))];
            if !lens.traits.is_empty() {
                parts.push(format!("traits {}", l.inline(&lens.traits, "Traits")));
            }
            if !lens.relations.is_empty() {
                parts.push(format!(
                    "relations {}",
                    l.inline(&lens.relations, "Relations")
                ));
            }
            if let Some(d) = lens.depth {
                parts.push(format!("depth {d}"));
            }
            if let Some(b) = lens.token_budget {
                parts.push(format!("token_budget {b}"));
            }
            let mut line = format!("  {}: {}", lens.name, parts.join("; "));
            if let Some(d) = &lens.description {
                line.push_str(&format!(" ({})", l.val(&Value::String(d.clone()))));
            }
            l.line(line);
        });
    }
    l.begin_footer();
    if !s.sources.is_empty() {
        l.line("SOURCES");
        l.list(&s.sources, "Sources", "  ", |l, src| {
            l.line(format!("  {}", source(src)));
        });
    }
    l.line(search_line(&s.search));
    l.into_text()
}

fn attribute(a: &AttributeDef) -> String {
    format!(
        "{}: {}{}{}",
        a.name,
        a.type_name,
        if a.required { "!" } else { "" },
        if a.sensitive { " (sensitive)" } else { "" }
    )
}

/// A Source: `name synced <time> fresh until <date> STALE`.
pub fn source(s: &SourceInfo) -> String {
    let mut line = s.name.clone();
    if let Some(t) = &s.synced_at {
        line.push_str(&format!(" synced {t}"));
    }
    if let Some(t) = &s.fresh_until {
        line.push_str(&format!(" fresh until {t}"));
    }
    if s.stale {
        line.push_str(" STALE");
    }
    line
}

fn search_line(s: &SearchInfo) -> String {
    let mut line = format!("SEARCH modes {}", s.modes.join(", "));
    match &s.embedding {
        Some(e) => line.push_str(&format!(
            "; embed query_vector with {} (dimension {})",
            e.model, e.dimension
        )),
        None => line.push_str("; no embedding model (lexical only)"),
    }
    line
}

/// `lorebase_get`: the values, masked attributes, Link counts, and the Links
/// when asked for.
pub fn record(r: &RecordView, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} {} rev {} on {}",
        r.record,
        quoted(&r.title, caps.max_value_chars),
        short_rev(&r.revision),
        r.branch
    ));
    let values: Vec<(&String, &Value)> = r.values.iter().collect();
    l.list(&values, "values", "", |l, (k, v)| {
        let line = format!("{k}: {}", l.val(v));
        l.line(line);
    });
    if !r.masked.is_empty() {
        l.line(format!("masked: {}", l.inline(&r.masked, "masked")));
    }
    l.line(link_counts(&r.link_counts, caps.max_items));
    if let Some(links) = &r.links {
        l.list(links, "links", "  ", |l, k| {
            l.line(format!("  {}", link(k)));
        });
    }
    l.into_text()
}

fn link_counts(counts: &BTreeMap<String, u64>, max_items: usize) -> String {
    if counts.is_empty() {
        return "links: none".into();
    }
    let parts: Vec<String> = counts.iter().map(|(r, n)| format!("{r} {n}")).collect();
    format!(
        "links: {}",
        super::text::inline_list(&parts, "Relations", max_items)
    )
}

/// A Link: `Supplier/S-1 -supplies-> Part/P-1`.
pub fn link(k: &Link) -> String {
    format!("{} -{}-> {}", k.from, k.relation, k.to)
}

/// `lorebase_resolve`, as docs/tools.md's `lorebase_resolve` example shows it.
pub fn resolve(r: &ResolveResponse, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "rev {}: {}",
        short_id(&r.revision, 8),
        count(r.candidates.len() as u64, "candidate", "candidates")
    ));
    let numbered: Vec<(usize, &Candidate)> = r.candidates.iter().enumerate().collect();
    l.list(&numbered, "candidates", "", |l, (i, c)| {
        candidate(l, i + 1, c);
    });
    l.begin_footer();
    if !r.unmatched.is_empty() {
        l.line(format!("unmatched: {}", l.inline(&r.unmatched, "words")));
    }
    if !r.skipped_levels.is_empty() {
        let parts: Vec<String> = r
            .skipped_levels
            .iter()
            .map(|s| format!("{} ({})", s.level.as_str(), s.reason))
            .collect();
        l.line(format!("skipped: {}", l.inline(&parts, "levels")));
    }
    coverage(&mut l, &r.coverage);
    l.into_text()
}

fn candidate(l: &mut Lines<'_>, n: usize, c: &Candidate) {
    let attr = c.attribute.as_deref().unwrap_or("");
    let typ = c
        .attribute_type
        .as_deref()
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    let values = || -> String {
        let values: Vec<String> = c.values.iter().map(|v| l.val(v)).collect();
        l.inline(&values, "values")
    };
    let what = match c.candidate_type.known() {
        Some(CandidateType::Kind) => format!("kind {}", c.kind),
        Some(CandidateType::Attribute) => format!("attribute {}.{attr}{typ}", c.kind),
        Some(CandidateType::Value) => format!("value {}.{attr}{typ} = {}", c.kind, values()),
        // A newer Keeper's candidate type: its name, then what it carries.
        None => {
            let mut what = format!("{} {}", c.candidate_type, c.kind);
            if !attr.is_empty() {
                what.push_str(&format!(".{attr}"));
            }
            what.push_str(&typ);
            if !c.values.is_empty() {
                what.push_str(&format!(" = {}", values()));
            }
            what
        }
    };
    let matched: Vec<String> = c.matched.iter().map(|m| format!("'{m}'")).collect();
    let mut line = format!(
        "{n}. {what} | {} {} for {}",
        c.level.as_str(),
        score(c.score),
        l.inline(&matched, "words")
    );
    if let Some(rc) = c.record_count {
        line.push_str(&format!(", {}", count(rc, "record", "records")));
    }
    l.line(line);
    if let Some(w) = &c.where_predicate {
        l.line(format!(
            "   where: {}",
            serde_json::to_string(w).unwrap_or_default()
        ));
    }
}

fn coverage(l: &mut Lines<'_>, signals: &[CoverageSignal]) {
    l.list(signals, "coverage signals", "", |l, s| {
        let line = format!("coverage: {}", l.val(&Value::String(s.message.clone())));
        l.line(line);
    });
}

/// `lorebase_query`, in docs/tools.md's order: the `count <Kind> <value>: <n>`
/// lines, then the rows `ref "title" | attr=value` with their included
/// neighbors; then a `rows: <shown> of <total> (rev <id>...)` footer,
/// `next_cursor:` and the `coverage:` lines.
pub fn query(q: &QueryResponse, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    if let Some(a) = &q.aggregate {
        l.list(&a.groups, "groups", "", |l, g| {
            let value = match &g.value {
                Value::Null => "(none)".to_string(),
                v => l.val(v),
            };
            l.line(format!("count {} {value}: {}", a.kind, g.count));
        });
    }
    l.list(&q.rows, "rows", "", |l, row| {
        let mut line = format!(
            "{} {}",
            row.record,
            quoted(&row.title, l.caps().max_value_chars)
        );
        for (k, v) in &row.values {
            line.push_str(&format!(" | {k}={}", l.val(v)));
        }
        l.line(line);
        for (relation, neighbors) in &row.included {
            l.list(neighbors, "neighbors", "  ", |l, n| {
                let mut line = format!(
                    "  {relation} -> {} {}",
                    n.record,
                    quoted(&n.title, l.caps().max_value_chars)
                );
                for (k, v) in &n.values {
                    line.push_str(&format!(" | {k}={}", l.val(v)));
                }
                l.line(line);
            });
        }
    });
    l.begin_footer();
    l.line(format!(
        "rows: {} of {} (rev {})",
        q.rows.len(),
        q.total,
        short_rev(&q.revision)
    ));
    if let Some(c) = &q.next_cursor {
        l.line(format!("next_cursor: {c}"));
    }
    coverage(&mut l, &q.coverage);
    l.into_text()
}

/// `lorebase_search`: ranked hits with score and snippet.
pub fn search(s: &SearchResponse, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "{} search rev {}: {}",
        s.mode,
        short_rev(&s.revision),
        count(s.hits.len() as u64, "hit", "hits")
    ));
    let numbered: Vec<(usize, &SearchHit)> = s.hits.iter().enumerate().collect();
    l.list(&numbered, "hits", "", |l, (i, h)| {
        l.line(format!(
            "{}. {} {} {}",
            i + 1,
            h.record,
            quoted(&h.title, l.caps().max_value_chars),
            score(h.score)
        ));
        if !h.snippet.is_empty() {
            let snippet = l.val(&Value::String(h.snippet.clone()));
            l.line(format!("   {snippet}"));
        }
    });
    l.begin_footer();
    if s.truncated_candidates {
        l.line("truncated_candidates: every term was so common that only a sample of the matches was ranked; add rarer words or filters");
    }
    if s.truncated {
        l.line("truncated: the vector list stopped short while more Records match the filters; narrow the filters");
    }
    l.into_text()
}

/// `lorebase_neighborhood`: nodes (with values when asked for), then edges.
pub fn neighborhood(n: &NeighborhoodResponse, caps: &OutputSettings) -> Text {
    let mut l = Lines::new(caps);
    l.line(format!(
        "neighborhood rev {}: {}, {}",
        short_rev(&n.revision),
        count(n.nodes.len() as u64, "node", "nodes"),
        count(n.edges.len() as u64, "edge", "edges")
    ));
    l.list(&n.nodes, "nodes", "", |l, node| {
        l.line(format!(
            "{} {} depth {}",
            node.record,
            quoted(&node.title, l.caps().max_value_chars),
            node.depth
        ));
        if let Some(values) = &node.values {
            let parts: Vec<String> = values
                .iter()
                .map(|(k, v)| format!("{k}={}", l.val(v)))
                .collect();
            if !parts.is_empty() {
                l.line(format!("  {}", parts.join(" | ")));
            }
        }
    });
    if !n.edges.is_empty() {
        l.line("EDGES");
        l.list(&n.edges, "edges", "", |l, e| l.line(link(e)));
    }
    l.begin_footer();
    if n.truncated {
        l.line("truncated: Keeper's node or edge cap stopped the walk; lower depth, name relations or raise max_nodes/max_edges");
    }
    l.into_text()
}
