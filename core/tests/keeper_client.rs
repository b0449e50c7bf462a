//! The typed Keeper client against the sandbox Keeper over real HTTP: every
//! endpoint, the credential per call, and every problem code reaching the
//! caller with the right `next:` line.

use herald_core::config::{KeeperSettings, Secret, Settings};
use herald_core::error::{KeeperError, ToolError};
use herald_core::keeper::model::*;
use herald_core::keeper::{Credential, KeeperClient};
use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};
use serde_json::json;

async fn sandbox(auth: AuthMode) -> Sandbox {
    Sandbox::start(SandboxOptions {
        auth,
        ..Default::default()
    })
    .await
    .expect("sandbox starts")
}

fn settings(sandbox: &Sandbox) -> KeeperSettings {
    KeeperSettings {
        base_url: sandbox.url(),
        ..Settings::default().keeper
    }
}

fn client(sandbox: &Sandbox) -> KeeperClient {
    KeeperClient::new(&settings(sandbox)).unwrap()
}

fn s1001() -> RecordRef {
    "Supplier/S-1001".parse().unwrap()
}

fn rendered(e: KeeperError) -> String {
    ToolError::from(e).render(&herald_core::config::Settings::default().output)
}

fn params(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test]
async fn every_endpoint_answers_typed() {
    let sb = sandbox(AuthMode::None).await;
    let k = client(&sb);
    let c = &Credential::Anonymous;

    let record = k
        .record(c, "supply", &s1001(), &RecordParams::default())
        .await
        .unwrap();
    assert_eq!(record.title, "Kavsen Alloys Sp. z o.o.");
    assert_eq!(record.values["risk_score"], json!(90));

    let schema = k
        .schema(c, "supply", &SchemaParams::default())
        .await
        .unwrap();
    let schema_json = serde_json::to_string(&schema).unwrap();
    assert!(schema_json.contains("Supplier") && schema_json.contains("flag_supplier_risk"));

    let search = SearchRequest {
        query: Some("Kavsen".into()),
        ..Default::default()
    };
    let hits = k.search(c, "supply", &search).await.unwrap();
    assert!(serde_json::to_string(&hits).unwrap().contains("S-1001"));

    let resolve = ResolveRequest {
        text: "suppliers in poland".into(),
        ..Default::default()
    };
    let resolved = k.resolve(c, "supply", &resolve).await.unwrap();
    assert!(
        serde_json::to_string(&resolved)
            .unwrap()
            .contains("country")
    );

    let query: QueryRequest =
        serde_json::from_value(json!({"query": {"kind": "Supplier", "limit": 3}})).unwrap();
    let rows = k.query(c, "supply", &query).await.unwrap();
    assert!(serde_json::to_string(&rows).unwrap().contains("Supplier/"));

    let hood = NeighborhoodRequest {
        seeds: vec![s1001()],
        depth: 1,
        ..Default::default()
    };
    let hood = k.neighborhood(c, "supply", &hood).await.unwrap();
    assert!(serde_json::to_string(&hood).unwrap().contains("supplies"));

    let ctx = ContextRequest {
        records: vec![s1001()],
        ..Default::default()
    };
    let pack = k.context(c, "supply", &ctx).await.unwrap();
    assert!(serde_json::to_string(&pack).unwrap().contains("S-1001"));

    let p = ProvenanceParams::default();
    let explain = k.explain(c, "supply", &s1001(), &p).await.unwrap();
    assert!(
        serde_json::to_string(&explain)
            .unwrap()
            .contains("risk_score")
    );
    let history = k
        .history(
            c,
            "supply",
            &s1001(),
            &ProvenanceParams {
                values: Some(true),
                ..p.clone()
            },
        )
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&history)
            .unwrap()
            .contains("Raise the risk of S-1001")
    );
    let lineage = k.lineage(c, "supply", &s1001(), &p).await.unwrap();
    assert!(
        serde_json::to_string(&lineage)
            .unwrap()
            .contains("update_supplier")
    );

    let branches = k
        .branches(c, "supply", &PageParams::default())
        .await
        .unwrap();
    let names: Vec<_> = branches.branches.iter().map(|b| b.name.as_str()).collect();
    assert!(
        names.contains(&"main") && names.contains(&"dev"),
        "{names:?}"
    );

    let log = k
        .branch_log(c, "supply", "main", &LogParams::default())
        .await
        .unwrap();
    assert!(log.entries.len() >= 2, "{log:?}");

    let diff = DiffParams {
        from: "import".into(),
        to: "risk-raised".into(),
        ..Default::default()
    };
    let diff = k.diff(c, "supply", &diff).await.unwrap();
    assert!(serde_json::to_string(&diff).unwrap().contains("S-1001"));

    let run = ExecuteRequest {
        branch: Some("dev".into()),
        parameters: params(json!({"supplier_code": "S-1002", "risk_score": 40})),
        dry_run: true,
        ..Default::default()
    };
    let result = k
        .execute(c, "supply", "update_supplier", &run)
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&result)
            .unwrap()
            .contains("risk_score")
    );
}

