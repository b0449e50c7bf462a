//! Pieces of the input schemas (JSON Schema 2020-12, the MCP default dialect):
//! the shared arguments, refs, lists, bounds, and the object wrapper with
//! `additionalProperties: false`.

use serde_json::{Map, Value, json};

/// An input schema: an object of these properties, these required, nothing else.
pub(crate) fn object(properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut props = Map::new();
    for (k, v) in properties {
        props.insert(k.to_string(), v);
    }
    let mut schema = json!({"type": "object", "properties": props});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
}

/// The shared arguments, appended to a tool's own: `domain`, `branch` and `at`
/// when the tool takes them, `format`.
pub(crate) fn common(branch: bool, at: bool) -> Vec<(&'static str, Value)> {
    let mut v = vec![(
        "domain",
        json!({"type": "string", "minLength": 1, "maxLength": 128,
               "description": "Domain api name. Default: the configured Domain (LOREBASE_DOMAIN)."}),
    )];
    if branch {
        v.push((
            "branch",
            json!({"type": "string", "minLength": 1, "maxLength": 256,
                   "description": "Branch. Default: the configured branch (LOREBASE_BRANCH), else the Domain's default branch."}),
        ));
    }
    if at {
        v.push((
            "at",
            json!({"type": "string", "minLength": 1, "maxLength": 128,
                   "description": "Read as of this Revision (64 hex digits or an 8+ digit prefix) or tag."}),
        ));
    }
    v.push((
        "format",
        json!({"type": "string", "enum": ["text", "json"], "default": "text",
               "description": "`text`: compact lines (default). `json`: the stable JSON shape, also as structured content."}),
    ));
    v
}

/// The pattern of a `Kind/key` ref.
pub(crate) const REF_PATTERN: &str = "^[A-Za-z_][A-Za-z0-9_]*/.+$";

/// A `Kind/key` ref.
pub(crate) fn record_ref(description: &str) -> Value {
    json!({"type": "string", "pattern": REF_PATTERN, "minLength": 3, "maxLength": 385,
           "description": description})
}

/// A list of refs.
pub(crate) fn record_refs(description: &str, max: u32) -> Value {
    json!({"type": "array", "items": record_ref("A Record ref, Kind/key."),
           "minItems": 1, "maxItems": max, "description": description})
}

/// A list of api names.
pub(crate) fn names(description: &str, max: u32) -> Value {
    json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 128},
           "maxItems": max, "description": description})
}

/// A bounded integer.
pub(crate) fn int(description: &str, min: u32, max: u32) -> Value {
    json!({"type": "integer", "minimum": min, "maximum": max, "description": description})
}

/// A boolean with a default.
pub(crate) fn boolean(description: &str, default: bool) -> Value {
    json!({"type": "boolean", "default": default, "description": description})
}

/// A bounded string.
pub(crate) fn string(description: &str, max: u32) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max, "description": description})
}

/// `property` marked to be mirrored in the HTTP header `Mcp-Param-{header}`
/// (MCP 2026-07-28, SEP-2243), where a load balancer can read it.
pub(crate) fn with_header(mut property: Value, header: &str) -> Value {
    property["x-mcp-header"] = json!(header);
    property
}

/// A page cursor.
pub(crate) fn cursor() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": 1024,
           "description": "The `next_cursor` of the previous page."})
}

/// A query embedding.
pub(crate) fn query_vector(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 4096,
           "description": description})
}

/// A filter predicate of the query DSL.
pub(crate) fn predicate(description: &str) -> Value {
    json!({"type": "object", "minProperties": 1,
           "description": format!("{description} A predicate is {{\"attr\": name, \"op\": eq|ne|in|lt|lte|gt|gte|contains|exists, \"value\": v}}, {{\"and\": [p, ...]}}, {{\"or\": [p, ...]}} or {{\"not\": p}}.")})
}

/// A Revision id or prefix.
pub(crate) fn revision(description: &str) -> Value {
    json!({"type": "string", "pattern": "^[0-9a-fA-F]{8,64}$", "description": description})
}
