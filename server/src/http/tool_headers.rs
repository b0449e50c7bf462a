//! Tool sets per request over Streamable HTTP, in the manner of
//! github-mcp-server: headers that narrow the tools one request sees and may
//! call (`http.tool_headers`, on by default).
//!
//! - `X-MCP-Readonly`: only tools that do not write (`lorebase_execute`
//!   and remote tools not declared read-only leave). Empty, `false`, `f`,
//!   `no`, `n`, `0` and `off` mean no; anything else, yes.
//! - `X-MCP-Toolsets`: comma-separated groups (`reads`, `provenance`,
//!   `revisions`, `agent`, `kb`, `remote`).
//! - `X-MCP-Tools`: comma-separated tool names; with `X-MCP-Toolsets`, the
//!   union of both.
//!
//! They narrow what the settings serve and never widen it, and `tools/list`
//! and `tools/call` apply the same narrowing (a call to a tool outside it is
//! refused as an unknown tool). A group or tool name that does not exist is
//! answered 400 (a typo would otherwise hide every tool).

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::Response;
use herald_core::tools::{ToolNarrowing, Toolbox};

use crate::http::guard::refusal;

/// Only tools that do not write.
pub(crate) const READONLY: HeaderName = HeaderName::from_static("x-mcp-readonly");
/// Only the tools of these groups.
pub(crate) const TOOLSETS: HeaderName = HeaderName::from_static("x-mcp-toolsets");
/// Only these tools.
pub(crate) const TOOLS: HeaderName = HeaderName::from_static("x-mcp-tools");

/// The narrowing the headers ask for (none when they are absent or empty).
pub(crate) fn narrowing(headers: &HeaderMap) -> ToolNarrowing {
    ToolNarrowing {
        read_only: headers.get_all(READONLY).iter().any(|v| {
            let v = String::from_utf8_lossy(v.as_bytes())
                .trim()
                .to_ascii_lowercase();
            !matches!(v.as_str(), "" | "false" | "f" | "no" | "n" | "0" | "off")
        }),
        groups: names(headers, &TOOLSETS),
        tools: names(headers, &TOOLS),
    }
}

/// The comma-separated names of every `name` header; none when empty.
fn names(headers: &HeaderMap, name: &HeaderName) -> Option<Vec<String>> {
    let list: Vec<String> = headers
        .get_all(name)
        .iter()
        .flat_map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    (!list.is_empty()).then_some(list)
}

/// The last step of the MCP endpoint's layer (`http::mcp_layer`): reads the
/// headers, refuses unknown names (400), and hands the narrowing to the
/// handler in the request's extensions.
pub(crate) async fn narrow<F, Fut>(toolbox: &Toolbox, mut request: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let narrowing = narrowing(request.headers());
    if narrowing.is_none() {
        return inner(request).await;
    }
    if let Err(reason) = toolbox.check_narrowing(&narrowing) {
        return refusal(
            StatusCode::BAD_REQUEST,
            -32602,
            &format!("X-MCP-Toolsets / X-MCP-Tools: {reason}"),
        );
    }
    request.extensions_mut().insert(narrowing);
    inner(request).await
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append((*name).clone(), HeaderValue::from_str(value).unwrap());
        }
        h
    }

    #[test]
    fn headers_become_a_narrowing() {
        assert!(narrowing(&HeaderMap::new()).is_none());
        assert!(narrowing(&headers(&[(&READONLY, "false"), (&TOOLS, " , ")])).is_none());
        for yes in ["true", "1", "yes", "TRUE", "anything"] {
            assert!(narrowing(&headers(&[(&READONLY, yes)])).read_only, "{yes}");
        }
        let n = narrowing(&headers(&[
            (&TOOLSETS, "reads, provenance"),
            (&TOOLS, "lorebase_changes"),
            (&TOOLS, "kb_get"),
        ]));
        assert_eq!(n.groups, Some(vec!["reads".into(), "provenance".into()]));
        assert_eq!(
            n.tools,
            Some(vec!["lorebase_changes".into(), "kb_get".into()])
        );
        assert!(!n.read_only);
    }
}
