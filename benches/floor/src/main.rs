//! The floor: one MCP tool, `lorebase_get`, answering with the body of the
//! same Keeper GET Herald makes for `{"ref": "Kind/ID"}`. No settings file,
//! guard, argument checks, rendering or caps: what is left is rmcp's
//! stateless JSON Streamable HTTP server, axum, and reqwest.
//!
//! Environment: `LOREBASE_URL`, `LOREBASE_DOMAIN`, and
//! `LOREBASE__HERALD__HTTP__PORT` (Herald's own names, so benches/run.py
//! starts both alike). The caller's `Authorization` header is forwarded to
//! Keeper, as Herald forwards it over Streamable HTTP.
//!
//! `herald-floor --stdio` serves the same tool over stdio instead (rmcp's
//! `stdio_pipes`, as Herald), sending `LOREBASE_API_KEY` as the bearer: the
//! floor of a stdio call.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

#[derive(Clone)]
struct Floor {
    http: reqwest::Client,
    records: Arc<str>,
    /// `Bearer LOREBASE_API_KEY`, sent over stdio (no caller headers there).
    bearer: Option<Arc<str>>,
}

impl ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let schema = serde_json::json!({"type": "object"});
        let schema = schema.as_object().cloned().unwrap_or_default();
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "lorebase_get",
            "A Record",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let reference = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("ref"))
            .and_then(|r| r.as_str());
        let (kind, id) = reference
            .and_then(|r| r.split_once('/'))
            .unwrap_or_default();
        let url = format!("{}/kinds/{kind}/records/{id}", self.records);
        // The caller's own `Authorization` header, forwarded as Herald does over HTTP.
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let mut get = self.http.get(url);
        if let Some(auth) = parts.and_then(|p| p.headers.get("authorization")) {
            get = get.header("authorization", auth.clone());
        } else if let Some(bearer) = &self.bearer {
            get = get.header("authorization", &**bearer);
        }
        let answer = get.send().await;
        let text = match answer {
            Ok(a) => a.text().await.unwrap_or_default(),
            Err(e) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(e.to_string())]).into());
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tokio::main]
async fn main() {
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let base = env("LOREBASE_URL");
    let floor = Floor {
        http: reqwest::Client::new(),
        records: format!(
            "{}/api/v1/domains/{}",
            base.trim_end_matches('/'),
            env("LOREBASE_DOMAIN")
        )
        .into(),
        bearer: std::env::var("LOREBASE_API_KEY")
            .ok()
            .map(|k| format!("Bearer {k}").into()),
    };
    if std::env::args().any(|a| a == "--stdio") {
        use rmcp::ServiceExt;
        let running = floor
            .serve(rmcp::transport::stdio_pipes())
            .await
            .expect("the host's initialize");
        let _ = running.waiting().await;
        return;
    }
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(floor.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let port: u16 = env("LOREBASE__HERALD__HTTP__PORT").parse().unwrap_or(8090);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("bind");
    eprintln!("herald-floor on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, axum::Router::new().nest_service("/mcp", service))
        .await
        .expect("serve");
}
