//! A key never appears in a log line, an error, a rendering or a Debug print:
//! failing calls run with known keys while every log line is captured, then
//! everything is searched for the keys.

use crate::log_capture;

use std::collections::BTreeMap;

use herald_core::config::{KeeperSettings, Overrides, Secret, Settings};
use herald_core::error::ToolError;
use herald_core::keeper::model::*;
use herald_core::keeper::{Credential, KeeperClient};
use log_capture::Captured;
use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};

const WRONG_KEY: &str = "lbk_WRONGKEY42_zz9zz9zz";

#[tokio::test]
async fn keys_never_reach_logs_or_errors() {
    let (captured, _guard) = Captured::start();

    let sb = Sandbox::start(SandboxOptions {
        auth: AuthMode::ApiKey,
        ..Default::default()
    })
    .await
    .unwrap();
    let good_key = sb.key_of("agt_reader").unwrap().to_string();
    let env: BTreeMap<String, String> = [
        ("LOREBASE_URL".to_string(), sb.url()),
        (
            "LOREBASE_API_KEY".to_string(),
            "secret://env/AGENT_KEY".to_string(),
        ),
        ("AGENT_KEY".to_string(), good_key.clone()),
        (
            "LOREBASE__HERALD__KEEPER__RETRY_MAX_WAIT_S".to_string(),
            "0".to_string(),
        ),
    ]
    .into();
    let settings = Settings::load_with_env(&env, &Overrides::new()).unwrap();
    let k = KeeperClient::new(&settings.keeper).unwrap();
    let wrong = Credential::Bearer(Secret::new(WRONG_KEY));
    let mut seen = vec![format!("{settings:?}"), format!("{k:?}")];
    let mut record = |e: herald_core::error::KeeperError| {
        seen.push(format!("{e} {e:?}"));
        seen.push(ToolError::from(e).render(&herald_core::config::Settings::default().output));
    };
    let s1001: RecordRef = "Supplier/S-1001".parse().unwrap();
    let rp = RecordParams::default();

    // An invalid key; a missing Record; a fault answered after the resends.
    record(k.record(&wrong, "supply", &s1001, &rp).await.unwrap_err());
    let missing: RecordRef = "Supplier/S-0000".parse().unwrap();
    record(
        k.record(&Credential::Configured, "supply", &missing, &rp)
            .await
            .unwrap_err(),
    );
    sb.inject(Fault::status(503).times(3));
    record(
        k.record(&Credential::Configured, "supply", &s1001, &rp)
            .await
            .unwrap_err(),
    );
    sb.inject(Fault::drop_connection().times(3));
    record(k.record(&wrong, "supply", &s1001, &rp).await.unwrap_err());
    // A forbidden write.
    let run = ExecuteRequest {
        branch: Some("dev".into()),
        dry_run: false,
        ..Default::default()
    };
    record(
        k.execute(&Credential::Configured, "supply", "update_supplier", &run)
            .await
            .unwrap_err(),
    );
    // Keeper gone.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let gone = KeeperClient::new(&KeeperSettings {
        base_url: format!("http://127.0.0.1:{port}"),
        ..settings.keeper.clone()
    })
    .unwrap();
    record(
        gone.record(&Credential::Configured, "supply", &s1001, &rp)
            .await
            .unwrap_err(),
    );
    record(
        gone.record(&wrong, "supply", &s1001, &rp)
            .await
            .unwrap_err(),
    );

    // A key given where a URL belongs.
    let mut bad = env.clone();
    bad.insert(
        "LOREBASE_URL".into(),
        format!("http://user:{good_key}@keeper:1"),
    );
    seen.push(
        Settings::load_with_env(&bad, &Overrides::new())
            .unwrap_err()
            .to_string(),
    );

    let logs = captured.text();
    assert!(logs.contains("Keeper call"), "nothing was logged: {logs}");
    assert!(
        logs.contains("resending in"),
        "no resend was logged: {logs}"
    );
    for key in [good_key.as_str(), WRONG_KEY] {
        assert!(!logs.contains(key), "a key is in the logs:\n{logs}");
        for text in &seen {
            assert!(!text.contains(key), "a key is in: {text}");
        }
    }
}
