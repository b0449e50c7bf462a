//! The HTTP front under slow and hostile clients, over raw TCP on a real
//! port: a bounded drain with half-sent requests, the head, body and idle
//! timeouts, the connection limit, `/readyz`, and the JSON-RPC answers to
//! bodies and headers that are not right.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{initialize, post, start};

fn addr(base: &str) -> String {
    base.trim_start_matches("http://").to_string()
}

/// Whether the server closes `stream` within `within` (a read gives EOF or
/// an error); what it sent before closing is ignored.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline.into(), stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

/// Sends raw bytes and reads the whole answer (the request says `close`).
/// `n` connections, each with the start of a request's head and no more.
async fn half_sent_requests(base: &str, n: usize) -> Vec<TcpStream> {
    let mut opened = Vec::with_capacity(n);
    for _ in 0..n {
        let mut s = TcpStream::connect(addr(base)).await.unwrap();
        s.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n")
            .await
            .unwrap();
        opened.push(s);
    }
    opened
}

async fn raw(base: &str, request: &str) -> (u16, Value) {
    let mut s = TcpStream::connect(addr(base)).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut answer))
        .await
        .expect("answered")
        .unwrap();
    let text = String::from_utf8_lossy(&answer);
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn shutdown_finishes_while_clients_hold_half_sent_requests() {
    let r = start(|h| h.drain_timeout_s = 20).await;
    let mut half_line = TcpStream::connect(addr(&r.base)).await.unwrap();
    half_line.write_all(b"POST /mcp HT").await.unwrap();
    let mut half_body = TcpStream::connect(addr(&r.base)).await.unwrap();
    half_body
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    r.shutdown.trigger();
    tokio::time::timeout(Duration::from_secs(5), r.task)
        .await
        .expect("shutdown within 5 s, not the 20 s drain")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(closed_within(&mut half_line, Duration::from_secs(1)).await);
    assert!(closed_within(&mut half_body, Duration::from_secs(1)).await);
}

#[tokio::test]
async fn a_head_sent_slowly_is_cut_at_the_header_timeout() {
    let r = start(|h| h.header_timeout_s = 1).await;
    let mut slow = TcpStream::connect(addr(&r.base)).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    // One header line every 300 ms never completes the head.
    let writer = async {
        for i in 0..20 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if slow
                .write_all(format!("x-slow-{i}: 1\r\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(4), writer)
        .await
        .ok();
    let mut fresh = TcpStream::connect(addr(&r.base)).await.unwrap();
    assert!(closed_within(&mut slow, Duration::from_millis(100)).await);
    assert!(started.elapsed() < Duration::from_secs(4));
    // A connection that sends nothing is cut too.
    assert!(closed_within(&mut fresh, Duration::from_secs(2)).await);
    r.shutdown.trigger();
}

#[tokio::test]
async fn a_body_that_stops_is_cut_at_the_body_timeout() {
    let r = start(|h| h.body_timeout_s = 1).await;
    let mut s = TcpStream::connect(addr(&r.base)).await.unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"")
        .await
        .unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut s, Duration::from_secs(3)).await);
    assert!(started.elapsed() >= Duration::from_millis(900));
    r.shutdown.trigger();
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_at_the_idle_timeout() {
    let r = start(|h| h.idle_timeout_s = 1).await;
    let mut s = TcpStream::connect(addr(&r.base)).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = s.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    let started = Instant::now();
    assert!(closed_within(&mut s, Duration::from_secs(3)).await);
    assert!(started.elapsed() >= Duration::from_millis(900));
    r.shutdown.trigger();
}

#[tokio::test]
async fn slow_clients_past_the_connection_limit_do_not_lock_others_out() {
    let r = start(|h| h.max_connections = 16).await;
    // 200 clients that open a request and send a header line now and then.
    let mut slow = half_sent_requests(&r.base, 200).await;
    // Connections younger than a tenth of a second are never closed to make room.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let client = reqwest::Client::new();
    let started = Instant::now();
    let health = client
        .get(format!("{}/healthz", r.base))
        .timeout(Duration::from_secs(1))
        .send()
        .await
        .expect("healthz answered within 1 s");
    assert_eq!(health.status(), 200);
    let init = post(&client, &format!("{}/mcp", r.base))
        .timeout(Duration::from_secs(1))
        .json(&initialize())
        .send()
        .await
        .expect("initialize answered within 1 s");
    assert_eq!(init.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
    // The server holds at most 16: the oldest slow clients were closed.
    let mut closed = 0;
    for s in &mut slow {
        if closed_within(s, Duration::from_millis(20)).await {
            closed += 1;
        }
    }
    assert!(
        closed >= 200 - 16,
        "only {closed} of 200 slow clients closed"
    );
    r.shutdown.trigger();
}

#[tokio::test]
async fn a_client_behind_a_wave_of_new_connections_waits_for_room_instead_of_a_503() {
    let r = start(|h| h.max_connections = 16).await;
    // 16 clients that reconnected together: each younger than the tenth of
    // a second under which no connection is closed to make room.
    let mut wave = half_sent_requests(&r.base, 16).await;
    let started = Instant::now();
    let (status, body) = raw(
        &r.base,
        "GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n",
    )
    .await;
    // Was 503 "too many connections": it waited for the oldest to grow.
    assert_eq!(status, 200, "{body}");
    assert!(started.elapsed() < Duration::from_secs(1));
    let mut closed = 0;
    for s in &mut wave {
        if closed_within(s, Duration::from_millis(20)).await {
            closed += 1;
        }
    }
    assert!(closed >= 1, "one of the wave made room");
    r.shutdown.trigger();
}

#[tokio::test]
async fn at_the_limit_an_idle_connection_makes_room_for_a_new_one() {
    let r = start(|h| h.max_connections = 1).await;
    let mut idle = TcpStream::connect(addr(&r.base)).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = idle.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // A new connection is turned away with 503 while the idle one is within
    // its grace after an answer (2 s: a client between two calls).
    let (status, body) = raw(
        &r.base,
        "GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], -32000);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (status, body) = raw(
        &r.base,
        "GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(closed_within(&mut idle, Duration::from_secs(1)).await);
    r.shutdown.trigger();
}

#[tokio::test]
async fn readyz_says_ready_and_what_keeper_last_did() {
    let r = start(|_| {}).await;
    let resp = reqwest::get(format!("{}/readyz", r.base)).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["ready"], true);
    assert_eq!(body["draining"], false);
    assert!(body["keeper"].get("last_ok_s_ago").is_some(), "{body}");
    r.shutdown.trigger();
}

#[tokio::test]
async fn readyz_turns_503_during_the_drain_delay_while_calls_still_pass() {
    let r = start(|h| h.drain_delay_s = 2).await;
    r.shutdown.trigger();
    let started = Instant::now();
    let resp = reqwest::get(format!("{}/readyz", r.base)).await.unwrap();
    assert_eq!(resp.status(), 503);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["ready"], false);
    assert_eq!(body["draining"], true);
    let client = reqwest::Client::new();
    let init = post(&client, &format!("{}/mcp", r.base))
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(init.status(), 200);
    tokio::time::timeout(Duration::from_secs(10), r.task)
        .await
        .expect("stops after the delay")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(1900));
}

