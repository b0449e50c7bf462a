//! The output caps (herald.md, Output size): `max_chars` for a whole output,
//! `max_items` for a list, `max_value_chars` for one value. Every cut is
//! marked, never inside a UTF-8 character; a capped JSON answer is still valid
//! JSON and lists its cuts under `cuts`.

use serde_json::{Value, json};

use crate::config::OutputSettings;

/// Keys whose subtrees are never cut: a cut predicate or cursor would be wrong,
/// not just short.
const UNCUT_KEYS: [&str; 5] = ["where", "next_cursor", "cursor", "query_vector", "cuts"];

/// Keys whose strings are identifiers an agent passes back (a Revision id, a
/// head, a ref, a branch, a Proposal id, a KB path): never cut, however
/// tight the caps; the long text around them is cut instead.
const IDENTIFIER_KEYS: [&str; 17] = [
    "ref",
    "revision",
    "head",
    "parent",
    "from",
    "to",
    "since",
    "id",
    "branch",
    "target",
    "name",
    "kind",
    "attribute",
    "relation",
    "operation",
    "document_id",
    "path",
];

/// Keys whose subtrees are a Domain's data (attribute values), whatever
/// their own keys are called: cut like any text.
const DATA_KEYS: [&str; 4] = ["values", "value", "before", "after"];

/// Whether the string at JSON Pointer `path` is an identifier: its key (or,
/// in a list, the list's key) is one of [`IDENTIFIER_KEYS`], and it is not
/// inside a Domain's data.
fn is_identifier(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    if segments.iter().any(|s| DATA_KEYS.contains(s)) {
        return false;
    }
    segments
        .iter()
        .rev()
        .find(|s| s.parse::<usize>().is_err())
        .is_some_and(|key| IDENTIFIER_KEYS.contains(key))
}

/// The shortest a string is cut to when a JSON answer still exceeds `max_chars`.
const MIN_VALUE_CHARS: usize = 16;

/// Cuts listed one by one under `cuts`; the rest are counted in one entry.
const MAX_LISTED_CUTS: usize = 8;

/// The first `n` characters of `s` (a prefix ending on a character boundary).
pub fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Cuts one value to `max_chars` characters, marking the cut:
/// `abc... [truncated: 120 more chars]`.
pub fn cut_value(s: &str, max_chars: usize) -> String {
    let total = s.chars().count();
    if total <= max_chars {
        return s.to_string();
    }
    let kept = prefix_chars(s, max_chars);
    format!("{kept}... [truncated: {} more chars]", total - max_chars)
}

/// Cuts one field of an error to about `max_chars` characters, keeping its
/// start and its end (where an echoed value is followed by what was
/// expected): `abc... [truncated: 120 chars] ...xyz`. The kept characters
/// never exceed `max_chars`; the marker is added to them.
pub fn cut_middle(s: &str, max_chars: usize) -> String {
    let total = s.chars().count();
    if total <= max_chars {
        return s.to_string();
    }
    let tail = max_chars / 4;
    let head = max_chars - tail;
    let start = prefix_chars(s, head);
    let end_at = s
        .char_indices()
        .nth(total - tail)
        .map_or(s.len(), |(i, _)| i);
    let end = &s[end_at..];
    let omitted = total - head - tail;
    if end.is_empty() {
        format!("{start}... [truncated: {omitted} chars]")
    } else {
        format!("{start}... [truncated: {omitted} chars] ...{end}")
    }
}

/// One cut of a JSON answer, listed under `cuts`.
#[derive(Debug, Clone, PartialEq)]
struct Cut {
    /// JSON Pointer of the cut list or string.
    path: String,
    /// Items or characters left out.
    omitted: usize,
    /// `items` or `chars`.
    unit: &'static str,
}

