//! The "newer Keeper" mode (`--newer-keeper`, [`crate::SandboxOptions`]'s
//! `newer_keeper`): every answer reads as a Keeper one release ahead of the
//! contract would write it, so tests can prove that Herald carries what it
//! does not know through instead of failing.
//!
//! What changes, and nothing else (the data and the logic are the same):
//!
//! - every object of an answer gets [`EXTRA_FIELDS`] (not the maps of
//!   attribute values or Link counts, nor values and `where` predicates,
//!   which are the Domain's own data);
//! - the enum values of [`RENAMED`] get names the contract does not list
//!   (`origin_type: import` is `bulk_import`, a Proposal `merged` is
//!   `merged_by_queue`, ...);
//! - every non-empty `coverage` list gets one more signal of the new kind
//!   [`ADDED_SIGNAL`] (`low_confidence`);
//! - every problem gets `hint`, `instance` and `trace_id`, and the codes of
//!   [`RENAMED_CODES`] become codes the contract does not list.
//!
//! [`NewerKeeper::describe`] is the same list as JSON (on the READY line), so
//! tests in any language can undo the renames and compare with the normal
//! mode.

use axum::body::{Body, to_bytes};
use axum::http::{HeaderValue, Response, header};
use serde_json::{Map, Value, json};

/// Fields added to every object of an answer (and every problem).
pub const EXTRA_FIELDS: [(&str, &str); 2] =
    [("keeper_release", "2.0"), ("etag", "W/\"newer-keeper\"")];

/// Enum values renamed in answers: (field, the contract's name, the newer name).
pub const RENAMED: [(&str, &str, &str); 7] = [
    ("origin_type", "import", "bulk_import"),
    ("status", "merged", "merged_by_queue"),
    ("status", "dry_run", "simulated"),
    ("mode", "lexical", "lexical_bm25f"),
    ("level", "synonym", "synonym_graph"),
    ("type", "attribute", "attribute_path"),
    ("scope", "kind", "record_kind"),
];

/// The coverage signal kind added to every non-empty `coverage` list.
pub const ADDED_SIGNAL: &str = "low_confidence";

/// The message of the added signal (a `coverage:` line shows it).
pub const ADDED_SIGNAL_MESSAGE: &str =
    "low_confidence: the ranking of this answer is uncertain (a signal of a newer Keeper)";

/// Problem codes renamed: (the contract's code, the newer code).
pub const RENAMED_CODES: [(&str, &str); 2] = [
    ("already-exists", "conflict"),
    ("agent-branch-limit", "task-branch-quota"),
];

/// Keys whose values are the Domain's data (attribute values, Link counts,
/// predicates), never touched.
const DATA_KEYS: [&str; 6] = ["values", "link_counts", "before", "after", "value", "where"];

/// Keys whose value is a map of lists of objects (relation -> rows): the map
/// gets no field, its rows do.
const MAP_KEYS: [&str; 1] = ["included"];

/// Rewrites answers as a newer Keeper would write them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NewerKeeper;

impl NewerKeeper {
    /// What this mode changes, as JSON (the READY line's `newer_keeper`).
    pub(crate) fn describe() -> Value {
        json!({
            "extra_fields": EXTRA_FIELDS.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            "renamed": RENAMED.iter().map(|(field, from, to)| json!({"field": field, "from": from, "to": to})).collect::<Vec<_>>(),
            "added_signal": {"signal": ADDED_SIGNAL, "message": ADDED_SIGNAL_MESSAGE},
            "renamed_codes": RENAMED_CODES.iter().map(|(from, to)| json!({"from": from, "to": to})).collect::<Vec<_>>(),
        })
    }

    /// The answer rewritten: a JSON answer (2xx) or problem (4xx, 5xx)
    /// with its body rewritten, anything else as it was.
    pub(crate) async fn rewrite(self, response: Response<Body>) -> Response<Body> {
        let is_json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.contains("json"));
        if !is_json {
            return response;
        }
        let (mut parts, body) = response.into_parts();
        let Ok(bytes) = to_bytes(body, usize::MAX).await else {
            return Response::from_parts(parts, Body::empty());
        };
        let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
            return Response::from_parts(parts, Body::from(bytes));
        };
        if parts.status.is_success() {
            answer(&mut value);
        } else {
            problem(&mut value);
        }
        let body = serde_json::to_vec(&value).unwrap_or_else(|_| bytes.to_vec());
        parts
            .headers
            .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        Response::from_parts(parts, Body::from(body))
    }
}

