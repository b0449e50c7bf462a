//! The connection limit shared fairly among clients, over raw TCP from
//! distinct loopback addresses (127.0.0.2 and on): one address holding
//! every slot, whatever its connections are doing, gives way to the others;
//! a client at its own limit makes room among its own; behind a trusted
//! proxy the forwarded address is the client; and a request cut to make
//! room is answered 503, never dropped without a word.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::start;

fn server_addr(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().unwrap()
}

/// A connection to `base` from the loopback address 127.0.0.`last`.
async fn connect_from(base: &str, last: u8) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(
            IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)),
            0,
        ))
        .unwrap();
    socket.connect(server_addr(base)).await.unwrap()
}

/// Reads one answer's head and body (by its content-length).
async fn read_answer(stream: &mut TcpStream) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&got).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_string)
                })
                .and_then(|n| n.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return Some(text);
            }
        }
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => {
                return (!got.is_empty()).then(|| String::from_utf8_lossy(&got).to_string());
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// `GET /healthz` on a kept-alive `stream`, with extra header lines.
async fn healthz(stream: &mut TcpStream, extra: &str) -> Option<String> {
    let request = format!("GET /healthz HTTP/1.1\r\nhost: localhost\r\n{extra}\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    read_answer(stream).await
}

/// Whether the server closed `stream` within `within`, and what it sent.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline.into(), stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(String::from_utf8_lossy(&got).to_string()),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test]
async fn one_address_holding_every_slot_gives_way_to_other_addresses() {
    let r = start(|h| h.max_connections = 16).await;
    // 8 kept-alive clients between two /healthz calls (idle, within their
    // grace) and 8 with a request whose body is still arriving: all from
    // one address, none of them closable by the rules for slow clients.
    let mut idle = Vec::new();
    for _ in 0..8 {
        let mut s = connect_from(&r.base, 1).await;
        let answer = healthz(&mut s, "").await.expect("answered");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        idle.push(s);
    }
    let mut calls = Vec::new();
    for _ in 0..8 {
        let mut s = connect_from(&r.base, 1).await;
        s.write_all(
            b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
              accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
        calls.push(s);
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    // Clients from 15 other addresses, each keeping its connection: each
    // served at once, none refused.
    let mut others = Vec::new();
    for last in 2..17 {
        let started = Instant::now();
        let mut s = connect_from(&r.base, last).await;
        let answer = healthz(&mut s, "").await.expect("answered");
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "127.0.0.{last}: {answer}"
        );
        assert!(started.elapsed() < Duration::from_secs(1));
        others.push(s);
    }
    // The flooding address paid for each: its requests under way first,
    // each answered 503, not dropped without a word; then its idle ones.
    for s in &mut calls {
        let said = closed_within(s, Duration::from_millis(100)).await;
        let said = said.expect("closed to make room");
        assert!(
            said.starts_with("HTTP/1.1 503"),
            "cut without an answer: {said:?}"
        );
    }
    let mut idle_closed = 0;
    for s in &mut idle {
        if closed_within(s, Duration::from_millis(50)).await.is_some() {
            idle_closed += 1;
        }
    }
    assert_eq!(idle_closed, 7, "one left of the 16");
    r.shutdown.trigger();
}

#[tokio::test]
async fn a_client_at_its_own_limit_makes_room_among_its_own_connections() {
    let r = start(|h| {
        h.max_connections = 64;
        h.max_connections_per_peer = 4;
    })
    .await;
    let mut other = connect_from(&r.base, 3).await;
    let mut first = Vec::new();
    for _ in 0..4 {
        let mut s = connect_from(&r.base, 2).await;
        s.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n")
            .await
            .unwrap();
        first.push(s);
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut kept = Vec::new();
    for _ in 0..4 {
        let mut s = connect_from(&r.base, 2).await;
        let answer = healthz(&mut s, "").await.expect("answered");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        kept.push(s);
    }
    let mut closed = 0;
    for s in &mut first {
        if closed_within(s, Duration::from_millis(50)).await.is_some() {
            closed += 1;
        }
    }
    assert_eq!(closed, 4, "its first 4 made room");
    // Another address was not touched.
    let answer = healthz(&mut other, "").await.expect("answered");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    r.shutdown.trigger();
}

/// 16 connections through a proxy at 127.0.0.1 for one forwarded client,
/// each between two calls; then the answer to a new connection through the
/// proxy for another client.
async fn proxied_flood_then_another_client(base: &str) -> String {
    let mut flood = Vec::new();
    for _ in 0..16 {
        let mut s = connect_from(base, 1).await;
        let answer = healthz(&mut s, "x-forwarded-for: 198.51.100.1\r\n")
            .await
            .expect("answered");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        flood.push(s);
    }
    let mut s = connect_from(base, 1).await;
    let answer = healthz(
        &mut s,
        "x-forwarded-for: 198.51.100.2\r\nconnection: close\r\n",
    )
    .await
    .expect("answered");
    drop(flood);
    answer
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_client() {
    let trusted = start(|h| {
        h.max_connections = 16;
        h.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let answer = proxied_flood_then_another_client(&trusted.base).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    trusted.shutdown.trigger();
    // Not trusted: every connection is the proxy's own, all one client,
    // whose connections between two calls are kept.
    let untrusted = start(|h| h.max_connections = 16).await;
    let answer = proxied_flood_then_another_client(&untrusted.base).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    untrusted.shutdown.trigger();
}

#[tokio::test]
async fn a_flood_of_connections_that_cannot_be_placed_does_not_hold_others_back() {
    let r = start(|h| h.max_connections = 16).await;
    // A wave that holds every slot, each too young to be closed ...
    let mut held = Vec::new();
    for _ in 0..16 {
        let mut s = connect_from(&r.base, 1).await;
        s.write_all(b"POST /mcp HTTP/1.1\r\nhost: localhost\r\n")
            .await
            .unwrap();
        held.push(s);
    }
    // ... and 200 more from the same address that must wait for room.
    for _ in 0..200 {
        held.push(connect_from(&r.base, 1).await);
    }
    let started = Instant::now();
    let mut s = connect_from(&r.base, 2).await;
    let answer = healthz(&mut s, "connection: close\r\n")
        .await
        .expect("answered");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // The accept loop no longer waits in turn for each of the 200.
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    r.shutdown.trigger();
}
