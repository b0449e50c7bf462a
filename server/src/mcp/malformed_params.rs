//! Requests of a method Herald serves whose `params` do not have the
//! method's shape (`tools/call` with `arguments` as an array, a `name` that
//! is a number, ...). rmcp cannot parse them as that method and hands them
//! over as custom requests; they are invalid params (JSON-RPC -32602), not an
//! unknown method (-32601).

// `logging/setLevel` is deprecated by SEP-2577 but still served (handler.rs).
#![allow(deprecated)]

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CompleteRequestMethod, CompleteRequestParams,
    ConstString, GetPromptRequestMethod, GetPromptRequestParams, InitializeRequestParams,
    InitializeResultMethod, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListToolsRequestMethod, PaginatedRequestParams,
    ReadResourceRequestMethod, ReadResourceRequestParams, SetLevelRequestMethod,
    SetLevelRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The longest part of the client's request repeated in the error message.
const ECHO_CHARS: usize = 300;

/// Why `params` do not fit `method` (the field and what was expected), for
/// a method Herald serves; `None` for any other method.
pub(crate) fn invalid_params(method: &str, params: Option<&Value>) -> Option<McpError> {
    let problem = if method == CallToolRequestMethod::VALUE {
        problem::<CallToolRequestParams>(params, true)
    } else if method == ReadResourceRequestMethod::VALUE {
        problem::<ReadResourceRequestParams>(params, true)
    } else if method == GetPromptRequestMethod::VALUE {
        problem::<GetPromptRequestParams>(params, true)
    } else if method == CompleteRequestMethod::VALUE {
        problem::<CompleteRequestParams>(params, true)
    } else if method == SetLevelRequestMethod::VALUE {
        problem::<SetLevelRequestParams>(params, true)
    } else if method == InitializeResultMethod::VALUE {
        problem::<InitializeRequestParams>(params, true)
    } else if [
        ListToolsRequestMethod::VALUE,
        ListResourcesRequestMethod::VALUE,
        ListResourceTemplatesRequestMethod::VALUE,
        ListPromptsRequestMethod::VALUE,
    ]
    .contains(&method)
    {
        problem::<PaginatedRequestParams>(params, false)
    } else {
        return None;
    };
    let detail = problem.unwrap_or_else(|| "params do not have the method's shape".into());
    let detail = herald_core::render::caps::cut_middle(&detail, ECHO_CHARS);
    Some(McpError::invalid_params(
        format!("Invalid params for {method}: {detail}"),
        None,
    ))
}

/// The first thing wrong in `params` as a `T` (`arguments: invalid type:
/// sequence, expected a map`).
fn problem<T: DeserializeOwned>(params: Option<&Value>, required: bool) -> Option<String> {
    let Some(params) = params else {
        return required.then(|| "params are required".into());
    };
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(params.clone(), &mut track);
    match T::deserialize(de) {
        Ok(_) => None,
        Err(e) => {
            let path = track.path().to_string();
            Some(if path.is_empty() || path == "." {
                e.to_string()
            } else {
                format!("`{path}`: {e}")
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorCode;
    use serde_json::json;

    use super::*;

    #[test]
    fn arguments_as_an_array_are_invalid_params() {
        let e = invalid_params(
            "tools/call",
            Some(&json!({"name": "lorebase_get", "arguments": [1, 2]})),
        )
        .unwrap();
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`arguments`"), "{}", e.message);
        let e = invalid_params("tools/call", Some(&json!({"name": 5}))).unwrap();
        assert!(e.message.contains("`name`"), "{}", e.message);
        let e = invalid_params("tools/call", None).unwrap();
        assert!(e.message.contains("required"), "{}", e.message);
        let e = invalid_params("resources/read", Some(&json!({"uri": ["x"]}))).unwrap();
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        let e = invalid_params("tools/list", Some(&json!({"cursor": 5}))).unwrap();
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn other_methods_are_not_ours() {
        assert!(invalid_params("bogus/method", Some(&json!({}))).is_none());
        assert!(invalid_params("tasks/get", Some(&json!([]))).is_none());
    }

    #[test]
    fn a_huge_value_is_not_echoed_whole() {
        let big = "A".repeat(1_000_000);
        let e = invalid_params(
            "tools/call",
            Some(&json!({"name": big, "arguments": [big]})),
        )
        .unwrap();
        assert!(e.message.len() < 500, "{}", e.message.len());
    }
}
