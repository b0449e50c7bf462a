//! Streamable HTTP over a real loopback port: DNS-rebinding protection,
//! the body limit, `/healthz`, the MCP handshake and graceful shutdown.
//! (These requests never reach Keeper; the end-to-end tool calls are in
//! tests/e2e-python and tests/e2e-node.)

use std::time::Duration;

use herald_core::config::{HttpSettings, Settings};
use herald_core::tools::Toolbox;
use herald_server::HeraldServer;
use herald_server::http;
use herald_server::mcp::credential::CallerAuth;
use herald_server::mcp::tool_forms::ToolForms;
use herald_server::shutdown::Shutdown;
use serde_json::{Value, json};

#[path = "http_transport/connections.rs"]
mod connections;
#[path = "http_transport/fair_share.rs"]
mod fair_share;
#[path = "http_transport/limits.rs"]
mod limits;

struct Running {
    base: String,
    shutdown: Shutdown,
    task: tokio::task::JoinHandle<Result<(), herald_server::ServerError>>,
}

async fn start(configure: impl FnOnce(&mut HttpSettings)) -> Running {
    start_with(|s| configure(&mut s.http)).await
}

/// [`start`] with any settings changed.
async fn start_with(configure: impl FnOnce(&mut Settings)) -> Running {
    let mut settings = Settings::default();
    settings.http.port = 0;
    settings.http.max_body_bytes = 4096;
    // No tool served: the transport alone.
    settings.tools.allow = Some(Vec::new());
    configure(&mut settings);
    let toolbox = Toolbox::new(settings.clone()).expect("toolbox");
    let tools = ToolForms::new(toolbox.built_in_definitions());
    let server = HeraldServer::new(
        toolbox,
        tools,
        CallerAuth::HttpBearer {
            allow_anonymous: false,
        },
    );
    let bound = http::bind(&settings.http).await.expect("bind");
    let base = format!("http://{}", bound.addr);
    let shutdown = Shutdown::new();
    let s = shutdown.clone();
    let task = tokio::spawn(async move { http::serve(bound, server, &settings.http, s).await });
    Running {
        base,
        shutdown,
        task,
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}
    }})
}

fn post(client: &reqwest::Client, url: &str) -> reqwest::RequestBuilder {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

async fn assert_json_rpc_refusal(resp: reqwest::Response, status: u16, needle: &str) {
    assert_eq!(resp.status().as_u16(), status);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "application/json"
    );
    let body: Value = resp.json().await.expect("JSON body");
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["id"], Value::Null);
    assert!(body["error"]["code"].is_i64());
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(needle), "{message}");
}

#[tokio::test]
async fn initialize_answers_with_herald_server_info() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    let resp = post(&client, &format!("{}/mcp", r.base))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["result"]["serverInfo"]["name"], "lorebase-herald");
    assert_eq!(
        body["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18");
    let caps = &body["result"]["capabilities"];
    // No Lorebase tool in this test server: only tools and logging.
    for cap in ["tools", "logging"] {
        assert!(caps.get(cap).is_some(), "missing capability {cap}: {caps}");
    }
    r.shutdown.trigger();
    r.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn newest_protocol_revisions_negotiate() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let mut init = initialize();
        init["params"]["protocolVersion"] = json!(version);
        let body: Value = post(&client, &format!("{}/mcp", r.base))
            .json(&init)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(body["result"]["protocolVersion"], version, "{body}");
    }
    r.shutdown.trigger();
}

#[tokio::test]
async fn foreign_host_is_refused_with_json_rpc_403() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    for host in ["evil.example", "evil.example:80", "127.0.0.1.nip.io"] {
        let resp = post(&client, &format!("{}/mcp", r.base))
            .header("host", host)
            .json(&initialize())
            .send()
            .await
            .unwrap();
        assert_json_rpc_refusal(resp, 403, "Host").await;
    }
    for host in ["localhost:1234", "127.0.0.1", "[::1]:8090"] {
        let resp = post(&client, &format!("{}/mcp", r.base))
            .header("host", host)
            .json(&initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{host}");
    }
    r.shutdown.trigger();
}

#[tokio::test]
async fn configured_hosts_and_origins_are_accepted() {
    let r = start(|h| {
        h.allowed_hosts = vec!["herald".into()];
        h.allowed_origins = vec!["https://app.example.com".into()];
    })
    .await;
    let client = reqwest::Client::new();
    let ok = post(&client, &format!("{}/mcp", r.base))
        .header("host", "herald:8090")
        .header("origin", "https://app.example.com")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let refused = post(&client, &format!("{}/mcp", r.base))
        .header("origin", "https://evil.example.com")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_json_rpc_refusal(refused, 403, "Origin").await;
    r.shutdown.trigger();
}

#[tokio::test]
async fn foreign_origin_is_refused_and_local_ones_pass() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    for origin in ["http://evil.example", "null", "https://localhost:3000"] {
        let resp = post(&client, &format!("{}/mcp", r.base))
            .header("origin", origin)
            .json(&initialize())
            .send()
            .await
            .unwrap();
        assert_json_rpc_refusal(resp, 403, "Origin").await;
    }
    for origin in ["http://localhost:6274", "http://127.0.0.1"] {
        let resp = post(&client, &format!("{}/mcp", r.base))
            .header("origin", origin)
            .json(&initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{origin}");
    }
    r.shutdown.trigger();
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    let mut big = initialize();
    big["params"]["padding"] = json!("x".repeat(10_000));
    let resp = post(&client, &format!("{}/mcp", r.base))
        .body(big.to_string())
        .send()
        .await
        .unwrap();
    assert_json_rpc_refusal(resp, 413, "4096").await;
    // Without a Content-Length (chunked), the limit holds while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..10).map(|_| Ok(vec![b' '; 1000])).collect();
    let stream = futures::stream::iter(chunks);
    let resp = post(&client, &format!("{}/mcp", r.base))
        .body(reqwest::Body::wrap_stream(stream))
        .send()
        .await
        .unwrap();
    assert_json_rpc_refusal(resp, 413, "4096").await;
    r.shutdown.trigger();
}

#[tokio::test]
async fn healthz_answers_without_keeper() {
    let r = start(|_| {}).await;
    let body: Value = reqwest::get(format!("{}/healthz", r.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["name"], "lorebase-herald");
    r.shutdown.trigger();
}

#[tokio::test]
async fn shutdown_stops_accepting() {
    let r = start(|_| {}).await;
    r.shutdown.trigger();
    tokio::time::timeout(Duration::from_secs(10), r.task)
        .await
        .expect("stops")
        .unwrap()
        .unwrap();
    assert!(reqwest::get(format!("{}/healthz", r.base)).await.is_err());
}
