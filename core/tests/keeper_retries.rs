//! Resends, counted through the sandbox's fault injection over real HTTP; the
//! planned waits are read from the client's log lines (the elapsed time only
//! gives lower bounds, which a slow machine cannot break).

use crate::log_capture;

use std::time::{Duration, Instant};

use herald_core::config::{KeeperSettings, Settings};
use herald_core::error::{KeeperError, ToolError};
use herald_core::keeper::model::*;
use herald_core::keeper::{Credential, KeeperClient};
use log_capture::Captured;
use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};
use serde_json::json;

/// The planned pauses, from the "resending in N s" lines.
fn delays(log: &Captured) -> Vec<f64> {
    log.text()
        .lines()
        .filter_map(|l| l.split("resending in ").nth(1))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

async fn sandbox() -> Sandbox {
    Sandbox::start(SandboxOptions {
        auth: AuthMode::None,
        ..Default::default()
    })
    .await
    .expect("sandbox starts")
}

fn client(url: String, max_retries: u32, retry_max_wait_s: u64) -> KeeperClient {
    KeeperClient::new(&KeeperSettings {
        base_url: url,
        max_retries,
        retry_max_wait_s,
        ..Settings::default().keeper
    })
    .unwrap()
}

async fn read(k: &KeeperClient) -> Result<Schema, KeeperError> {
    k.schema(&Credential::Anonymous, "supply", &SchemaParams::default())
        .await
}

#[tokio::test]
async fn retry_after_1_is_waited_then_the_call_succeeds() {
    let sb = sandbox().await;
    let k = client(sb.url(), 2, 5);
    let (log, _guard) = Captured::start();
    sb.inject(Fault::status(429).retry_after(1).times(1));
    let before = sb.request_count();
    let started = Instant::now();
    read(&k).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(990));
    assert_eq!(sb.request_count() - before, 2);
    assert_eq!(delays(&log), [1.0]);
}

#[tokio::test]
async fn retry_after_60_is_capped_at_retry_max_wait_s() {
    let sb = sandbox().await;
    let k = client(sb.url(), 1, 5);
    let (log, _guard) = Captured::start();
    sb.inject(Fault::status(429).retry_after(60).times(1));
    let before = sb.request_count();
    let started = Instant::now();
    read(&k).await.unwrap();
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(4990), "{elapsed:?}");
    // Far below the 60 s asked for (a generous bound for a loaded machine).
    assert!(elapsed < Duration::from_secs(40), "{elapsed:?}");
    assert_eq!(sb.request_count() - before, 2);
    assert_eq!(delays(&log), [5.0]);
}

#[tokio::test]
async fn two_503s_then_success() {
    let sb = sandbox().await;
    let k = client(sb.url(), 2, 1);
    let (log, _guard) = Captured::start();
    sb.inject(Fault::status(503).times(2));
    let before = sb.request_count();
    read(&k).await.unwrap();
    assert_eq!(sb.request_count() - before, 3);
    // Backoff with jitter: between half and all of 250 ms, then of 500 ms.
    let d = delays(&log);
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        (0.125..=0.25).contains(&d[0]) && (0.25..=0.5).contains(&d[1]),
        "{d:?}"
    );
}

#[tokio::test]
async fn retries_stop_at_max_retries() {
    let sb = sandbox().await;
    let k = client(sb.url(), 2, 0);
    sb.inject(Fault::status(503).retry_after(2).times(5));
    let before = sb.request_count();
    let text = ToolError::from(read(&k).await.unwrap_err())
        .render(&herald_core::config::Settings::default().output);
    assert_eq!(sb.request_count() - before, 3, "one call and two resends");
    assert!(text.starts_with("[keeper-unavailable] "), "{text}");
    assert!(text.ends_with("next: retry after 2 s"), "{text}");
}

#[tokio::test]
async fn max_retries_0_never_resends() {
    let sb = sandbox().await;
    let k = client(sb.url(), 0, 5);
    for fault in [
        Fault::status(429),
        Fault::status(503),
        Fault::drop_connection(),
    ] {
        sb.inject(fault.times(3));
        let before = sb.request_count();
        let e = read(&k).await.unwrap_err();
        assert!(
            e.code()
                .known()
                .is_some_and(herald_core::keeper::model::ProblemCode::is_transient),
            "{e}"
        );
        assert_eq!(sb.request_count() - before, 1, "{e}");
        sb.clear_faults();
    }
}

