//! Fault injection, the admin endpoints, and the binary's READY line.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Harness;
use lorebase_sandbox::{AuthMode, Fault};
use serde_json::{Value, json};

const SCHEMA: &str = "/api/v1/domains/supply/schema";

#[tokio::test]
async fn injected_statuses_answer_problems_with_retry_after() {
    let h = Harness::start(AuthMode::None).await;
    let before = h.sandbox.request_count();
    h.sandbox.inject(Fault::status(429).retry_after(2).times(2));
    h.sandbox.inject(Fault::status(503));
    for _ in 0..2 {
        let a = h.get(SCHEMA).await;
        assert_eq!((a.status, a.code()), (429, "rate-limited"));
        assert_eq!(a.headers.get("retry-after").unwrap(), "2");
        assert_eq!(a.body["retry_after"], 2);
    }
    let a = h.get(SCHEMA).await;
    assert_eq!((a.status, a.code()), (503, "keeper-unavailable"));
    assert!(a.headers.get("retry-after").is_none());
    let ok = h.get(SCHEMA).await;
    assert_eq!(ok.status, 200);
    assert_eq!(h.sandbox.request_count() - before, 4);
    // Admin calls are not API calls and are never faulted.
    h.sandbox.inject(Fault::status(429));
    let stats = h.get("/_sandbox/stats").await;
    assert_eq!(stats.status, 200);
    assert_eq!(stats.body["requests"], 4);
    assert_eq!(stats.body["pending_faults"], 1);
    h.sandbox.clear_faults();
    assert_eq!(h.get(SCHEMA).await.status, 200);
}

#[tokio::test]
async fn delays_and_dropped_connections() {
    let h = Harness::start(AuthMode::None).await;
    h.sandbox.inject(Fault::drop_connection());
    let err = h.http.get(h.url(SCHEMA)).send().await;
    assert!(err.is_err(), "the connection is closed without an answer");
    assert_eq!(h.get(SCHEMA).await.status, 200, "the next call is served");
    h.sandbox.inject(Fault::delay(Duration::from_millis(300)));
    let t = Instant::now();
    assert_eq!(h.get(SCHEMA).await.status, 200);
    assert!(
        t.elapsed() >= Duration::from_millis(300),
        "the answer waited for the delay"
    );
}

#[tokio::test]
async fn admin_endpoints_inject_clear_and_reset() {
    let h = Harness::start(AuthMode::None).await;
    let added = h
        .post(
            "/_sandbox/faults",
            json!({"count": 1, "status": 423, "retry_after": 1}),
        )
        .await;
    assert_eq!(
        (added.status, added.body["pending"].as_u64()),
        (201, Some(1))
    );
    // (raw: the contract documents 423 on writes only)
    let busy = h.http.get(h.url(SCHEMA)).send().await.unwrap();
    assert_eq!(
        (
            busy.status().as_u16(),
            busy.headers()["retry-after"].to_str().unwrap()
        ),
        (423, "1")
    );
    let body: Value = busy.json().await.unwrap();
    assert_eq!(body["code"], "branch-busy");
    h.post("/_sandbox/faults", json!({"count": 3, "drop": true}))
        .await;
    let cleared = h
        .http
        .delete(h.url("/_sandbox/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    assert_eq!(h.get(SCHEMA).await.status, 200);
    let bad = h
        .post("/_sandbox/faults", json!({"status": 429, "drop": true}))
        .await;
    assert_eq!(bad.status, 422);
    h.post("/_sandbox/faults", json!({"delay_ms": 1})).await;
    assert_eq!(h.get(SCHEMA).await.status, 200);

    // Writes vanish on reset.
    let exec = "/api/v1/domains/retail/operations/update_product/execute";
    let done = h
        .post(
            exec,
            json!({"parameters": {"sku": "P-0001", "price": 1.0}, "dry_run": false}),
        )
        .await;
    assert_eq!(done.status, 200);
    let reset = h.http.post(h.url("/_sandbox/reset")).send().await.unwrap();
    assert_eq!(reset.status(), 204);
    let p = h
        .get("/api/v1/domains/retail/kinds/Product/records/P-0001")
        .await;
    assert_eq!(p.body["values"]["price"], 129.0);
}

#[tokio::test]
async fn unknown_routes_and_methods_are_problems() {
    let h = Harness::start(AuthMode::None).await;
    let r = h.http.get(h.url("/api/v2/nothing")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let r = h.http.delete(h.url(SCHEMA)).send().await.unwrap();
    assert_eq!(r.status(), 405);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], 405);
}

/// The binary prints one READY line with the URL and the minted keys, and
/// serves the history of Supplier/S-1001.
#[tokio::test]
async fn the_binary_prints_ready_and_serves_s1001() {
    let bin = env!("CARGO_BIN_EXE_lorebase-sandbox");
    let mut child = Command::new(bin)
        .args(["--port", "0", "--auth", "api_key", "--seed", "7"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let json_part = line
        .strip_prefix("LOREBASE_SANDBOX_READY ")
        .expect("a READY line");
    let ready: Value = serde_json::from_str(json_part.trim()).unwrap();
    assert_eq!(ready["auth"], "api_key");
    let keys = ready["keys"].as_array().unwrap();
    let principals: Vec<&str> = keys
        .iter()
        .map(|k| k["principal"].as_str().unwrap())
        .collect();
    assert_eq!(
        principals,
        ["agt_reader", "agt_risk_bot", "usr_steward", "usr_admin"]
    );
    assert!(
        keys[1]["operations"]
            .as_array()
            .unwrap()
            .contains(&json!("flag_supplier_risk"))
    );
    let url = ready["url"].as_str().unwrap();
    let key = keys[0]["key"].as_str().unwrap();
    let client = reqwest::Client::new();
    let resp = client
        .get(format!(
            "{url}/api/v1/domains/supply/kinds/Supplier/records/S-1001/history?values=true"
        ))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["entries"].as_array().unwrap().len(), 2);
    assert_eq!(
        body["entries"][0]["changes"][0],
        json!({"attribute": "risk_score", "before": 32, "after": 90})
    );
    let _ = child.kill();
    let _ = child.wait();

    // The same seed mints the same keys.
    let mut again = Command::new(bin)
        .args(["--port", "0", "--auth", "api_key", "--seed", "7"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line2 = String::new();
    BufReader::new(again.stdout.take().unwrap())
        .read_line(&mut line2)
        .unwrap();
    let _ = again.kill();
    let _ = again.wait();
    let ready2: Value =
        serde_json::from_str(line2.trim_start_matches("LOREBASE_SANDBOX_READY ").trim()).unwrap();
    assert_eq!(ready2["keys"], ready["keys"]);
    let bad = Command::new(bin)
        .args(["--auth", "sometimes"])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!bad.success());
}