/// Caps a JSON answer: strings to `max_value_chars`, lists to `max_items`, then
/// the whole serialized answer to `max_chars` by halving its largest lists and
/// then its longest strings. Cuts are listed in a top-level `cuts` array of
/// `{"path", "omitted", "unit"}` (JSON Pointer, count, `items` or `chars`).
pub fn cap_json(mut value: Value, caps: &OutputSettings) -> Value {
    let mut cuts = Vec::new();
    cap_strings(
        &mut value,
        &mut String::new(),
        caps.max_value_chars,
        &mut cuts,
    );
    cap_lists(&mut value, &mut String::new(), caps.max_items, &mut cuts);
    let mut value_limit = caps.max_value_chars;
    let mut listed = MAX_LISTED_CUTS;
    loop {
        let size = serialized_len(&value, &cuts, listed);
        if size <= caps.max_chars {
            break;
        }
        if let Some(path) = largest_list(&value, 2) {
            halve_list(&mut value, &path, &mut cuts);
            continue;
        }
        if value_limit > MIN_VALUE_CHARS {
            value_limit = (value_limit / 2).max(MIN_VALUE_CHARS);
            cap_strings(&mut value, &mut String::new(), value_limit, &mut cuts);
            continue;
        }
        if let Some(path) = largest_list(&value, 1) {
            halve_list(&mut value, &path, &mut cuts);
            continue;
        }
        if listed > 0 {
            // List fewer cuts one by one; the others are counted in one entry.
            listed = listed.min(cuts.len()) / 2;
            continue;
        }
        // Nothing left to cut without breaking the shape: keep it, marked.
        cuts.insert(
            0,
            Cut {
                path: String::new(),
                omitted: size - caps.max_chars,
                unit: "chars over max_chars",
            },
        );
        listed = listed.max(1);
        break;
    }
    attach_cuts(&mut value, &cuts, listed);
    value
}

/// The length in characters of `value` serialized with its cuts attached,
/// counted while serializing (no copy of the text; no copy of the value
/// unless there are cuts to attach).
fn serialized_len(value: &Value, cuts: &[Cut], listed: usize) -> usize {
    let mut counter = CharCounter(0);
    let written = if cuts.is_empty() {
        serde_json::to_writer(&mut counter, value)
    } else {
        let mut v = value.clone();
        attach_cuts(&mut v, cuts, listed);
        serde_json::to_writer(&mut counter, &v)
    };
    written.map_or(0, |()| counter.0)
}

/// Counts the UTF-8 characters written to it (the bytes that do not
/// continue a character).
struct CharCounter(usize);

impl std::io::Write for CharCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.iter().filter(|b| (**b & 0xC0) != 0x80).count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lists the first `listed` cuts, and counts the others in one entry.
fn attach_cuts(value: &mut Value, cuts: &[Cut], listed: usize) {
    if cuts.is_empty() {
        return;
    }
    if let Value::Object(map) = value {
        let mut list: Vec<Value> = cuts
            .iter()
            .take(listed)
            .map(|c| json!({"path": c.path, "omitted": c.omitted, "unit": c.unit}))
            .collect();
        if cuts.len() > listed {
            let more = cuts.len() - listed;
            list.push(json!({"path": "", "omitted": more, "unit": "more cuts"}));
        }
        map.insert("cuts".into(), Value::Array(list));
    }
}

fn record(cuts: &mut Vec<Cut>, path: String, omitted: usize, unit: &'static str) {
    if let Some(c) = cuts.iter_mut().find(|c| c.path == path && c.unit == unit) {
        c.omitted += omitted;
    } else {
        cuts.push(Cut {
            path,
            omitted,
            unit,
        });
    }
}

fn child_path(path: &str, key: &str) -> String {
    let mut child = String::with_capacity(path.len() + key.len() + 1);
    child.push_str(path);
    child.push('/');
    push_escaped(&mut child, key);
    child
}

/// Calls `f` on each child of `value` with `path` extended to the child's
/// JSON Pointer (one buffer for the whole walk, restored after each child).
fn for_each_child(
    value: &mut Value,
    path: &mut String,
    mut f: impl FnMut(&mut Value, &mut String),
) {
    let parent = path.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if !UNCUT_KEYS.contains(&k.as_str()) {
                    path.push('/');
                    push_escaped(path, k);
                    f(v, path);
                    path.truncate(parent);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                use std::fmt::Write as _;
                let _ = write!(path, "/{i}");
                f(v, path);
                path.truncate(parent);
            }
        }
        _ => {}
    }
}

