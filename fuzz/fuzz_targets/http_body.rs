//! The HTTP body -> MCP handler path: any bytes POSTed to `/mcp` go through
//! the guard (Host, Origin, body limit, JSON-RPC shape), rmcp's Streamable
//! HTTP service (stateless, JSON answers) and Herald's handler, in process
//! (no socket). Never a panic or a 500; a JSON answer is JSON; a tool result
//! is well formed and within the caps.
#![no_main]

use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use herald_server::Herald;
use herald_server::http::readiness::Readiness;
use herald_server::http::{HeapTrims, router};
use herald_server::mcp::credential::CallerAuth;
use herald_server::shutdown::Shutdown;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower::ServiceExt;

fn app() -> &'static Router {
    static APP: OnceLock<Router> = OnceLock::new();
    APP.get_or_init(|| {
        let _guard = herald_fuzz::runtime().enter();
        let mut settings = herald_fuzz::settings();
        settings.http.allow_anonymous = true;
        let herald = Herald::build(settings).expect("Herald");
        let handler = herald.handler(CallerAuth::HttpBearer {
            allow_anonymous: true,
        });
        let readiness = Readiness::new(Shutdown::new(), herald.toolbox.keeper().clone());
        router(
            handler,
            &herald.settings.http,
            tokio_util::sync::CancellationToken::new(),
            readiness,
            None,
            std::sync::Arc::new(HeapTrims::default()),
        )
        .expect("the router")
    })
}

fuzz_target!(|data: &[u8]| {
    let request = Request::post("/mcp")
        .header("host", "127.0.0.1:8090")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::from(data.to_vec()))
        .expect("a request");
    let (status, json, body) = herald_fuzz::runtime().block_on(async {
        let response = app().clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let json = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let body = axum::body::to_bytes(response.into_body(), 64 * 1024 * 1024)
            .await
            .expect("the body");
        (status, json, body)
    });
    assert_ne!(
        status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "{}",
        String::from_utf8_lossy(&body)
    );
    if json && !body.is_empty() {
        let answer: Value = serde_json::from_slice(&body).expect("a JSON answer is JSON");
        if let Some(result) = answer.get("result")
            && let Some(content) = result.get("content").and_then(Value::as_array)
            && let Some(text) = content
                .first()
                .and_then(|c| c.get("text"))
                .and_then(Value::as_str)
        {
            let out = herald_core::tools::RenderedOutput {
                text: text.to_string(),
                is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
                structured: result.get("structuredContent").cloned(),
            };
            herald_fuzz::check_output(&out, &herald_fuzz::toolbox().settings().output);
        }
    }
});