#[tokio::test]
async fn other_statuses_are_never_resent() {
    let sb = sandbox().await;
    let k = client(sb.url(), 2, 0);
    for status in [400, 401, 403, 404, 409, 422, 423, 500, 502] {
        sb.inject(Fault::status(status).times(3));
        let before = sb.request_count();
        read(&k).await.unwrap_err();
        assert_eq!(sb.request_count() - before, 1, "status {status} was resent");
        sb.clear_faults();
    }
    // And a genuine not-found.
    let before = sb.request_count();
    let missing: RecordRef = "Supplier/S-0000".parse().unwrap();
    let e = k
        .record(
            &Credential::Anonymous,
            "supply",
            &missing,
            &RecordParams::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::NotFound);
    assert_eq!(sb.request_count() - before, 1);
}

fn write(idempotency_key: Option<&str>, dry_run: bool) -> ExecuteRequest {
    ExecuteRequest {
        branch: Some("dev".into()),
        parameters: json!({"supplier_code": "S-1002", "risk_score": 44})
            .as_object()
            .unwrap()
            .clone(),
        dry_run,
        idempotency_key: idempotency_key.map(str::to_string),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_write_without_idempotency_key_is_never_resent() {
    let sb = sandbox().await;
    let k = client(sb.url(), 2, 0);
    let c = &Credential::Anonymous;
    for fault in [
        Fault::status(503),
        Fault::status(429),
        Fault::drop_connection(),
    ] {
        sb.inject(fault.times(3));
        let before = sb.request_count();
        let e = k
            .execute(c, "supply", "update_supplier", &write(None, false))
            .await
            .unwrap_err();
        assert_eq!(sb.request_count() - before, 1, "{e}");
        assert!(e.to_string().contains("never resent"), "{e}");
        sb.clear_faults();
    }
    // With a key it is resent, and commits once.
    sb.inject(Fault::status(503).times(1));
    let before = sb.request_count();
    let req = write(Some("raise-s1002-44"), false);
    let first = k
        .execute(c, "supply", "update_supplier", &req)
        .await
        .unwrap();
    assert_eq!(sb.request_count() - before, 2);
    // A dry run is a read: resent too.
    sb.inject(Fault::status(503).times(1));
    let before = sb.request_count();
    k.execute(c, "supply", "update_supplier", &write(None, true))
        .await
        .unwrap();
    assert_eq!(sb.request_count() - before, 2);
    // The same key again answers the same commit.
    let again = k
        .execute(c, "supply", "update_supplier", &req)
        .await
        .unwrap();
    assert_eq!(first.revision, again.revision);
}

#[tokio::test]
async fn a_dropped_connection_is_resent() {
    let sb = sandbox().await;
    let k = client(sb.url(), 1, 0);
    sb.inject(Fault::drop_connection().times(1));
    let before = sb.request_count();
    read(&k).await.unwrap();
    assert_eq!(sb.request_count() - before, 2);
}

#[tokio::test]
async fn connection_refused_is_keeper_unavailable_after_the_retries() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let k = client(format!("http://127.0.0.1:{port}"), 2, 0);
    let (log, _guard) = Captured::start();
    let e = read(&k).await.unwrap_err();
    assert!(matches!(e, KeeperError::Unavailable(_)), "{e:?}");
    let text = ToolError::from(e).render(&herald_core::config::Settings::default().output);
    assert!(
        text.starts_with(&format!(
            "[keeper-unavailable] cannot reach Keeper at http://127.0.0.1:{port}: cannot connect"
        )),
        "{text}"
    );
    assert!(text.contains("(3 attempts)"), "{text}");
    assert!(text.ends_with("next: retry after 5 s"), "{text}");
    assert_eq!(delays(&log).len(), 2, "{}", log.text());

    let k = client(format!("http://127.0.0.1:{port}"), 0, 0);
    let text = read(&k).await.unwrap_err().to_string();
    assert!(text.contains("(1 attempt)"), "{text}");
}

#[tokio::test]
async fn a_keeper_slower_than_timeout_s_is_keeper_unavailable_in_time() {
    let sb = sandbox().await;
    let k = KeeperClient::new(&KeeperSettings {
        base_url: sb.url(),
        max_retries: 0,
        timeout_s: 1,
        ..Settings::default().keeper
    })
    .unwrap();
    sb.inject(Fault::delay(Duration::from_secs(5)).times(1));
    let started = Instant::now();
    let e = read(&k).await.unwrap_err();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(4),
        "waited {took:?} for a 1 s timeout"
    );
    assert!(matches!(e, KeeperError::Unavailable(_)), "{e:?}");
    let text = ToolError::from(e).render(&Settings::default().output);
    assert!(text.starts_with("[keeper-unavailable] "), "{text}");
    assert!(text.contains("no answer within 1 s"), "{text}");
    assert!(text.lines().last().unwrap().starts_with("next: "), "{text}");
}
