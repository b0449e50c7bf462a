//! The methods protocol 2026-07-28 removed that Herald serves under the older
//! revisions: `initialize` (SEP-2575: `server/discover` and per-request
//! `_meta` instead) and `logging/setLevel` (SEP-2577). A request made under
//! 2026-07-28 or later (its `_meta` names that revision) is answered as any
//! unknown method: JSON-RPC -32601, which rmcp's Streamable HTTP server sends
//! with HTTP 404. The legacy handshake is untouched: an `initialize` whose
//! params name an older revision (Claude Code 2.1.280 and Copilot CLI
//! 1.0.81-1.0.86 sent one after `server/discover`) still opens a session of
//! that revision, and `logging/setLevel` in it is still served.

// `logging/setLevel` is deprecated by SEP-2577, and named here for that.
#![allow(deprecated)]

use rmcp::ErrorData as McpError;
use rmcp::model::ProtocolVersion;
use rmcp::model::{ConstString, ErrorCode, InitializeResultMethod, SetLevelRequestMethod};

/// The methods removed in 2026-07-28 that Herald serves before it.
const REMOVED: [&str; 2] = [InitializeResultMethod::VALUE, SetLevelRequestMethod::VALUE];

/// -32601 for `method` when it is one 2026-07-28 removed and the request
/// speaks `version` (2026-07-28 or later); `None` otherwise.
pub(crate) fn not_found_under(method: &str, version: Option<&ProtocolVersion>) -> Option<McpError> {
    let removed = REMOVED.contains(&method)
        && version.is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    removed.then(|| {
        McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("{method} was removed in protocol 2026-07-28 (use server/discover and per-request _meta)"),
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_methods_are_not_found_under_2026_07_28_only() {
        let new = ProtocolVersion::V_2026_07_28;
        let old = ProtocolVersion::V_2025_06_18;
        for method in ["initialize", "logging/setLevel"] {
            let e = not_found_under(method, Some(&new)).unwrap();
            assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
            assert!(not_found_under(method, Some(&old)).is_none());
            assert!(not_found_under(method, None).is_none());
        }
        assert!(not_found_under("tools/list", Some(&new)).is_none());
    }
}
