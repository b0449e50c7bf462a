//! Bounded answers and proxy variables, over real HTTP on loopback.

use std::collections::BTreeMap;

use herald_core::config::{KeeperSettings, Overrides, Settings};
use herald_core::error::{KeeperError, ToolError};
use herald_core::keeper::model::*;
use herald_core::keeper::{Credential, KeeperClient};
use lorebase_sandbox::{AuthMode, Sandbox, SandboxOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn sandbox() -> Sandbox {
    Sandbox::start(SandboxOptions {
        auth: AuthMode::None,
        ..Default::default()
    })
    .await
    .expect("sandbox starts")
}

fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

async fn schema(k: &KeeperClient) -> Result<Schema, KeeperError> {
    k.schema(&Credential::Anonymous, "supply", &SchemaParams::default())
        .await
}

#[tokio::test]
async fn answers_over_the_bound_are_refused() {
    let sb = sandbox().await;
    let small = KeeperSettings {
        base_url: sb.url(),
        max_response_bytes: 1024,
        ..Settings::default().keeper
    };
    let e = schema(&KeeperClient::new(&small).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(e, KeeperError::TooLarge { limit: 1024, .. }),
        "{e:?}"
    );
    let text = ToolError::from(e).render(&herald_core::config::Settings::default().output);
    assert!(
        text.starts_with(
            "[validation-failed] Keeper's answer to GET /schema is larger than the 1024 bytes"
        ),
        "{text}"
    );
    assert!(text.contains("\nnext: ask for less"), "{text}");
    // The same call fits the default bound.
    let default = KeeperSettings {
        base_url: sb.url(),
        ..Settings::default().keeper
    };
    schema(&KeeperClient::new(&default).unwrap()).await.unwrap();
}

/// A server that answers every request with an endless chunked body (no
/// Content-Length), counting the bytes it managed to send.
async fn endless_server() -> (String, tokio::task::JoinHandle<usize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = vec![0u8; 4096];
        let _ = socket.read(&mut head).await.unwrap();
        let mut sent = 0usize;
        let start = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
        if socket.write_all(start).await.is_err() {
            return sent;
        }
        let chunk = format!("{:x}\r\n{}\r\n", 1024, "x".repeat(1024));
        // At most 64 MiB, so that a client that never stops cannot hang the test.
        for _ in 0..65_536 {
            if socket.write_all(chunk.as_bytes()).await.is_err() {
                break;
            }
            sent += 1024;
        }
        sent
    });
    (url, task)
}

#[tokio::test]
async fn a_chunked_answer_is_cut_at_the_bound() {
    let (url, server) = endless_server().await;
    let settings = KeeperSettings {
        base_url: url,
        max_response_bytes: 64 * 1024,
        max_retries: 0,
        ..Settings::default().keeper
    };
    let e = schema(&KeeperClient::new(&settings).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(e, KeeperError::TooLarge { limit: 65536, .. }),
        "{e:?}"
    );
    drop(e);
    let sent = server.await.unwrap();
    assert!(
        sent < 64 * 1024 * 1024,
        "the client read everything the server had"
    );
}

fn env(pairs: &[(&str, String)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[tokio::test]
async fn proxy_variables_are_ignored_unless_trust_env() {
    let sb = sandbox().await;
    let proxy = format!("http://127.0.0.1:{}", dead_port());
    let base = [
        ("LOREBASE_URL", sb.url()),
        ("HTTP_PROXY", proxy.clone()),
        ("http_proxy", proxy.clone()),
        ("ALL_PROXY", proxy.clone()),
        ("LOREBASE__HERALD__KEEPER__MAX_RETRIES", "0".into()),
    ];

    // Default: the dead proxy is ignored, Keeper answers.
    let settings = Settings::load_with_env(&env(&base), &Overrides::new()).unwrap();
    let before = sb.request_count();
    schema(&KeeperClient::new(&settings.keeper).unwrap())
        .await
        .unwrap();
    assert_eq!(sb.request_count() - before, 1);

    // trust_env: the proxy is used (and, being dead, Keeper is never reached).
    let mut trusted = env(&base);
    trusted.insert("LOREBASE__HERALD__KEEPER__TRUST_ENV".into(), "true".into());
    let settings = Settings::load_with_env(&trusted, &Overrides::new()).unwrap();
    let before = sb.request_count();
    let e = schema(&KeeperClient::new(&settings.keeper).unwrap())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::KeeperUnavailable, "{e}");
    assert_eq!(sb.request_count(), before);

    // ... unless NO_PROXY names the host.
    trusted.insert("NO_PROXY".into(), "127.0.0.1".into());
    let settings = Settings::load_with_env(&trusted, &Overrides::new()).unwrap();
    schema(&KeeperClient::new(&settings.keeper).unwrap())
        .await
        .unwrap();
}

#[test]
fn the_client_refuses_trust_env_with_verify_tls_off() {
    let settings = KeeperSettings {
        trust_env: true,
        verify_tls: false,
        ..Settings::default().keeper
    };
    let e = KeeperClient::new(&settings).unwrap_err();
    assert!(e.to_string().contains("trust_env"), "{e}");
    let settings = KeeperSettings {
        base_url: "not a url".into(),
        ..Settings::default().keeper
    };
    assert!(KeeperClient::new(&settings).is_err());
}

/// Runs [`child_calls_keeper_from_the_process_environment`] in a child
/// process whose environment (not ours) holds the proxy variables.
async fn run_child(sb: &Sandbox, trust_env: bool) -> std::process::Output {
    let proxy = format!("http://127.0.0.1:{}", dead_port());
    let mut cmd = tokio::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "keeper_limits::child_calls_keeper_from_the_process_environment",
        "--ignored",
        "--nocapture",
    ])
    .env("LOREBASE_URL", sb.url())
    .env("LOREBASE__HERALD__KEEPER__MAX_RETRIES", "0")
    .env("LOREBASE__HERALD__KEEPER__TRUST_ENV", trust_env.to_string())
    .env_remove("LOREBASE_CONFIG")
    .env_remove("NO_PROXY")
    .env_remove("no_proxy")
    .env(
        "HERALD_TEST_EXPECT",
        if trust_env { "unavailable" } else { "ok" },
    );
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "all_proxy",
    ] {
        cmd.env(name, &proxy);
    }
    cmd.output().await.unwrap()
}

#[tokio::test]
async fn proxy_variables_of_the_process_are_ignored_unless_trust_env() {
    let sb = sandbox().await;
    let before = sb.request_count();
    let out = run_child(&sb, false).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert_eq!(sb.request_count() - before, 1);

    let out = run_child(&sb, true).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        sb.request_count() - before,
        1,
        "the dead proxy was bypassed"
    );
}

#[test]
#[ignore = "run in a child process by proxy_variables_of_the_process_are_ignored_unless_trust_env"]
fn child_calls_keeper_from_the_process_environment() {
    let expect = std::env::var("HERALD_TEST_EXPECT").expect("run by the parent test");
    let settings = Settings::load(Overrides::new()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer =
        runtime.block_on(async { schema(&KeeperClient::new(&settings.keeper).unwrap()).await });
    match expect.as_str() {
        "ok" => {
            answer.unwrap();
        }
        _ => assert_eq!(answer.unwrap_err().code(), ProblemCode::KeeperUnavailable),
    }
}