#[tokio::test]
async fn bodies_that_are_not_json_rpc_get_json_rpc_400s() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    for (body, code) in [
        (b"{not json".to_vec(), -32700),
        (
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"\xff\xfe\"}".to_vec(),
            -32700,
        ),
        (deep.into_bytes(), -32700),
        (b"{\"hello\": 1}".to_vec(), -32600),
    ] {
        let resp = post(&client, &format!("{}/mcp", r.base))
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400);
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "application/json"
        );
        let answer: Value = resp.json().await.unwrap();
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    r.shutdown.trigger();
}

#[tokio::test]
async fn two_host_headers_and_foreign_absolute_targets_are_refused() {
    let r = start(|_| {}).await;
    let body = initialize().to_string();
    let head = |target: &str, hosts: &str| {
        format!(
            "POST {target} HTTP/1.1\r\n{hosts}content-type: application/json\r\naccept: application/json, text/event-stream\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let (status, answer) = raw(
        &r.base,
        &head("/mcp", "host: localhost\r\nhost: evil.com\r\n"),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32600);
    let (status, answer) = raw(&r.base, &head("http://evil.com/mcp", "host: localhost\r\n")).await;
    assert_eq!(status, 403, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Host")
    );
    let (status, _) = raw(
        &r.base,
        &head("http://localhost/mcp", "host: localhost\r\n"),
    )
    .await;
    assert_eq!(status, 200);
    r.shutdown.trigger();
}

#[tokio::test]
async fn routing_headers_that_lie_about_the_body_are_refused() {
    let r = start(|_| {}).await;
    let client = reqwest::Client::new();
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "lorebase_execute", "arguments": {"dry_run": false}}});
    let resp = post(&client, &format!("{}/mcp", r.base))
        .header("mcp-method", "tools/call")
        .header("mcp-name", "lorebase_get")
        .json(&call)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let answer: Value = resp.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32020, "{answer}");
    let init = post(&client, &format!("{}/mcp", r.base))
        .header("mcp-method", "initialize")
        .json(&initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(init.status(), 200);
    r.shutdown.trigger();
}