/// A success answer: extra fields, renamed values, the added signal.
fn answer(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if DATA_KEYS.contains(&key.as_str()) {
                    continue;
                }
                if MAP_KEYS.contains(&key.as_str()) {
                    if let Value::Object(inner) = child {
                        inner.values_mut().for_each(answer);
                    }
                    continue;
                }
                rename(key, child);
                if key == "coverage" {
                    add_signal(child);
                }
                answer(child);
            }
            add_fields(map);
        }
        Value::Array(items) => items.iter_mut().for_each(answer),
        _ => {}
    }
}

fn rename(key: &str, value: &mut Value) {
    if let Value::String(s) = value
        && let Some((_, _, to)) = RENAMED
            .iter()
            .find(|(field, from, _)| *field == key && from == s)
    {
        *s = (*to).to_string();
    }
}

fn add_signal(coverage: &mut Value) {
    if let Value::Array(signals) = coverage
        && !signals.is_empty()
    {
        signals.push(json!({"signal": ADDED_SIGNAL, "message": ADDED_SIGNAL_MESSAGE}));
    }
}

fn add_fields(map: &mut Map<String, Value>) {
    for (key, value) in EXTRA_FIELDS {
        map.entry(key).or_insert_with(|| json!(value));
    }
}

/// A problem: `hint`, `instance`, `trace_id` and the extra fields; the codes
/// of [`RENAMED_CODES`] renamed (`type` follows the code).
fn problem(value: &mut Value) {
    let Value::Object(map) = value else { return };
    if let Some(Value::String(code)) = map.get_mut("code")
        && let Some((_, to)) = RENAMED_CODES.iter().find(|(from, _)| from == code)
    {
        *code = (*to).to_string();
        map.insert(
            "type".into(),
            json!(format!("https://lorebase.dev/problems/{to}")),
        );
    }
    map.insert(
        "hint".into(),
        json!("a newer Keeper explains the problem here"),
    );
    map.insert("instance".into(), json!("/api/v1/problems/newer"));
    map.insert("trace_id".into(), json!("00-newer-keeper-01"));
    add_fields(map);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_get_fields_new_names_and_a_signal_but_data_stays() {
        let mut v = json!({
            "revision": "r",
            "values": {"origin_type": "import", "x": {"a": 1}},
            "included": {"supplies": [{"ref": "P/1", "values": {}}]},
            "entries": [{"origin_type": "import", "status": "merged"}],
            "coverage": [{"signal": "missing_values", "message": "m"}],
            "where": {"attr": "a", "op": "eq", "value": "import"}
        });
        answer(&mut v);
        assert_eq!(v["keeper_release"], "2.0");
        assert_eq!(v["values"], json!({"origin_type": "import", "x": {"a": 1}}));
        assert!(v["included"].get("keeper_release").is_none());
        assert_eq!(v["included"]["supplies"][0]["keeper_release"], "2.0");
        assert_eq!(v["entries"][0]["origin_type"], "bulk_import");
        assert_eq!(v["entries"][0]["status"], "merged_by_queue");
        assert_eq!(v["coverage"][1]["signal"], ADDED_SIGNAL);
        assert_eq!(
            v["where"],
            json!({"attr": "a", "op": "eq", "value": "import"})
        );
        let mut none = json!({"coverage": []});
        answer(&mut none);
        assert_eq!(none["coverage"], json!([]));
    }

    #[test]
    fn problems_get_a_hint_and_new_codes() {
        let mut p = json!({"type": "https://lorebase.dev/problems/already-exists", "code": "already-exists", "status": 409});
        problem(&mut p);
        assert_eq!(p["code"], "conflict");
        assert_eq!(p["type"], "https://lorebase.dev/problems/conflict");
        assert!(p["hint"].is_string());
        let mut q = json!({"code": "not-found"});
        problem(&mut q);
        assert_eq!(q["code"], "not-found");
    }
}
