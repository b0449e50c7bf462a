//! What the toolbox records of each call: the audit line, the
//! call and Keeper metrics, the outcome of a call dropped halfway, the
//! trace context of a caller. Against the sandbox Keeper on a real port.

use std::time::Duration;

use herald_core::config::Secret;
use herald_core::keeper::Credential;
use herald_core::telemetry::{CallOrigin, fingerprint, metrics};
use lorebase_sandbox::Fault;
use prometheus_client::encoding::prometheus_text::encode;
use prometheus_client::registry::Registry;
use serde_json::json;
use tracing::Level;

use crate::log_capture::Captured;
use crate::tools_support::{args, sandbox_toolbox};

fn exposed(toolbox: &herald_core::tools::Toolbox) -> String {
    let mut registry = Registry::with_prefix("herald");
    metrics::register(
        &mut registry,
        toolbox.call_metrics(),
        toolbox.keeper().metrics(),
    );
    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    text
}

#[tokio::test]
async fn each_call_writes_one_audit_line_with_its_keeper_requests() {
    let (sandbox, toolbox) = sandbox_toolbox("supply").await;
    let key = "lbk_audit00000_secret00";
    let caller = Credential::Bearer(Secret::new(key));
    let (captured, _guard) = Captured::start_with(Level::INFO, &["lorebase_sandbox"]);
    sandbox.inject(Fault::status(503).times(1));
    let origin = CallOrigin {
        traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
        tracestate: None,
        request_id: Some("req-7"),
    };
    let out = toolbox
        .call_from(
            "lorebase_get",
            args(json!({"ref": "Supplier/S-1001", "domain": "supply"})),
            &caller,
            &origin,
        )
        .await
        .unwrap();
    assert!(!out.is_error, "{}", out.text);
    let text = captured.text();
    let audit: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("herald::audit"))
        .collect();
    assert_eq!(audit.len(), 1, "{text}");
    let line = audit[0];
    for field in [
        "request_id=req-7",
        "trace_id=0af7651916cd43dd8448eb211c80319c",
        "tool=lorebase_get",
        "domain=supply",
        "outcome=ok",
        "keeper_requests=2",
        &format!("caller=key:{}", fingerprint(key)),
    ] {
        assert!(line.contains(field), "{field} missing from {line}");
    }
    assert!(!text.contains(key) && !text.contains("S-1001"), "{text}");
    let exposed = exposed(&toolbox);
    for sample in [
        r#"herald_tool_calls_total{tool="lorebase_get",outcome="ok"} 1"#,
        r#"herald_keeper_requests_total{endpoint="GET /kinds/{kind}/records/{key}",status="503"} 1"#,
        r#"herald_keeper_requests_total{endpoint="GET /kinds/{kind}/records/{key}",status="200"} 1"#,
        r#"herald_keeper_resends_total{endpoint="GET /kinds/{kind}/records/{key}",status="503"} 1"#,
        "herald_tool_calls_in_flight 0",
    ] {
        assert!(exposed.contains(sample), "{sample} missing from\n{exposed}");
    }
}

#[tokio::test]
async fn a_call_dropped_halfway_is_recorded_as_cancelled() {
    let (sandbox, toolbox) = sandbox_toolbox("supply").await;
    sandbox.inject(Fault::delay(Duration::from_secs(5)).times(1));
    let call = toolbox.call(
        "lorebase_get",
        args(json!({"ref": "Supplier/S-1001"})),
        &Credential::Anonymous,
    );
    let (captured, _guard) = Captured::start_up_to(Level::INFO);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err()
    );
    assert_eq!(toolbox.call_metrics().in_flight(), 0);
    let text = captured.text();
    assert!(
        text.contains("outcome=cancelled") && text.contains("keeper_requests=1"),
        "{text}"
    );
    assert!(
        exposed(&toolbox)
            .contains(r#"herald_tool_calls_total{tool="lorebase_get",outcome="cancelled"} 1"#)
    );
}

#[tokio::test]
async fn unknown_and_refused_names_keep_the_labels_bounded() {
    let (_sandbox, toolbox) = sandbox_toolbox("supply").await;
    for name in ["no_such_tool", "another\nname"] {
        let e = toolbox
            .call(name, args(json!({})), &Credential::Anonymous)
            .await;
        assert!(e.is_err());
    }
    toolbox.record_refused(
        "made_up",
        "unknown-tool",
        None,
        None,
        &CallOrigin::default(),
    );
    let exposed = exposed(&toolbox);
    assert!(
        exposed.contains(r#"herald_tool_calls_total{tool="(unknown)",outcome="unknown-tool"} 3"#),
        "{exposed}"
    );
    assert!(!exposed.contains("no_such_tool") && !exposed.contains("made_up"));
}
