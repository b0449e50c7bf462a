//! The text and JSON renderings of `kb_search` hits and `kb_get` entries
//! (before the output caps).

use serde_json::{Map, Value, json};

use crate::kb::{KbEntry, KbHit};

/// A score rounded to 4 decimals for display.
fn rounded(score: f32) -> f64 {
    (f64::from(score) * 10_000.0).round() / 10_000.0
}

fn one_line(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn put(map: &mut Map<String, Value>, key: &str, value: &Option<String>) {
    if let Some(value) = value {
        map.insert(key.into(), Value::String(value.clone()));
    }
}

/// An entry's fields: `path`, `type`, `title`, `description`, `resource`,
/// `tags`, then `status`, `last_validated` when it has them; `whole` adds
/// `alert_resource` (after `resource`), `timestamp` and `fingerprint`.
///
/// A search hit always carries `description`, `resource` and `tags` (empty
/// when the entry has none, so a hit's shape never varies); a whole
/// entry (`kb_get`) has the fields its frontmatter has.
fn entry_fields(entry: &KbEntry, whole: bool) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("path".into(), json!(entry.path));
    map.insert("type".into(), json!(entry.kind.clone().unwrap_or_default()));
    map.insert("title".into(), json!(entry.title));
    if whole {
        put(&mut map, "description", &entry.description);
        put(&mut map, "resource", &entry.resource);
        put(&mut map, "alert_resource", &entry.alert_resource);
    } else {
        let text = |value: &Option<String>| json!(value.as_deref().unwrap_or_default());
        map.insert("description".into(), text(&entry.description));
        map.insert("resource".into(), text(&entry.resource));
    }
    if !whole || !entry.tags.is_empty() {
        map.insert("tags".into(), json!(entry.tags));
    }
    put(&mut map, "status", &entry.status);
    put(&mut map, "last_validated", &entry.last_validated);
    if whole {
        put(&mut map, "timestamp", &entry.timestamp);
        put(&mut map, "fingerprint", &entry.fingerprint);
    }
    map
}

/// One hit: the entry's fields (without the curated ones), then `score`.
pub fn hit_json(hit: &KbHit) -> Value {
    let mut map = entry_fields(&hit.entry, false);
    map.insert("score".into(), json!(rounded(hit.score)));
    Value::Object(map)
}

/// `{"query": ..., "hits": [...]}`.
pub fn search_json(query: &str, hits: &[KbHit]) -> Value {
    json!({
        "query": query,
        "hits": hits.iter().map(hit_json).collect::<Vec<_>>(),
    })
}

/// `N hits for "query"`, then per hit a numbered line (path, `[type]`,
/// title, score) and indented lines for the fields it has.
pub fn search_text(query: &str, hits: &[KbHit]) -> String {
    let quoted = serde_json::to_string(&one_line(query)).unwrap_or_default();
    if hits.is_empty() {
        return format!("no hits for {quoted}");
    }
    let noun = if hits.len() == 1 { "hit" } else { "hits" };
    let mut out = format!("{} {noun} for {quoted}, best first\n", hits.len());
    for (n, hit) in hits.iter().enumerate() {
        let entry = &hit.entry;
        let kind = entry
            .kind
            .as_deref()
            .map(|k| format!(" [{}]", one_line(k)))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}. {}{kind} {} | score {:.3}\n",
            n + 1,
            entry.path,
            one_line(&entry.title),
            hit.score
        ));
        if let Some(description) = &entry.description {
            out.push_str(&format!("   {}\n", one_line(description)));
        }
        let mut facts = Vec::new();
        if let Some(resource) = &entry.resource {
            facts.push(format!("resource: {}", one_line(resource)));
        }
        if !entry.tags.is_empty() {
            facts.push(format!("tags: {}", entry.tags.join(", ")));
        }
        if let Some(status) = &entry.status {
            facts.push(format!("status: {}", one_line(status)));
        }
        if let Some(validated) = &entry.last_validated {
            facts.push(format!("last_validated: {}", one_line(validated)));
        }
        if !facts.is_empty() {
            out.push_str(&format!("   {}\n", facts.join(" | ")));
        }
    }
    out.pop();
    out
}

/// The whole entry: its fields (those it has), then `body`.
pub fn entry_json(entry: &KbEntry) -> Value {
    let mut map = entry_fields(entry, true);
    map.insert("body".into(), json!(entry.body));
    Value::Object(map)
}

/// The entry as markdown: `key: value` lines between `---` lines (path
/// first), then the body.
pub fn entry_text(entry: &KbEntry) -> String {
    let mut out = String::from("---\n");
    let mut line = |key: &str, value: &str| {
        let value = value.trim().replace('\n', "\n  ");
        out.push_str(&format!("{key}: {value}\n"));
    };
    line("path", &entry.path);
    if let Some(kind) = &entry.kind {
        line("type", kind);
    }
    line("title", &entry.title);
    for (key, value) in [
        ("description", &entry.description),
        ("resource", &entry.resource),
        ("alert_resource", &entry.alert_resource),
    ] {
        if let Some(value) = value {
            line(key, value);
        }
    }
    if !entry.tags.is_empty() {
        line("tags", &format!("[{}]", entry.tags.join(", ")));
    }
    for (key, value) in [
        ("status", &entry.status),
        ("last_validated", &entry.last_validated),
        ("timestamp", &entry.timestamp),
        ("fingerprint", &entry.fingerprint),
    ] {
        if let Some(value) = value {
            line(key, value);
        }
    }
    out.push_str("---\n");
    out.push_str(&entry.body);
    out
}