#[tokio::test]
async fn path_parts_are_encoded_as_one_segment() {
    let sb = sandbox(AuthMode::None).await;
    let k = client(&sb);
    let c = &Credential::Anonymous;
    // A key with / and ? stays one segment: Keeper says not-found, not 404 on a route.
    let odd: RecordRef = "Supplier/S-1/../?x=1".parse().unwrap();
    let e = k
        .record(c, "supply", &odd, &RecordParams::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::NotFound, "{e}");
    // A task branch name with slashes reaches the log endpoint.
    let e = k
        .branch_log(c, "supply", "agent/nobody/none", &LogParams::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::NotFound, "{e}");
    assert!(e.to_string().contains("agent/nobody/none"), "{e}");
    // `..` would climb the path: refused before any call.
    let before = sb.request_count();
    let e = k
        .branch_log(c, "supply", "..", &LogParams::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::ValidationFailed);
    let e = k.schema(c, "", &SchemaParams::default()).await.unwrap_err();
    assert!(rendered(e).contains("  domain: "));
    assert_eq!(sb.request_count(), before);
}

#[tokio::test]
async fn the_credential_is_chosen_per_call() {
    let sb = sandbox(AuthMode::ApiKey).await;
    let reader = Secret::new(sb.key_of("agt_reader").unwrap());
    let configured = KeeperClient::new(&KeeperSettings {
        api_key: Some(reader.clone()),
        ..settings(&sb)
    })
    .unwrap();
    let unkeyed = client(&sb);
    let p = RecordParams::default();

    // Configured: the settings' key; none when unset.
    configured
        .record(&Credential::Configured, "supply", &s1001(), &p)
        .await
        .unwrap();
    let e = unkeyed
        .record(&Credential::Configured, "supply", &s1001(), &p)
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::Unauthorized);

    // Bearer: the caller's key, never the configured one.
    unkeyed
        .record(&Credential::Bearer(reader.clone()), "supply", &s1001(), &p)
        .await
        .unwrap();
    let wrong = Credential::Bearer(Secret::new("lbk_wrongwrong_wrongwrg"));
    let e = configured
        .record(&wrong, "supply", &s1001(), &p)
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::Unauthorized, "{e}");

    // Anonymous: no header even when a key is configured.
    let e = configured
        .record(&Credential::Anonymous, "supply", &s1001(), &p)
        .await
        .unwrap_err();
    let text = rendered(e);
    assert!(text.starts_with("[unauthorized] "), "{text}");
    assert!(text.ends_with("next: do not retry: the API key is missing or invalid; the key in the host's configuration must be fixed"), "{text}");

    // A key an HTTP header cannot carry fails locally, without quoting it.
    let bad = Credential::Bearer(Secret::new("lbk_bad\nkey"));
    let e = configured
        .record(&bad, "supply", &s1001(), &p)
        .await
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::Unauthorized);
    assert!(!e.to_string().contains("lbk_bad"));
}

/// One write request for the problem-code checks.
fn write(branch: &str, params_json: serde_json::Value) -> ExecuteRequest {
    ExecuteRequest {
        branch: Some(branch.into()),
        parameters: params(params_json),
        dry_run: false,
        ..Default::default()
    }
}

