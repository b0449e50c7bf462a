//! The routing headers of MCP's Streamable HTTP (SEP-2243, protocol revision
//! 2026-07-28): `Mcp-Method`, `Mcp-Name` and `Mcp-Param-Idempotency-Key`
//! mirror fields of the JSON-RPC body so that a load balancer can act on a
//! call without reading its body (deploy/nginx/herald.conf retries a read that
//! a dead replica never answered, and never a write without an idempotency
//! key).
//!
//! A balancer trusts these headers, so Herald checks every one that is sent
//! against the body, whatever protocol revision the call declares (rmcp checks
//! them only from 2026-07-28 on): a call whose headers say `lorebase_get`
//! while its body runs `lorebase_execute` is refused before it runs.

use axum::http::HeaderMap;
use base64::Engine;
use base64::prelude::BASE64_STANDARD;

/// The JSON-RPC method.
pub(crate) const MCP_METHOD: &str = "mcp-method";
/// The tool or prompt name, or the resource URI.
pub(crate) const MCP_NAME: &str = "mcp-name";
/// `lorebase_execute`'s `idempotency_key`, which makes a write safe to resend
/// (its input schema marks it `x-mcp-header: Idempotency-Key`).
pub(crate) const MCP_IDEMPOTENCY_KEY: &str = "mcp-param-idempotency-key";

/// Methods whose `Mcp-Name` is `params.name`.
const NAME_FROM_NAME: [&str; 2] = ["tools/call", "prompts/get"];
/// Methods whose `Mcp-Name` is `params.uri`.
const NAME_FROM_URI: [&str; 3] = [
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The body's fields the routing headers mirror (the guard's probe of the
/// body reads them: [`crate::http::guard`](mod@crate::http::guard)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BodyFields<'a> {
    /// `method`, when it is a string.
    pub method: Option<&'a str>,
    /// `params.name`, when it is a string.
    pub name: Option<&'a str>,
    /// `params.uri`, when it is a string.
    pub uri: Option<&'a str>,
    /// `params.arguments.idempotency_key`, when it is a string.
    pub idempotency_key: Option<&'a str>,
}

/// Checks the routing headers sent against the fields of one JSON-RPC
/// message (the guard refuses batches before). Absent headers are fine
/// here: rmcp requires them from protocol revision 2026-07-28 on.
pub(crate) fn check(headers: &HeaderMap, body: &BodyFields<'_>) -> Result<(), String> {
    if ![MCP_METHOD, MCP_NAME, MCP_IDEMPOTENCY_KEY]
        .into_iter()
        .any(|name| headers.contains_key(name))
    {
        return Ok(());
    }
    let method = body.method;
    if let Some(value) = single(headers, MCP_METHOD)?
        && Some(value.as_str()) != method
    {
        return Err(format!(
            "Mcp-Method header `{}` does not match the body's method `{}`",
            shorten(&value),
            shorten(method.unwrap_or(""))
        ));
    }
    let name = method.and_then(|m| name_of(m, body));
    if let Some(value) = single(headers, MCP_NAME)?
        && Some(value.as_str()) != name
    {
        return Err(format!(
            "Mcp-Name header `{}` does not match the body's `{}`",
            shorten(&value),
            shorten(name.unwrap_or(""))
        ));
    }
    let key = if method == Some("tools/call") {
        body.idempotency_key
    } else {
        None
    };
    if let Some(value) = single(headers, MCP_IDEMPOTENCY_KEY)?
        && Some(value.as_str()) != key
    {
        return Err(
            "Mcp-Param-Idempotency-Key header does not match the body's arguments.idempotency_key"
                .into(),
        );
    }
    Ok(())
}

/// The value `Mcp-Name` stands for in a call of `method`.
fn name_of<'a>(method: &str, body: &BodyFields<'a>) -> Option<&'a str> {
    if NAME_FROM_NAME.contains(&method) {
        body.name
    } else if NAME_FROM_URI.contains(&method) {
        body.uri
    } else {
        None
    }
}

/// The one value of header `name`, decoded (`=?base64?…?=` values carry
/// text a header cannot); two values, or one that cannot be read, are refused.
fn single(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("more than one {name} header"));
    }
    let text = first
        .to_str()
        .map_err(|_| format!("the {name} header is not visible ASCII"))?;
    decode(text)
        .map(Some)
        .ok_or_else(|| format!("the {name} header is not valid Base64 UTF-8"))
}

fn decode(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|inner| inner.strip_suffix("?="))
    {
        Some(inner) => String::from_utf8(BASE64_STANDARD.decode(inner).ok()?).ok(),
        None => Some(value.to_string()),
    }
}

fn shorten(s: &str) -> String {
    s.chars().take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The fields as the guard's probe reads them from `message`.
    fn check(headers: &HeaderMap, message: &Value) -> Result<(), String> {
        fn text(v: Option<&Value>) -> Option<&str> {
            v.and_then(Value::as_str)
        }
        let params = message.get("params");
        super::check(
            headers,
            &BodyFields {
                method: text(message.get("method")),
                name: text(params.and_then(|p| p.get("name"))),
                uri: text(params.and_then(|p| p.get("uri"))),
                idempotency_key: text(
                    params
                        .and_then(|p| p.get("arguments"))
                        .and_then(|a| a.get("idempotency_key")),
                ),
            },
        )
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    fn call(tool: &str, arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}})
    }

    #[test]
    fn matching_headers_pass() {
        let body = call("lorebase_get", json!({"ref": "Supplier/S-1"}));
        assert!(check(&HeaderMap::new(), &body).is_ok());
        let h = headers(&[(MCP_METHOD, "tools/call"), (MCP_NAME, "lorebase_get")]);
        assert!(check(&h, &body).is_ok());
        let h = headers(&[(MCP_NAME, "=?base64?bG9yZWJhc2VfZ2V0?=")]);
        assert!(check(&h, &body).is_ok());
        let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                          "params": {"uri": "lorebase://domains"}});
        let h = headers(&[
            (MCP_METHOD, "resources/read"),
            (MCP_NAME, "lorebase://domains"),
        ]);
        assert!(check(&h, &read).is_ok());
        let write = call("lorebase_execute", json!({"idempotency_key": "k-1"}));
        let h = headers(&[(MCP_NAME, "lorebase_execute"), (MCP_IDEMPOTENCY_KEY, "k-1")]);
        assert!(check(&h, &write).is_ok());
    }

    #[test]
    fn a_header_that_lies_about_the_body_is_refused() {
        let write = call("lorebase_execute", json!({"dry_run": false}));
        for h in [
            headers(&[(MCP_NAME, "lorebase_get")]),
            headers(&[(MCP_METHOD, "tools/list")]),
            headers(&[
                (MCP_NAME, "lorebase_execute"),
                (MCP_NAME, "lorebase_execute"),
            ]),
            headers(&[(MCP_IDEMPOTENCY_KEY, "k-1")]),
            headers(&[(MCP_NAME, "=?base64?not base64?=")]),
        ] {
            assert!(check(&h, &write).is_err(), "{h:?}");
        }
        let keyed = call("lorebase_execute", json!({"idempotency_key": "k-2"}));
        assert!(check(&headers(&[(MCP_IDEMPOTENCY_KEY, "k-1")]), &keyed).is_err());
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(check(&headers(&[(MCP_NAME, "lorebase_get")]), &list).is_err());
        // (A batch, with routing headers or without, is refused by the guard's probe.)
    }
}
