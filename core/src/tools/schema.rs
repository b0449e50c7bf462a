//! The input and output schemas of the built-in tools, derived from their
//! Rust types with schemars and put in Herald's house style (what the tool
//! list has always shown, key for key):
//!
//! - no `$schema`, `title` or `format`; subschemas inline;
//! - an optional argument or field is its type, not `[type, "null"]`;
//! - input schemas keep the descriptions (the doc comments of the argument
//!   fields), end with the shared arguments and allow nothing else
//!   (`additionalProperties: false`);
//! - output schemas keep no descriptions and no defaults, list `required` on
//!   every object, show any JSON value as `{}`, and end with `cuts`.
//!
//! A wire type states what its Rust type cannot with `#[schemars(extend(...))]`
//! keys read (and removed) here: `"x-required": true` (a field Herald always
//! sends although Keeper may leave it out), `"x-nullable": true` (a field
//! shown as possibly `null`), `"x-description"` (a description output
//! schemas keep); and the mark of a field whose schema type is
//! [`crate::keeper::model::Uncut`] (a value the output caps never cut:
//! [`identifiers`] collects them for [`crate::render::caps::Identifiers`]).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::args::{Scope, shared_schemas};
use crate::keeper::model::IDENTIFIER_MARK;
use crate::render::caps::{Identifiers, cuts_schema};

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
}

/// The input schema of a tool whose own arguments are `A`, taking the shared
/// arguments of `scope`.
pub(crate) fn input<A: JsonSchema>(scope: Scope) -> Value {
    let mut generator = generator();
    let root = generator.root_schema_for::<A>().to_value();
    let mut properties: Vec<(String, Value)> = root
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| (k.clone(), house_input(v.clone())))
                .collect()
        })
        .unwrap_or_default();
    let shared = shared_schemas(&mut generator);
    properties.extend(
        scope
            .schemas(&shared)
            .into_iter()
            .map(|(k, v)| (k, house_input(v))),
    );
    let required: Vec<Value> = root
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    object(properties, required)
}

/// An input schema: an object of these properties, these required, nothing else.
fn object(properties: Vec<(String, Value)>, required: Vec<Value>) -> Value {
    let properties: Map<String, Value> = properties.into_iter().collect();
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
}

/// The output schema of a tool answering `T` (its `json` format and
/// `structuredContent`), with `cuts`; and the identifiers of the answer
/// (the fields its type marks [`crate::keeper::model::Uncut`]), collected
/// from the same generated schema before its marks are removed. A toolbox
/// collects them once per tool and frees them with itself: no process-wide
/// cache (the C library frees everything it allocated in
/// `lorebase_herald_free`).
pub(crate) fn output<T: JsonSchema>() -> (Value, Identifiers) {
    let generated = generator().root_schema_for::<T>().to_value();
    let identifiers = Identifiers::from_schema(&generated);
    let mut schema = house_output(generated);
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert("cuts".into(), cuts_schema());
    }
    (schema, identifiers)
}

/// A hand-written output schema (the KB tools') as published: without its
/// marks ([`crate::keeper::model::uncut`]).
pub(crate) fn unmarked(mut schema: Value) -> Value {
    walk(&mut schema, &mut |obj| {
        obj.shift_remove(IDENTIFIER_MARK);
    });
    schema
}

/// One argument's schema in house style, its bounds and default also in
/// its description.
fn house_input(mut schema: Value) -> Value {
    walk(&mut schema, &mut |obj| {
        obj.shift_remove("title");
        obj.shift_remove("format");
        obj.shift_remove(IDENTIFIER_MARK);
        drop_null_type(obj);
        state_bounds(obj);
    });
    schema
}