#[tokio::test]
async fn keeper_problems_reach_the_caller_with_their_next_line() {
    let sb = sandbox(AuthMode::ApiKey).await;
    let bot = Credential::Bearer(Secret::new(sb.key_of("agt_risk_bot").unwrap()));
    let reader = Credential::Bearer(Secret::new(sb.key_of("agt_reader").unwrap()));
    let k = client(&sb);

    // not-found
    let missing: RecordRef = "Supplier/S-0000".parse().unwrap();
    let text = rendered(
        k.record(&bot, "supply", &missing, &RecordParams::default())
            .await
            .unwrap_err(),
    );
    assert!(
        text.starts_with("[not-found] ")
            && text.ends_with("next: check refs with lorebase_search or lorebase_schema"),
        "{text}"
    );

    // validation-failed, with the issues one per line
    let bad = write(
        "dev",
        json!({"supplier_code": "S-1002", "no_such_attribute": 1}),
    );
    let text = rendered(
        k.execute(&bot, "supply", "update_supplier", &bad)
            .await
            .unwrap_err(),
    );
    assert!(text.starts_with("[validation-failed] "), "{text}");
    assert!(
        text.contains("\n  parameters.no_such_attribute: "),
        "{text}"
    );
    assert!(
        text.ends_with("next: fix the issues above (one per line, with its path), then call again"),
        "{text}"
    );

    // forbidden
    let ok = write("dev", json!({"supplier_code": "S-1002", "risk_score": 41}));
    let text = rendered(
        k.execute(&reader, "supply", "update_supplier", &ok)
            .await
            .unwrap_err(),
    );
    assert!(
        text.starts_with("[forbidden] ") && text.contains("\nnext: do not retry"),
        "{text}"
    );

    // stale-head names the current head
    let head = k
        .branches(&bot, "supply", &PageParams::default())
        .await
        .unwrap()
        .branches
        .into_iter()
        .find(|b| b.name == "dev")
        .unwrap()
        .head;
    let stale = ExecuteRequest {
        expected_head: Some("0".repeat(64)),
        ..ok.clone()
    };
    let text = rendered(
        k.execute(&bot, "supply", "update_supplier", &stale)
            .await
            .unwrap_err(),
    );
    assert!(text.starts_with("[stale-head] "), "{text}");
    assert!(
        text.ends_with(&format!("retry with expected_head: {head}")),
        "{text}"
    );

    // review-required and protected-branch
    let flag = write(
        "dev",
        json!({"supplier_code": "S-1002", "reason": "late deliveries"}),
    );
    let text = rendered(
        k.execute(&bot, "supply", "flag_supplier_risk", &flag)
            .await
            .unwrap_err(),
    );
    assert!(
        text.starts_with("[review-required] ")
            && text.contains("next: repeat with task and intent"),
        "{text}"
    );
    let on_main = write("main", json!({"supplier_code": "S-1002", "risk_score": 42}));
    let text = rendered(
        k.execute(&bot, "supply", "update_supplier", &on_main)
            .await
            .unwrap_err(),
    );
    assert!(
        text.starts_with("[protected-branch] ")
            && text.contains("next: repeat with task and intent"),
        "{text}"
    );

    // already-exists: writing on someone else's task branch
    let steward = Credential::Bearer(Secret::new(sb.key_of("usr_steward").unwrap()));
    let proposed = ExecuteRequest {
        task: Some("risk-check".into()),
        intent: Some("check".into()),
        ..write(
            "main",
            json!({"supplier_code": "S-1002", "reason": "audit"}),
        )
    };
    k.execute(&bot, "supply", "flag_supplier_risk", &proposed)
        .await
        .unwrap();
    let theirs = write(
        "agent/agt_risk_bot/risk-check",
        json!({"supplier_code": "S-1002", "risk_score": 43}),
    );
    let text = rendered(
        k.execute(&steward, "supply", "update_supplier", &theirs)
            .await
            .unwrap_err(),
    );
    assert!(
        text.starts_with("[already-exists] ")
            && text.ends_with("next: merge or close one of your Proposals, or use another task"),
        "{text}"
    );

    // agent-branch-limit: more open task branches than the Domain allows (3)
    let mut limited = None;
    for n in 0..5 {
        let req = ExecuteRequest {
            task: Some(format!("t-{n}")),
            intent: Some("x".into()),
            ..write("main", json!({"supplier_code": "S-1002", "reason": "r"}))
        };
        if let Err(e) = k.execute(&bot, "supply", "flag_supplier_risk", &req).await {
            limited = Some(rendered(e));
            break;
        }
    }
    let text = limited.expect("the branch limit is reached");
    assert!(
        text.starts_with("[agent-branch-limit] ") && text.contains("next: merge or close"),
        "{text}"
    );
}

#[tokio::test]
async fn transient_problems_give_the_delay() {
    let sb = sandbox(AuthMode::None).await;
    let k = KeeperClient::new(&KeeperSettings {
        max_retries: 0,
        ..settings(&sb)
    })
    .unwrap();
    let c = &Credential::Anonymous;
    let p = SchemaParams::default();
    for (status, code) in [
        (429, "rate-limited"),
        (423, "branch-busy"),
        (503, "keeper-unavailable"),
    ] {
        sb.inject(Fault::status(status).retry_after(3));
        let text = rendered(k.schema(c, "supply", &p).await.unwrap_err());
        assert!(text.starts_with(&format!("[{code}] ")), "{text}");
        assert!(text.ends_with("next: retry after 3 s"), "{text}");
    }
}
