//! Shared pieces of the tools tests: a toolbox on a sandbox, calls, and a
//! small JSON Schema checker (the keywords the tool schemas use).

#![allow(dead_code)]

use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::tools::{RenderedOutput, Toolbox};
use lorebase_sandbox::{Sandbox, SandboxOptions};
use serde_json::{Map, Value};

/// A sandbox (auth none) and a toolbox on it with `domain` as the default.
pub(crate) async fn sandbox_toolbox(domain: &str) -> (Sandbox, Toolbox) {
    sandbox_toolbox_with(domain, SandboxOptions::default()).await
}

/// A sandbox started with `options` and a toolbox on it with `domain` as
/// the default.
pub(crate) async fn sandbox_toolbox_with(
    domain: &str,
    options: SandboxOptions,
) -> (Sandbox, Toolbox) {
    let sandbox = Sandbox::start(options).await.expect("sandbox starts");
    let toolbox = toolbox_on(&sandbox.url(), domain, |_| {});
    (sandbox, toolbox)
}

/// A toolbox on `url`, with `domain` as the default and other settings tuned.
pub(crate) fn toolbox_on(url: &str, domain: &str, tune: impl FnOnce(&mut Settings)) -> Toolbox {
    let mut settings = Settings::default();
    settings.keeper.base_url = url.to_string();
    settings.domain = Some(domain.to_string());
    tune(&mut settings);
    Toolbox::new(settings).expect("toolbox builds")
}

/// The arguments as a map.
pub(crate) fn args(v: Value) -> Map<String, Value> {
    v.as_object().expect("arguments are an object").clone()
}

/// Calls a tool with the configured credential.
pub(crate) async fn call(toolbox: &Toolbox, name: &str, arguments: Value) -> RenderedOutput {
    toolbox
        .call(name, args(arguments), &Credential::Configured)
        .await
        .expect("the tool is served")
}

/// Checks `value` against `schema`; returns the violations (empty when valid).
pub(crate) fn schema_violations(schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, value, "", &mut out);
    out
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.as_i64().is_some() || v.as_u64().is_some(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

fn check(schema: &Value, v: &Value, path: &str, out: &mut Vec<String>) {
    let Some(s) = schema.as_object() else { return };
    match s.get("type") {
        Some(Value::String(t)) if !type_matches(t, v) => {
            out.push(format!("{path}: expected {t}, got {v}"));
            return;
        }
        Some(Value::Array(ts))
            if !ts
                .iter()
                .any(|t| t.as_str().is_some_and(|t| type_matches(t, v))) =>
        {
            out.push(format!("{path}: expected one of {ts:?}, got {v}"));
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(v)
    {
        out.push(format!("{path}: {v} not in {options:?}"));
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            check(sub, v, path, out);
        }
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            out.push(format!("{path}: {n} < minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            out.push(format!("{path}: {n} > maximum {max}"));
        }
    }
    if let Some(text) = v.as_str() {
        let len = text.chars().count() as u64;
        if s.get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| len < m)
        {
            out.push(format!("{path}: shorter than minLength"));
        }
        if s.get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| len > m)
        {
            out.push(format!("{path}: longer than maxLength"));
        }
    }
    if let Some(items) = v.as_array() {
        let len = items.len() as u64;
        if s.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| len < m)
        {
            out.push(format!("{path}: fewer than minItems"));
        }
        if s.get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| len > m)
        {
            out.push(format!("{path}: more than maxItems"));
        }
        if let Some(item_schema) = s.get("items") {
            for (i, item) in items.iter().enumerate() {
                check(item_schema, item, &format!("{path}/{i}"), out);
            }
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = s.get("required") {
            for r in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    out.push(format!("{path}: missing required {r}"));
                }
            }
        }
        if s.get("minProperties")
            .and_then(Value::as_u64)
            .is_some_and(|m| (obj.len() as u64) < m)
        {
            out.push(format!("{path}: fewer than minProperties"));
        }
        for (k, val) in obj {
            let child = format!("{path}/{k}");
            match props.and_then(|p| p.get(k)) {
                Some(sub) => check(sub, val, &child, out),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(format!("{child}: not allowed")),
                    Some(sub @ Value::Object(_)) => check(sub, val, &child, out),
                    _ => {}
                },
            }
        }
    }
}

/// The examples in a description: the JSON after `Example: `.
pub(crate) fn example_of(description: &str) -> Value {
    let start = description
        .find("Example: ")
        .expect("the description has an example")
        + "Example: ".len();
    serde_json::from_str(&description[start..]).expect("the example is JSON")
}
