//! The guard's checks of a request body (read whole, within the limit): one
//! JSON-RPC message, probed without building a tree
//! ([`crate::mcp::probe`]), whose routing headers match it and whose JSON
//! values stay within [`MAX_JSON_VALUES`].

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::http::routing_headers::{self, BodyFields};
use crate::mcp::refused::{self, MAX_JSON_VALUES, Message, probe};

/// JSON-RPC's answers to a body that is not JSON, not one JSON-RPC message,
/// too big a tree, or whose routing headers do not match it.
pub(super) fn check_message(headers: &HeaderMap, bytes: &[u8]) -> Result<usize, Box<Response>> {
    let bad_request =
        |refused: refused::Refused| Box::new(json_answer(StatusCode::BAD_REQUEST, &refused.answer));
    let message = probe(bytes).map_err(|e| bad_request(refused::probe_refusal(&e)))?;
    if !message.shaped {
        return Err(bad_request(refused::not_a_message()));
    }
    let fields = BodyFields {
        method: message.method.as_deref(),
        name: message.name.as_deref(),
        uri: message.uri.as_deref(),
        idempotency_key: message.idempotency_key.as_deref(),
    };
    routing_headers::check(headers, &fields).map_err(|reason| {
        tracing::warn!(reason = %reason, "refused a request whose routing headers do not match its body");
        Box::new(refusal(StatusCode::BAD_REQUEST, -32020, &reason))
    })?;
    if message.values > MAX_JSON_VALUES {
        tracing::debug!(bytes = bytes.len(), "the body holds too many JSON values");
        return Err(Box::new(too_many_values(&message)));
    }
    Ok(message.values)
}

/// The answer to a message past [`MAX_JSON_VALUES`] ([`refused::too_many_values`]):
/// a tool error to a call (HTTP 200), else a JSON-RPC 400.
fn too_many_values(message: &Message<'_>) -> Response {
    let refused = refused::too_many_values(message);
    let status = if refused.tool_error {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    json_answer(status, &refused.answer)
}

/// `answer` as a JSON response.
fn json_answer(status: StatusCode, answer: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        answer.to_string(),
    )
        .into_response()
}

/// A refusal with a JSON-RPC error body.
pub(crate) fn refusal(status: StatusCode, code: i64, message: &str) -> Response {
    json_answer(status, &refused::error_answer(code, message))
}

#[cfg(test)]
mod tests {
    use axum::body::to_bytes;

    use super::*;

