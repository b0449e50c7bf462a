//! The connection layer under clients that misuse their connections, over
//! raw TCP on a real port: a client that pipelines requests and
//! never reads the answers, and `/metrics` keeping to the Host rules and its
//! bearer. (A client that half-closes has left: tests/e2e-python/test_connection_layer.py.)

use std::time::{Duration, Instant};

use herald_core::config::Secret;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::{start, start_with};

fn addr(base: &str) -> std::net::SocketAddr {
    base.trim_start_matches("http://").parse().unwrap()
}

/// Reads until the server closes (or `within` passes); what it sent.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut all))
        .await
        .ok()?
        .ok()?;
    Some(all)
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_one_at_a_time() {
    let r = start(|_| {}).await;
    let mut s = TcpStream::connect(addr(&r.base)).await.unwrap();
    let one = "GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n";
    let last = "GET /readyz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n";
    s.write_all(format!("{one}{one}{one}{last}").as_bytes())
        .await
        .unwrap();
    let answer = read_until_closed(&mut s, Duration::from_secs(5))
        .await
        .expect("all answered");
    let text = String::from_utf8_lossy(&answer);
    assert_eq!(text.matches("HTTP/1.1 ").count(), 4, "{text}");
    assert_eq!(text.matches("\"status\":\"ok\"").count(), 3, "{text}");
    // /readyz comes last (503 or 200, whatever Keeper's state).
    let readyz = text.rfind("HTTP/1.1 ").unwrap();
    assert!(text[readyz..].contains("\"ready\""), "{text}");
    r.shutdown.trigger();
}

/// A connection with a 4 KiB receive buffer that pipelines `count`
/// requests for `/metrics` (a few KiB each: more than the kernel's socket
/// buffers hold) and reads nothing.
async fn never_reading(base: &str, count: usize) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut s = socket.connect(addr(base)).await.unwrap();
    let request = "GET /metrics HTTP/1.1\r\nhost: localhost\r\n\r\n".repeat(count);
    // The server reads only as fast as its answers leave: do not wait for it.
    let _ = tokio::time::timeout(Duration::from_millis(500), s.write_all(request.as_bytes())).await;
    s
}

#[tokio::test]
async fn a_client_that_never_reads_is_closed_at_the_send_timeout() {
    let r = start(|h| h.send_timeout_s = 1).await;
    let mut s = never_reading(&r.base, 5_000).await;
    let started = Instant::now();
    // Drain nothing until it is closed: reading now would free the window.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0;
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break true,
            Ok(Ok(n)) => read += n,
            Err(_) => break false,
        }
    };
    assert!(closed, "still open after {:?}", started.elapsed());
    // Far fewer answers (each over a KiB) than requests were ever sent.
    assert!(read < 5_000 * 1024, "{read} bytes read");
    r.shutdown.trigger();
}

#[tokio::test]
async fn at_the_limit_a_client_that_never_reads_makes_room() {
    let r = start(|h| h.max_connections = 1).await;
    let _stalled = never_reading(&r.base, 5_000).await;
    // The answer has not moved for a second: the first to close.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let mut s = TcpStream::connect(addr(&r.base)).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut s, Duration::from_secs(5))
        .await
        .expect("answered");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    r.shutdown.trigger();
}

async fn get_metrics(base: &str, headers: &str) -> String {
    let mut s = TcpStream::connect(addr(base)).await.unwrap();
    s.write_all(format!("GET /metrics HTTP/1.1\r\n{headers}connection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let answer = read_until_closed(&mut s, Duration::from_secs(5))
        .await
        .expect("answered");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn metrics_keep_to_the_host_rules_and_ask_for_their_bearer() {
    let open = start(|_| {}).await;
    let ok = get_metrics(&open.base, "host: localhost\r\n").await;
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    assert!(ok.contains("herald_http_connections_open"), "{ok}");
    let foreign = get_metrics(&open.base, "host: evil.example\r\n").await;
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    open.shutdown.trigger();

    let guarded = start_with(|s| s.metrics.bearer_token = Some(Secret::new("m3trics-token"))).await;
    let none = get_metrics(&guarded.base, "host: localhost\r\n").await;
    assert!(none.starts_with("HTTP/1.1 401"), "{none}");
    assert!(
        none.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{none}"
    );
    assert!(!none.contains("m3trics-token"), "{none}");
    let wrong = get_metrics(
        &guarded.base,
        "host: localhost\r\nauthorization: Bearer m3trics-tokeN\r\n",
    )
    .await;
    assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
    let right = get_metrics(
        &guarded.base,
        "host: localhost\r\nauthorization: Bearer m3trics-token\r\n",
    )
    .await;
    assert!(right.starts_with("HTTP/1.1 200"), "{right}");
    // The Host rules come first, bearer or not.
    let foreign = get_metrics(
        &guarded.base,
        "host: evil.example\r\nauthorization: Bearer m3trics-token\r\n",
    )
    .await;
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    guarded.shutdown.trigger();
}
