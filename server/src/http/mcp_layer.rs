//! The one middleware in front of the MCP endpoint, its steps in order: the
//! guard (headers, the body read within its limit and checked, the JSON
//! budget, the large-body lane: [`crate::http::guard`]), the cancellations
//! of stateless HTTP ([`crate::http::cancel_notice`]), then the tool-set
//! headers ([`crate::http::tool_headers`]), then rmcp.
//!
//! One layer, not one per step: each axum layer clones the service inside
//! it and boxes a future for every request, which a plain `tools/call`
//! would pay once per step (docs/benchmarks.md, "Where a call's CPU goes").

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use herald_core::tools::Toolbox;

use crate::http::cancel_notice::{CallsInFlight, cancel_notice};
use crate::http::guard::{GuardState, guard};
use crate::http::tool_headers::narrow;

/// What the MCP endpoint's layer holds for one listener.
#[derive(Debug)]
pub(crate) struct McpLayer {
    /// The guard's rules and shared state.
    pub guard: GuardState,
    /// The calls in flight, where cancellations reach them (stateless HTTP).
    pub calls: Option<Arc<CallsInFlight>>,
    /// The toolbox the tool-set headers narrow (`http.tool_headers`).
    pub toolbox: Option<Arc<Toolbox>>,
}

/// The middleware: the guard, the cancellations, the tool-set headers, then
/// `next` (rmcp), each step only where it is on.
pub(crate) async fn mcp_layer(
    State(layer): State<Arc<McpLayer>>,
    request: Request,
    next: Next,
) -> Response {
    let steps = Arc::clone(&layer);
    guard(&layer.guard, request, move |request| async move {
        let headers = |request: Request| async {
            match &steps.toolbox {
                Some(toolbox) => narrow(toolbox, request, |r| next.run(r)).await,
                None => next.run(request).await,
            }
        };
        match &steps.calls {
            Some(calls) => cancel_notice(calls, request, headers).await,
            None => headers(request).await,
        }
    })
    .await
}
