//! The output caps (docs/tools.md, "Output caps"): `max_chars` for a whole output,
//! `max_items` for a list, `max_value_chars` for one value. Every cut is
//! marked, never inside a UTF-8 character; a capped JSON answer is still valid
//! JSON and lists its cuts under `cuts`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::config::OutputSettings;
use crate::keeper::model::IDENTIFIER_MARK;

/// The list the caps write (`cuts`): never cut by them.
const CUTS_KEY: &str = "cuts";

/// The values of an answer that are never cut, however tight the caps:
/// identifiers an agent passes back (a Revision id, a head, a ref, a
/// branch, a Proposal id, a KB path), cursors, `where` predicates and
/// query vectors, kept whole; the long text around them is cut instead.
/// They are the fields the answer's type marks
/// ([`crate::keeper::model::Uncut`]), collected once
/// from its schema ([`Identifiers::from_schema`]): the wire type is the
/// rule's one owner, and a field it does not mark (an attribute value, a
/// remote tool's answer) is cut like any text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identifiers {
    /// The value here is kept whole (each string and item in it).
    marked: bool,
    /// Per property, and `*` for any list item or map value.
    children: BTreeMap<String, Identifiers>,
}

impl Identifiers {
    /// No identifiers: every string may be cut.
    pub const NONE: Self = Self {
        marked: false,
        children: BTreeMap::new(),
    };

    /// The identifiers a JSON Schema marks: the (sub)schemas with
    /// `"x-identifier": true`, reached through `properties`, `items`,
    /// `prefixItems`, `additionalProperties`, `allOf`, `anyOf`, `oneOf`
    /// and local `$ref`s (a recursive type's marks down to its first
    /// recursion: no answer type is recursive).
    pub fn from_schema(schema: &Value) -> Self {
        let mut ids = Self::default();
        ids.collect(schema, schema, &mut Vec::new());
        ids
    }