/// Appends `key` as a JSON Pointer reference token (`~` as `~0`, `/` as `~1`).
fn push_escaped(path: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

fn cap_strings(value: &mut Value, path: &mut String, max: usize, cuts: &mut Vec<Cut>) {
    if let Value::String(s) = value {
        if is_identifier(path) {
            return;
        }
        let total = s.chars().count();
        if total > max {
            // A string cut before keeps its marker; cut only the kept part again.
            let (body, before) = split_marker(s);
            let body_total = body.chars().count();
            if body_total > max {
                let omitted = body_total - max + before;
                *s = format!(
                    "{}... [truncated: {omitted} more chars]",
                    prefix_chars(body, max)
                );
                record(cuts, path.to_string(), body_total - max, "chars");
            }
        }
        return;
    }
    for_each_child(value, path, |v, p| cap_strings(v, p, max, cuts));
}

/// Splits a previously cut string into its kept text and the count it names.
fn split_marker(s: &str) -> (&str, usize) {
    if let Some(i) = s.rfind("... [truncated: ") {
        let rest = &s[i + "... [truncated: ".len()..];
        if let Some(n) = rest
            .strip_suffix(" more chars]")
            .and_then(|n| n.parse().ok())
        {
            return (&s[..i], n);
        }
    }
    (s, 0)
}

fn cap_lists(value: &mut Value, path: &mut String, max: usize, cuts: &mut Vec<Cut>) {
    if let Value::Array(items) = value
        && items.len() > max
    {
        let omitted = items.len() - max;
        items.truncate(max);
        record(cuts, path.to_string(), omitted, "items");
    }
    for_each_child(value, path, |v, p| cap_lists(v, p, max, cuts));
}

/// The JSON Pointer of the list (with `min_len` items or more) that takes the
/// most room.
fn largest_list(value: &Value, min_len: usize) -> Option<String> {
    fn walk(value: &Value, path: &str, min_len: usize, best: &mut Option<(usize, String)>) {
        let children: Vec<(&Value, String)> = match value {
            Value::Object(map) => map
                .iter()
                .filter(|(k, _)| !UNCUT_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (v, child_path(path, k)))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (v, format!("{path}/{i}")))
                .collect(),
            _ => return,
        };
        if let Value::Array(items) = value
            && items.len() >= min_len
        {
            let size = serde_json::to_string(value).map_or(0, |s| s.len());
            if best.as_ref().is_none_or(|(b, _)| size > *b) {
                *best = Some((size, path.to_string()));
            }
        }
        for (v, p) in children {
            walk(v, &p, min_len, best);
        }
    }
    let mut best = None;
    walk(value, "", min_len, &mut best);
    best.map(|(_, p)| p)
}

fn halve_list(value: &mut Value, path: &str, cuts: &mut Vec<Cut>) {
    if let Some(Value::Array(items)) = value.pointer_mut(path) {
        let keep = items.len() / 2;
        let omitted = items.len() - keep;
        items.truncate(keep);
        record(cuts, path.to_string(), omitted, "items");
    }
}

