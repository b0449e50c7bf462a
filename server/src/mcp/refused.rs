//! The JSON-RPC answer to a message refused ([`Refused`]) for its bounds,
//! whatever carried it (an HTTP body, a stdio line): probed without
//! building a tree ([`probe`]), JSON (nesting at most 128 levels), one
//! message, at most [`MAX_JSON_VALUES`] values. The HTTP guard adds
//! its own checks (routing headers) between the probe and the count.

use serde_json::{Value, json};

pub(crate) use crate::mcp::probe::{Id, MAX_JSON_VALUES, Message, ProbeError, probe};

/// A refused message's JSON-RPC answer.
#[derive(Debug)]
pub(crate) struct Refused {
    /// The answer: an error with `id: null`, or a tool error to a call.
    pub(crate) answer: Value,
    /// Whether it is a tool result (HTTP 200) rather than an error (400).
    pub(crate) tool_error: bool,
}

/// A JSON-RPC error answer with `id: null`.
pub(crate) fn error_answer(code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
}

/// A probed `id` as an answer carries it (`null` when there is none).
pub(crate) fn id_value(id: Option<&Id<'_>>) -> Value {
    match id {
        Some(Id::Number(n)) => Value::Number(n.clone()),
        Some(Id::Text(t)) => Value::String(t.to_string()),
        _ => Value::Null,
    }
}

/// The answer to a probe's refusal: -32700 for what is not JSON, -32600 for
/// JSON that is not one message.
pub(crate) fn probe_refusal(error: &ProbeError) -> Refused {
    let code = match error {
        ProbeError::NotJson(_) => -32700,
        _ => -32600,
    };
    Refused {
        answer: error_answer(code, &error.to_string()),
        tool_error: false,
    }
}

/// The answer to JSON that names no method, result or error.
pub(crate) fn not_a_message() -> Refused {
    Refused {
        answer: error_answer(-32600, &ProbeError::NotMessage.to_string()),
        tool_error: false,
    }
}

/// The answer to a message past [`MAX_JSON_VALUES`]: to a tool call, a tool
/// error the model reads (`[bad-arguments] ...` and what to do); to any
/// other message, `-32600`.
pub(crate) fn too_many_values(message: &Message<'_>) -> Refused {
    tracing::warn!(
        values = message.values,
        limit = MAX_JSON_VALUES,
        "refused a message that holds too many JSON values"
    );
    let what = format!(
        "the request holds {} JSON values (items, objects, keys); Herald takes at most {MAX_JSON_VALUES} in one request, to bound the memory a call may cost",
        message.values
    );
    let id = id_value(message.id.as_ref());
    if message.method.as_deref() != Some("tools/call") || id.is_null() {
        return Refused {
            answer: error_answer(-32600, &format!("Invalid Request: {what}")),
            tool_error: false,
        };
    }
    let text = format!(
        "[bad-arguments] {what}\nnext: split the change into several calls with fewer items each, or send long lists as one string where the tool takes text"
    );
    Refused {
        answer: json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": text}],
            "isError": true,
        }}),
        tool_error: true,
    }
}

/// The checks of a message that comes without headers (stdio): the probe,
/// its shape, its values.
pub(crate) fn check(bytes: &[u8]) -> Result<Message<'_>, Refused> {
    let message = probe(bytes).map_err(|e| probe_refusal(&e))?;
    if !message.shaped {
        return Err(not_a_message());
    }
    if message.values > MAX_JSON_VALUES {
        return Err(too_many_values(&message));
    }
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_refused_and_how() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for (body, code) in [
            (&b"\xff"[..], -32700),
            (&b"{\"a\": \"\x00\"}"[..], -32700),
            (deep.as_bytes(), -32700),
            (&b"[]"[..], -32600),
            (&b"{\"jsonrpc\": \"2.0\"}"[..], -32600),
        ] {
            let refused = check(body).unwrap_err();
            assert_eq!(refused.answer["error"]["code"], code, "{}", refused.answer);
            assert!(!refused.tool_error);
        }
        let zeros = vec!["0"; MAX_JSON_VALUES].join(",");
        let call = format!(
            r#"{{"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {{"name": "t", "arguments": {{"x": [{zeros}]}}}}}}"#
        );
        let refused = check(call.as_bytes()).unwrap_err();
        assert!(refused.tool_error);
        assert_eq!(refused.answer["id"], "c");
        assert!(check(br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#).is_ok());
    }
}