    /// Adds the marks of `schema` (a subschema of `root`) at this node;
    /// `refs` are the `$ref`s being followed.
    fn collect<'a>(&mut self, schema: &'a Value, root: &'a Value, refs: &mut Vec<&'a str>) {
        let Value::Object(obj) = schema else { return };
        if obj.get(IDENTIFIER_MARK) == Some(&Value::Bool(true)) {
            self.marked = true;
        }
        if let Some(Value::String(reference)) = obj.get("$ref")
            && !refs.contains(&reference.as_str())
            && let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p))
        {
            refs.push(reference);
            self.collect(target, root, refs);
            refs.pop();
        }
        if let Some(Value::Object(properties)) = obj.get("properties") {
            for (name, property) in properties {
                let mut key = String::new();
                push_escaped(&mut key, name);
                self.child(key).collect(property, root, refs);
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(sub) = obj.get(key) {
                self.child("*".into()).collect(sub, root, refs);
            }
        }
        if let Some(Value::Array(items)) = obj.get("prefixItems") {
            for sub in items {
                self.child("*".into()).collect(sub, root, refs);
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(subs)) = obj.get(key) {
                for sub in subs {
                    self.collect(sub, root, refs);
                }
            }
        }
        self.children
            .retain(|_, c| c.marked || !c.children.is_empty());
    }

    fn child(&mut self, key: String) -> &mut Self {
        self.children.entry(key).or_default()
    }

    /// The node of the child `key` (a property, or `*` for an item).
    fn below(&self, key: &str) -> Option<&Self> {
        self.children.get(key).or_else(|| self.children.get("*"))
    }

    /// Whether the value at JSON Pointer `path` is kept whole.
    #[cfg(test)]
    fn contains(&self, path: &str) -> bool {
        let mut node = self;
        for segment in path.split('/').skip(1) {
            if node.marked {
                return true;
            }
            match node.below(segment) {
                Some(child) => node = child,
                None => return false,
            }
        }
        node.marked
    }
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
/// then its longest strings; the strings `ids` marks are never cut. Cuts are
/// listed in a top-level `cuts` array of `{"path", "omitted", "unit"}` (JSON
/// Pointer, count, `items` or `chars`).
pub fn cap_json(mut value: Value, caps: &OutputSettings, ids: &Identifiers) -> Value {
    let mut cuts = Vec::new();
    cap_strings(
        &mut value,
        &mut String::new(),
        caps.max_value_chars,
        Some(ids),
        &mut cuts,
    );
    let max_items = caps.max_items;
    cap_lists(
        &mut value,
        &mut String::new(),
        max_items,
        Some(ids),
        &mut cuts,
    );
    let mut value_limit = caps.max_value_chars;
    let mut listed = MAX_LISTED_CUTS;
    loop {
        let size = serialized_len(&value, &cuts, listed);
        if size <= caps.max_chars {
            break;
        }
        if let Some(path) = largest_list(&value, 2, ids) {
            halve_list(&mut value, &path, &mut cuts);
            continue;
        }
        if value_limit > MIN_VALUE_CHARS {
            value_limit = (value_limit / 2).max(MIN_VALUE_CHARS);
            let limit = value_limit;
            cap_strings(&mut value, &mut String::new(), limit, Some(ids), &mut cuts);
            continue;
        }
        if let Some(path) = largest_list(&value, 1, ids) {
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

/// Where a walk is in an answer's [`Identifiers`] (`None`: below any mark).
type Node<'a> = Option<&'a Identifiers>;

/// The node of the child `key` of the value at `node`, and whether that
/// child may be cut (it is not kept whole, nor the caps' own `cuts`).
fn child_node<'a>(node: Node<'a>, key: &str) -> (Node<'a>, bool) {
    let child = node.and_then(|n| n.below(key));
    (child, key != CUTS_KEY && !child.is_some_and(|c| c.marked))
}

/// Calls `f` on each child of `value` that may be cut, with `path` extended
/// to the child's JSON Pointer (one buffer for the whole walk, restored
/// after each child) and its node of the identifiers (`node`'s child).
fn for_each_child(
    value: &mut Value,
    path: &mut String,
    node: Node,
    mut f: impl FnMut(&mut Value, &mut String, Node),
) {
    let parent = path.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                let (child, cuttable) = child_node(node, k);
                if cuttable {
                    path.push('/');
                    push_escaped(path, k);
                    f(v, path, child);
                    path.truncate(parent);
                }
            }
        }
        Value::Array(items) => {
            let (child, cuttable) = child_node(node, "*");
            if !cuttable {
                return;
            }
            for (i, v) in items.iter_mut().enumerate() {
                use std::fmt::Write as _;
                let _ = write!(path, "/{i}");
                f(v, path, child);
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

fn cap_strings(value: &mut Value, path: &mut String, max: usize, node: Node, cuts: &mut Vec<Cut>) {
    if let Value::String(s) = value {
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
    for_each_child(value, path, node, |v, p, n| cap_strings(v, p, max, n, cuts));
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

fn cap_lists(value: &mut Value, path: &mut String, max: usize, node: Node, cuts: &mut Vec<Cut>) {
    if let Value::Array(items) = value
        && items.len() > max
    {
        let omitted = items.len() - max;
        items.truncate(max);
        record(cuts, path.to_string(), omitted, "items");
    }
    for_each_child(value, path, node, |v, p, n| cap_lists(v, p, max, n, cuts));
}

/// The JSON Pointer of the list (with `min_len` items or more, not kept
/// whole by `ids`) that takes the most room.
fn largest_list(value: &Value, min_len: usize, ids: &Identifiers) -> Option<String> {
    type Best = Option<(usize, String)>;
    fn walk(value: &Value, path: &str, node: Node, min: usize, best: &mut Best) {
        let children: Vec<(&Value, String, Node)> = match value {
            Value::Object(map) => map
                .iter()
                .filter_map(|(k, v)| {
                    let (child, cuttable) = child_node(node, k);
                    cuttable.then(|| (v, child_path(path, k), child))
                })
                .collect(),
            Value::Array(items) => match child_node(node, "*") {
                (child, true) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v, format!("{path}/{i}"), child))
                    .collect(),
                (_, false) => Vec::new(),
            },
            _ => return,
        };
        if let Value::Array(items) = value
            && items.len() >= min
        {
            let size = serde_json::to_string(value).map_or(0, |s| s.len());
            if best.as_ref().is_none_or(|(b, _)| size > *b) {
                *best = Some((size, path.to_string()));
            }
        }
        for (v, p, n) in children {
            walk(v, &p, n, min, best);
        }
    }
    let mut best = None;
    walk(value, "", Some(ids), min_len, &mut best);
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
        // The answer's type marks `where` whole (`keeper::model::Uncut`).
        let marked = json!({"properties": {"where": {"type": "object", "x-identifier": true}}});
        let out = cap_json(v, &caps(10_000, 4, 10), &Identifiers::from_schema(&marked));
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
        let out = cap_json(
            json!({"rows": rows, "total": 40}),
            &caps(1500, 50, 500),
            &Identifiers::NONE,
        );
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
            &Identifiers::NONE,
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

    /// The schema of the answer below: `head`, `branch`, each entry's
    /// `revision` and `ref`, and the `tags` list marked.
    fn marked_schema() -> Value {
        let id = json!({"type": "string", "x-identifier": true});
        json!({"type": "object", "properties": {
            "head": id, "branch": {"anyOf": [id, {"type": "null"}]}, "message": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "x-identifier": true},
            "entries": {"type": "array", "items": {"$ref": "#/$defs/Entry"}},
            "masked": {"type": "array", "items": {"type": "string"}},
        }, "$defs": {"Entry": {"type": "object", "properties": {
            "revision": id, "ref": id, "message": {"type": "string"},
            "values": {"type": "object", "additionalProperties": true},
        }}}})
    }

    #[test]
    fn identifiers_are_never_cut_the_text_around_them_is() {
        let head = "835ef5ccd2c2db28".repeat(4);
        let v = json!({
            "head": head, "branch": "agent/agt_risk_bot/a-long-task-name",
            "message": "m".repeat(300), "tags": ["t".repeat(40)],
            "entries": [{"revision": head, "ref": "Supplier/S-1001", "message": "x".repeat(300),
                         "values": {"name": "n".repeat(300)}}],
            "masked": ["s".repeat(300)],
        });
        let ids = Identifiers::from_schema(&marked_schema());
        let out = cap_json(v, &caps(1000, 50, 20), &ids);
        let text = serde_json::to_string(&out).unwrap();
        assert!(text.chars().count() <= 1000, "{text}");
        assert_eq!(out["head"], json!(head));
        assert_eq!(out["branch"], "agent/agt_risk_bot/a-long-task-name");
        assert_eq!(out["tags"][0], json!("t".repeat(40)));
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
    fn only_marked_strings_are_identifiers() {
        let ids = Identifiers::from_schema(&marked_schema());
        for path in [
            "/head",
            "/branch",
            "/tags/3",
            "/entries/2/revision",
            "/entries/0/ref",
        ] {
            assert!(ids.contains(path), "{path}");
        }
        for path in [
            "",
            "/message",
            "/masked/0",
            "/entries/0/values/name",
            "/entries/0",
            "/ref",
        ] {
            assert!(!ids.contains(path), "{path}");
        }
        assert_eq!(
            Identifiers::from_schema(&json!({"type": "object"})),
            Identifiers::NONE
        );
        // Unmarked, a key once taken for an identifier is cut like any text.
        let out = cap_json(
            json!({"id": "i".repeat(40)}),
            &caps(1000, 50, 20),
            &Identifiers::NONE,
        );
        assert_eq!(out["cuts"][0]["path"], "/id");
    }

    #[test]
    fn uncuttable_json_is_marked_not_silent() {
        let marked = json!({"properties": {"where": {"type": "string", "x-identifier": true}}});
        let out = cap_json(
            json!({"where": "z".repeat(100)}),
            &caps(20, 50, 500),
            &Identifiers::from_schema(&marked),
        );
        assert_eq!(out["cuts"][0]["unit"], "chars over max_chars");
    }
}