/// The JSON Schema of the `cuts` list every JSON answer may carry.
pub fn cuts_schema() -> Value {
    json!({
        "type": "array",
        "description": "Present when the output caps cut something: one entry per cut list or value (JSON Pointer, how much was left out, `items` or `chars`).",
        "items": {
            "type": "object",
            "required": ["path", "omitted", "unit"],
            "properties": {
                "path": {"type": "string"},
                "omitted": {"type": "integer", "minimum": 0},
                "unit": {"type": "string"}
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(max_chars: usize, max_items: usize, max_value_chars: usize) -> OutputSettings {
        OutputSettings {
            max_chars,
            max_items,
            max_value_chars,
            schemas: true,
        }
    }

    #[test]
    fn values_are_cut_on_char_boundaries_and_marked() {
        assert_eq!(cut_value("żółć", 10), "żółć");
        assert_eq!(cut_value("żółćżółć", 3), "żół... [truncated: 5 more chars]");
        assert_eq!(cut_value("🦀🦀🦀", 1), "🦀... [truncated: 2 more chars]");
    }

    #[test]
    fn fields_keep_their_start_and_end() {
        assert_eq!(cut_middle("short", 10), "short");
        let long = format!("got \"{}\", expected a boolean", "A".repeat(1000));
        let out = cut_middle(&long, 100);
        assert!(out.starts_with("got \"AAAA"), "{out}");
        assert!(out.ends_with("A\", expected a boolean"), "{out}");
        assert!(out.contains("... [truncated: 926 chars] ..."), "{out}");
        assert_eq!(
            cut_middle("żółćżółć", 4),
            "żół... [truncated: 4 chars] ...ć"
        );
        assert_eq!(cut_middle("abcdef", 3), "abc... [truncated: 3 chars]");
    }

    #[test]
    fn json_lists_and_values_are_cut_and_listed() {
        let v = json!({"rows": (0..10).collect::<Vec<_>>(), "note": "ż".repeat(30),
                       "where": {"attr": "a", "op": "in", "value": (0..10).collect::<Vec<_>>()}});
        let out = cap_json(v, &caps(10_000, 4, 10));
        assert_eq!(out["rows"], json!([0, 1, 2, 3]));
        assert_eq!(
            out["note"],
            json!(format!("{}... [truncated: 20 more chars]", "ż".repeat(10)))
        );
        assert_eq!(out["where"]["value"].as_array().unwrap().len(), 10);
        assert_eq!(
            out["cuts"],
            json!([
                {"path": "/note", "omitted": 20, "unit": "chars"},
                {"path": "/rows", "omitted": 6, "unit": "items"}
            ])
        );
    }

    #[test]
    fn json_fits_max_chars_and_stays_valid() {
        let rows: Vec<Value> = (0..40)
            .map(|i| json!({"ref": format!("Product/P-{i}"), "title": "żółta łódź ".repeat(5)}))
            .collect();
        let out = cap_json(json!({"rows": rows, "total": 40}), &caps(1500, 50, 500));
        let text = serde_json::to_string(&out).unwrap();
        assert!(text.chars().count() <= 1500, "{}", text.chars().count());
        let back: Value = serde_json::from_str(&text).unwrap();
        let kept = back["rows"].as_array().unwrap().len();
        assert!(kept < 40);
        assert_eq!(back["cuts"][0]["path"], "/rows");
        assert_eq!(back["cuts"][0]["omitted"], json!(40 - kept));
    }

    #[test]
    fn json_strings_shrink_when_lists_cannot() {
        let out = cap_json(
            json!({"a": "x".repeat(400), "b": "y".repeat(400)}),
            &caps(300, 50, 500),
        );
        let text = serde_json::to_string(&out).unwrap();
        assert!(text.chars().count() <= 300, "{text}");
        let omitted: u64 = out["cuts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["path"] == "/a")
            .map(|c| c["omitted"].as_u64().unwrap())
            .sum();
        let kept_a = split_marker(out["a"].as_str().unwrap()).0.chars().count() as u64;
        assert_eq!(kept_a + omitted, 400);
        assert!(
            out["a"]
                .as_str()
                .unwrap()
                .ends_with(&format!("[truncated: {omitted} more chars]"))
        );
    }

    #[test]
    fn identifiers_are_never_cut_the_text_around_them_is() {
        let head = "835ef5ccd2c2db28".repeat(4);
        let v = json!({
            "head": head, "branch": "agent/agt_risk_bot/a-long-task-name",
            "message": "m".repeat(300),
            "entries": [{"revision": head, "ref": "Supplier/S-1001", "message": "x".repeat(300),
                         "values": {"name": "n".repeat(300)}}],
            "masked": ["s".repeat(300)],
        });
        let out = cap_json(v, &caps(1000, 50, 20));
        let text = serde_json::to_string(&out).unwrap();
        assert!(text.chars().count() <= 1000, "{text}");
        assert_eq!(out["head"], json!(head));
        assert_eq!(out["branch"], "agent/agt_risk_bot/a-long-task-name");
        assert_eq!(out["entries"][0]["revision"], json!(head));
        assert_eq!(out["entries"][0]["ref"], "Supplier/S-1001");
        for cut in [
            "/message",
            "/entries/0/message",
            "/entries/0/values/name",
            "/masked/0",
        ] {
            let listed = out["cuts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["path"] == cut);
            assert!(listed, "{cut} is cut: {text}");
        }
    }

    #[test]
    fn uncuttable_json_is_marked_not_silent() {
        let out = cap_json(json!({"where": "z".repeat(100)}), &caps(20, 50, 500));
        assert_eq!(out["cuts"][0]["unit"], "chars over max_chars");
    }
}