/// Puts an argument's bounds and default in its description, in words made
/// from the schema's own keywords: `"Page size."` with `minimum: 1,
/// maximum: 200` becomes `"Page size (1-200)."`. Hosts that strip keywords
/// from schemas before the model sees them (Codex drops `default`,
/// `minimum`/`maximum`, `maxItems`; docs/hosts.md) still show the
/// description, and the two cannot drift. The lengths of texts and names
/// are not stated (no model writes a 1,000-character search); a longer one
/// is refused naming its bound. An argument without a description gets none.
pub(crate) fn state_bounds(obj: &mut Map<String, Value>) {
    let Some(Value::String(description)) = obj.get("description") else {
        return;
    };
    let number = |key: &str| obj.get(key).and_then(Value::as_u64);
    let mut words = Vec::new();
    match (number("minimum"), number("maximum")) {
        (Some(min), Some(max)) => words.push(format!("{min}-{max}")),
        (None, Some(max)) => words.push(format!("at most {max}")),
        (Some(min), None) => words.push(format!("at least {min}")),
        (None, None) => {}
    }
    if let Some(max) = number("maxItems") {
        words.push(format!("at most {max}"));
    }
    // A flag that is off unless set says nothing by its default.
    if let Some(default) = obj.get("default").filter(|d| **d != Value::Bool(false)) {
        let shown = match default {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        words.push(format!("default {shown}"));
    }
    if words.is_empty() {
        return;
    }
    let stem = description.strip_suffix('.').unwrap_or(description);
    let stated = format!("{stem} ({}).", words.join(", "));
    obj.insert("description".into(), Value::String(stated));
}

/// An answer's schema in house style.
fn house_output(mut schema: Value) -> Value {
    walk(&mut schema, &mut |obj| {
        for key in [
            "$schema",
            "title",
            "format",
            "description",
            "default",
            IDENTIFIER_MARK,
        ] {
            obj.shift_remove(key);
        }
        if let Some(description) = obj.get_mut("x-description").map(Value::take) {
            rename_in_place(obj, "x-description", "description", description);
        }
        if obj.shift_remove("x-nullable").is_none() {
            drop_null_type(obj);
        }
        if obj.get("items") == Some(&Value::Bool(true)) {
            obj.shift_remove("items");
        }
        if let Some(Value::Object(properties)) = obj.get_mut("properties") {
            let mut always = Vec::new();
            for (name, property) in properties.iter_mut() {
                if property == &Value::Bool(true) {
                    *property = json!({});
                }
                if let Some(p) = property.as_object_mut()
                    && p.shift_remove("x-required").is_some()
                {
                    always.push(name.clone());
                }
            }
            let names: Vec<String> = properties.keys().cloned().collect();
            let required = obj
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if !always.is_empty()
                && let Value::Array(list) = required
            {
                // In property order, as the always-sent fields interleave.
                let mut wanted: Vec<&String> = names
                    .iter()
                    .filter(|n| always.contains(n) || list.iter().any(|r| r == n.as_str()))
                    .collect();
                wanted.dedup();
                *list = wanted.into_iter().map(|n| json!(n)).collect();
            }
        }
    });
    schema
}

/// Applies `f` to every schema object in `schema`: itself and every
/// subschema (the values of `properties` are schemas; their names are not).
fn walk(schema: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(obj) = schema else { return };
    f(obj);
    for (key, value) in obj.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(props)) => {
                for property in props.values_mut() {
                    walk(property, f);
                }
            }
            ("items" | "additionalProperties" | "not", sub) => walk(sub, f),
            ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(subs)) => {
                for sub in subs {
                    walk(sub, f);
                }
            }
            _ => {}
        }
    }
}