    /// The status and JSON body of a refusal.
    async fn answer(response: Response) -> (StatusCode, Value) {
        let status = response.status();
        let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    fn refused(headers: &HeaderMap, body: &[u8]) -> (StatusCode, Value) {
        let response = check_message(headers, body).unwrap_err();
        futures::executor::block_on(answer(*response))
    }

    #[test]
    fn bodies_that_are_not_json_rpc_are_refused_with_json_rpc_400() {
        let h = HeaderMap::new();
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let deep_in_arguments = format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "t", "arguments": {{"x": {}{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for (body, code) in [
            (&b"not json"[..], -32700),
            (&b"{\"jsonrpc\": \"2.0\", \"method\": \"\xff\"}"[..], -32700),
            (deep.as_bytes(), -32700),
            (deep_in_arguments.as_bytes(), -32700),
            (
                &b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"} {}"[..],
                -32700,
            ),
            (&b"[]"[..], -32600),
            (&b"42"[..], -32600),
            (&b"\"ping\""[..], -32600),
            (&b"null"[..], -32600),
            (&b"{\"jsonrpc\": \"2.0\"}"[..], -32600),
            (
                &b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"params\": {\"method\": \"ping\"}}"[..],
                -32600,
            ),
        ] {
            let (status, answer) = refused(&h, body);
            assert_eq!(status, StatusCode::BAD_REQUEST);
            assert_eq!(answer["error"]["code"], code, "{answer}");
            assert_eq!(answer["id"], Value::Null);
        }
        assert!(check_message(&h, br#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#).is_ok());
        assert!(check_message(&h, br#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#).is_ok());
        assert!(
            check_message(
                &h,
                br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#
            )
            .is_ok()
        );
    }

    #[test]
    fn batches_and_duplicate_keys_are_refused_with_json_rpc_400() {
        let h = HeaderMap::new();
        let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
        for (body, needle) in [
            (format!("[{ping}]"), "batches"),
            (format!("[{ping}, {ping}]"), "batches"),
            (r#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "method": "tools/list"}"#.into(), "`method` appears twice in the message"),
            (r#"{"jsonrpc": "2.0", "jsonrpc": "2.0", "id": 1, "method": "ping"}"#.into(), "`jsonrpc` appears twice"),
            (r#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": 1, "x": 2}"#.into(), "`x` appears twice"),
            // An escaped key is the same key.
            (r#"{"jsonrpc": "2.0", "id": 1, "method": "ping", "\u006dethod": "x"}"#.into(), "`method` appears twice"),
            (r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "name": "b"}}"#.into(), "`name` appears twice in params"),
            (r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {"idempotency_key": "k", "idempotency_key": "l"}}}"#.into(), "in params.arguments"),
        ] {
            let (status, answer) = refused(&h, body.as_bytes());
            assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
            assert_eq!(answer["error"]["code"], -32600, "{answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(needle), "{message}");
        }
        // Repeated keys deeper in the arguments are the tool's to judge.
        assert!(check_message(&h, br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {"p": {"x": 1, "x": 2}}}}"#).is_ok());
    }

    #[test]
    fn a_batch_with_routing_headers_is_refused() {
        let mut h = HeaderMap::new();
        h.insert(routing_headers::MCP_METHOD, "tools/call".parse().unwrap());
        let batch = br#"[{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lorebase_get"}}]"#;
        let (status, answer) = refused(&h, batch);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["error"]["code"], -32600);
    }

    #[test]
    fn routing_headers_are_checked_against_the_probed_body() {
        let mut h = HeaderMap::new();
        h.insert(routing_headers::MCP_NAME, "lorebase_get".parse().unwrap());
        h.insert(routing_headers::MCP_IDEMPOTENCY_KEY, "k-1".parse().unwrap());
        // Keys in any order, escapes decoded, `id` a string.
        let ok = br#"{"params": {"arguments": {"idempotency_key": "k\u002d1"}, "name": "lorebase_get"}, "method": "tools/call", "id": "a", "jsonrpc": "2.0"}"#;
        assert!(check_message(&h, ok).is_ok());
        let lying = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lorebase_execute", "arguments": {"idempotency_key": "k-1"}}}"#;
        let (status, answer) = refused(&h, lying);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["error"]["code"], -32020, "{answer}");
        let other_key = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lorebase_get", "arguments": {"idempotency_key": "k-2"}}}"#;
        assert_eq!(refused(&h, other_key).1["error"]["code"], -32020);
        let not_a_string = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": ["lorebase_get"], "arguments": {"idempotency_key": "k-1"}}}"#;
        assert_eq!(refused(&h, not_a_string).1["error"]["code"], -32020);
    }

    fn zeros_call(id: &str, n: usize) -> Vec<u8> {
        let zeros = vec!["0"; n].join(",");
        format!(r#"{{"jsonrpc": "2.0", "params": {{"name": "lorebase_execute", "arguments": {{"x": [{zeros}]}}}}, "id": {id}, "method": "tools/call"}}"#).into_bytes()
    }

    #[test]
    fn a_tool_call_with_too_many_values_gets_a_tool_error_naming_the_limit() {
        let h = HeaderMap::new();
        // The values counted: the message, 4 top-level keys with their 3
        // scalars, params and its 2 keys, the name, arguments, `x`, the array.
        let fixed = 1 + 4 + 3 + 1 + 2 + 1 + 1 + 1 + 1;
        assert!(check_message(&h, &zeros_call("1", MAX_JSON_VALUES - fixed)).is_ok());
        // `id` and `method` after the arguments: the probe reads on past the limit.
        let response =
            check_message(&h, &zeros_call("\"call-7\"", MAX_JSON_VALUES - fixed + 1)).unwrap_err();
        let (status, answer) = futures::executor::block_on(answer(*response));
        assert_eq!(status, StatusCode::OK);
        assert_eq!(answer["id"], "call-7");
        assert_eq!(answer["result"]["isError"], true);
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("[bad-arguments] the request holds 50001 JSON values"),
            "{text}"
        );
        assert!(
            text.contains(&format!("at most {MAX_JSON_VALUES}")),
            "{text}"
        );
        assert!(text.lines().last().unwrap().starts_with("next: "), "{text}");
        // Any other message: a JSON-RPC 400.
        let zeros = vec!["0"; MAX_JSON_VALUES].join(",");
        let list = format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {{"x": [{zeros}]}}}}"#
        );
        let (status, answer) = refused(&h, list.as_bytes());
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(answer["error"]["code"], -32600);
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("at most 50000")
        );
    }

    #[test]
    fn a_large_write_of_long_text_passes() {
        // 1 MiB in a few values: the bound is on values, not bytes.
        let text = "a".repeat(1 << 20);
        let body = format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "lorebase_execute", "arguments": {{"operation": "import", "parameters": {{"text": "{text}"}}}}}}}}"#
        );
        assert!(check_message(&HeaderMap::new(), body.as_bytes()).is_ok());
    }
}