/// `{"type": ["string", "null"]}` becomes `{"type": "string"}` (and `null`
/// leaves its `enum`).
fn drop_null_type(obj: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = obj.get_mut("type") else {
        return;
    };
    if !types.iter().any(|t| t == "null") {
        return;
    }
    types.retain(|t| t != "null");
    if types.len() == 1 {
        let only = types.remove(0);
        obj.insert("type".into(), only);
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
}

/// Renames `from` to `to` keeping its place among the keys.
fn rename_in_place(obj: &mut Map<String, Value>, from: &str, to: &str, value: Value) {
    let entries: Vec<(String, Value)> = std::mem::take(obj).into_iter().collect();
    for (k, v) in entries {
        if k == from {
            obj.insert(to.to_string(), value.clone());
        } else {
            obj.insert(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Serialize;
    use serde_json::{Value, json};

    use super::output;
    use crate::config::OutputSettings;
    use crate::keeper::model::{RecordRef, Uncut};
    use crate::render::caps::{Identifiers, cap_json};

    /// The identifiers of an answer `T`, as its tool's definition collects them.
    fn identifiers<T: JsonSchema>() -> Identifiers {
        output::<T>().1
    }

    /// A wire type with a new identifier field, marked, beside long text.
    #[derive(Serialize, JsonSchema)]
    struct Answer {
        /// A new identifier.
        #[schemars(with = "Uncut<String>")]
        record_id: String,
        /// Unmarked text.
        note: String,
        /// Items with their own identifier.
        items: Vec<Item>,
    }

    #[derive(Serialize, JsonSchema)]
    struct Item {
        /// A ref: an identifier by its type.
        #[serde(rename = "ref")]
        record: RecordRef,
        /// Unmarked, though named like an identifier once was.
        id: String,
    }

    #[test]
    fn a_marked_field_is_never_cut_an_unmarked_one_is() {
        let long = "r".repeat(200);
        let answer = Answer {
            record_id: long.clone(),
            note: "n".repeat(200),
            items: vec![Item {
                record: RecordRef::new("Supplier", "S-".to_string() + &"9".repeat(100)),
                id: "i".repeat(200),
            }],
        };
        let caps = OutputSettings {
            max_chars: 1_000,
            max_items: 50,
            max_value_chars: 20,
            schemas: true,
        };
        let value = serde_json::to_value(&answer).unwrap();
        let out = cap_json(value, &caps, &identifiers::<Answer>());
        assert_eq!(out["record_id"], json!(long), "{out}");
        assert_eq!(
            out["items"][0]["ref"],
            json!(answer.items[0].record.to_string())
        );
        let cut: Vec<&str> = out["cuts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["path"].as_str())
            .collect();
        assert_eq!(cut, ["/note", "/items/0/id"], "{out}");
    }

    /// A cursor and a `where` predicate are kept whole by their types'
    /// marks (cut, they would be wrong, not short), however tight the caps.
    #[test]
    fn cursors_and_predicates_are_kept_whole() {
        use crate::keeper::model::{QueryResponse, ResolveResponse};
        let caps = OutputSettings {
            max_chars: 400,
            max_items: 1,
            max_value_chars: 8,
            schemas: true,
        };
        let cursor = "c".repeat(100);
        let query = json!({"revision": "r".repeat(64), "total": 3, "rows": [],
            "next_cursor": cursor, "coverage": []});
        let out = cap_json(query, &caps, &identifiers::<QueryResponse>());
        assert_eq!(out["next_cursor"], json!(cursor), "{out}");
        let predicate = json!({"and": [{"attr": "name", "op": "eq", "value": "v".repeat(50)},
            {"attr": "risk", "op": "gt", "value": 5}]});
        let resolve = json!({"revision": "r".repeat(64), "candidates": [{"type": "value",
            "kind": "Supplier", "level": "exact", "score": 1.0, "matched": [], "where": predicate}],
            "unmatched": [], "skipped_levels": [], "coverage": []});
        let out = cap_json(resolve, &caps, &identifiers::<ResolveResponse>());
        assert_eq!(out["candidates"][0]["where"], predicate, "{out}");
    }

    #[test]
    fn the_mark_stays_out_of_the_published_schema() {
        fn marked(v: &Value) -> bool {
            match v {
                Value::Object(o) => o.contains_key("x-identifier") || o.values().any(marked),
                Value::Array(a) => a.iter().any(marked),
                _ => false,
            }
        }
        let (schema, _) = output::<Answer>();
        assert!(!marked(&schema), "{schema}");
        assert_eq!(schema["properties"]["record_id"], json!({"type": "string"}));
    }
}
