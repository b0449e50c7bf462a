//! The contract: every endpoint of `sandbox/openapi.yaml` answered for real,
//! success and problem, each answer validated against its documented schema
//! (the harness validates every `/api/` answer), and every endpoint covered.

use crate::common;

use std::collections::BTreeSet;

use common::{Harness, contract};
use lorebase_sandbox::{AuthMode, Fault};
use serde_json::json;

fn api(domain: &str, rest: &str) -> String {
    Harness::api(domain, rest)
}

#[test]
fn the_document_is_openapi_3_1_and_every_schema_compiles() {
    let doc = contract().doc();
    assert_eq!(doc["openapi"], "3.1.0");
    for (name, _) in doc["components"]["schemas"].as_object().unwrap() {
        let root = json!({"$ref": format!("#/components/schemas/{name}"), "components": doc["components"]});
        jsonschema::draft202012::options()
            .build(&root)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // Every problem code of the wire types is in the document.
    let codes: Vec<String> = doc["components"]["schemas"]["ProblemCode"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let wire: Vec<String> = herald_codes();
    assert_eq!(codes, wire);
}

fn herald_codes() -> Vec<String> {
    [
        "stale-head",
        "review-required",
        "protected-branch",
        "agent-branch-limit",
        "already-exists",
        "validation-failed",
        "not-found",
        "forbidden",
        "unauthorized",
        "rate-limited",
        "branch-busy",
        "keeper-unavailable",
    ]
    .iter()
    .map(std::string::ToString::to_string)
    .collect()
}

#[tokio::test]
async fn every_endpoint_answers_its_documented_shapes() {
    let h = Harness::start(AuthMode::ApiKey).await;
    let agent = h.as_principal("agt_risk_bot");
    let reader = h.as_principal("agt_reader");
    let rec = "/kinds/Supplier/records/S-1001";
    // successes
    for path in [
        api("supply", "/schema"),
        api("supply", "/schema?detail=full"),
        api("supply", rec),
        api("supply", &format!("{rec}?links=true")),
        api("supply", &format!("{rec}/explain")),
        api("supply", &format!("{rec}/history?values=true")),
        api("supply", &format!("{rec}/lineage")),
        api("retail", "/kinds/Product/records/P-0002/lineage"),
        api("retail", "/kinds/Product/records/P-0001/explain"),
        api("supply", "/branches"),
        api("supply", "/branches/main/log"),
        api("retail", "/diff?from=import&to=catalog-v1"),
    ] {
        let a = reader.get(&path).await;
        assert_eq!(a.status, 200, "{path}: {}", a.body);
    }
    let posts = [
        (
            "/context",
            json!({"records": ["Supplier/S-1001"], "token_budget": 400}),
        ),
        ("/search", json!({"query": "steel bolt", "limit": 3})),
        (
            "/search",
            json!({"query": "bolt", "query_vector": vec![0.25; 16]}),
        ),
        (
            "/resolve",
            json!({"text": "vendors with high risk in poland"}),
        ),
        (
            "/query",
            json!({"query": {"kind": "Supplier", "where": {"attr": "risk_score", "op": "gt", "value": 50}, "aggregate": {"group_by": "country"}, "include": [{"relation": "supplies"}], "limit": 2}}),
        ),
        (
            "/neighborhood",
            json!({"seeds": ["Supplier/S-1001"], "depth": 2, "values": true}),
        ),
    ];
    for (p, body) in posts {
        let a = reader.post(&api("supply", p), body).await;
        assert_eq!(a.status, 200, "{p}: {}", a.body);
    }
    let exec = api("supply", "/operations/update_supplier/execute");
    let dry = agent
        .post(
            &exec,
            json!({"parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": true}),
        )
        .await;
    assert_eq!(dry.status, 200);
    let committed = agent.post(&exec, json!({"branch": "dev", "parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": false})).await;
    assert_eq!(committed.status, 200);
    let proposed = agent.post(&exec, json!({"parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": false, "task": "contract", "intent": "check"})).await;
    assert_eq!(proposed.status, 202);

    // problems
    let none = h.get(&api("supply", "/schema")).await;
    assert_eq!(none.status, 401);
    for path in [
        api("nowhere", "/schema"),
        api("supply", "/kinds/Supplier/records/S-0"),
        api("supply", "/kinds/Supplier/records/S-0/explain"),
        api("supply", "/kinds/Supplier/records/S-0/history"),
        api("supply", "/kinds/Supplier/records/S-0/lineage"),
        api("nowhere", "/branches"),
        api("supply", "/branches/nope/log"),
        api("supply", "/diff?from=nope&to=main"),
    ] {
        assert_eq!(reader.get(&path).await.status, 404, "{path}");
    }
    for (p, body) in [
        ("/context", json!({"records": []})),
        ("/search", json!({})),
        ("/resolve", json!({"text": ""})),
        ("/query", json!({"query": {"kind": "Supplier", "limit": 0}})),
        (
            "/neighborhood",
            json!({"seeds": [], "depth": 1, "values": false}),
        ),
    ] {
        assert_eq!(
            reader.post(&api("supply", p), body).await.status,
            422,
            "{p}"
        );
    }
    for (p, body) in [(
        "/context",
        json!({"records": ["Supplier/S-1001"], "question": 3}),
    )] {
        assert_eq!(reader.post(&api("supply", p), body).await.status, 422);
    }
    let masked =
        json!({"query": {"kind": "Supplier", "where": {"attr": "bank_account", "op": "exists"}}});
    assert_eq!(
        reader.post(&api("supply", "/query"), masked).await.status,
        403
    );
    assert_eq!(
        reader.get(&api("supply", "/branches?limit=0")).await.status,
        422
    );
    assert_eq!(
        reader
            .get(&api("supply", "/branches/main/log?limit=x"))
            .await
            .status,
        422
    );
    assert_eq!(reader.get(&api("supply", "/diff")).await.status, 422);
    assert_eq!(
        reader
            .get(&api("supply", &format!("{rec}/explain?attributes=x")))
            .await
            .status,
        422
    );
    assert_eq!(
        reader
            .get(&api("supply", &format!("{rec}/history?limit=0")))
            .await
            .status,
        422
    );
    assert_eq!(
        reader
            .get(&api("supply", &format!("{rec}/lineage?junk=1")))
            .await
            .status,
        422
    );
    assert_eq!(
        reader
            .get(&api("supply", &format!("{rec}?at=12")))
            .await
            .status,
        422
    );
    assert_eq!(
        reader
            .post(&exec, json!({"parameters": {}, "dry_run": true}))
            .await
            .status,
        403
    );
    assert_eq!(agent.post(&exec, json!({"parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": false})).await.status, 403);
    assert_eq!(
        agent
            .post(&exec, json!({"parameters": {}, "dry_run": true}))
            .await
            .status,
        422
    );
    let stale = agent.post(&exec, json!({"branch": "dev", "parameters": {"supplier_code": "S-1001", "risk_score": 11}, "dry_run": false, "expected_head": "0".repeat(64)})).await;
    assert_eq!(stale.status, 409);
    assert_eq!(
        agent
            .post(
                &api("supply", "/operations/nope/execute"),
                json!({"parameters": {}, "dry_run": true})
            )
            .await
            .status,
        404
    );
    assert_eq!(
        reader.get(&api("supply", "/schema?detail=x")).await.status,
        422
    );
    for (p, body) in [
        ("/context", json!({"records": ["A/b"]})),
        ("/search", json!({"query": "x"})),
        ("/resolve", json!({"text": "x"})),
        ("/query", json!({"query": {"kind": "A"}})),
        (
            "/neighborhood",
            json!({"seeds": ["A/b"], "depth": 1, "values": false}),
        ),
    ] {
        assert_eq!(
            reader.post(&api("nowhere", p), body).await.status,
            404,
            "{p}"
        );
    }
    // unauthorized on every endpoint
    let all_gets = [
        api("supply", "/schema"),
        api("supply", rec),
        api("supply", &format!("{rec}/explain")),
        api("supply", &format!("{rec}/history")),
        api("supply", &format!("{rec}/lineage")),
        api("supply", "/branches"),
        api("supply", "/branches/main/log"),
        api("supply", "/diff?from=import&to=main"),
    ];
    for path in &all_gets {
        assert_eq!(h.get(path).await.status, 401, "{path}");
    }
    for p in [
        "/context",
        "/search",
        "/resolve",
        "/query",
        "/neighborhood",
        "/operations/update_supplier/execute",
    ] {
        assert_eq!(
            h.post(&api("supply", p), json!({})).await.status,
            401,
            "{p}"
        );
    }
    // transient problems on every endpoint
    let gets = [
        api("supply", "/schema"),
        api("supply", rec),
        api("supply", &format!("{rec}/explain")),
        api("supply", &format!("{rec}/history")),
        api("supply", &format!("{rec}/lineage")),
        api("supply", "/branches"),
        api("supply", "/branches/main/log"),
        api("supply", "/diff?from=import&to=main"),
    ];
    for path in &gets {
        h.sandbox.inject(Fault::status(429).retry_after(1));
        assert_eq!(reader.get(path).await.status, 429);
        h.sandbox.inject(Fault::status(503));
        assert_eq!(reader.get(path).await.status, 503);
    }
    for p in [
        "/context",
        "/search",
        "/resolve",
        "/query",
        "/neighborhood",
        "/operations/update_supplier/execute",
    ] {
        h.sandbox.inject(Fault::status(429).retry_after(3));
        assert_eq!(reader.post(&api("supply", p), json!({})).await.status, 429);
        h.sandbox.inject(Fault::status(503).retry_after(1));
        assert_eq!(reader.post(&api("supply", p), json!({})).await.status, 503);
    }
    h.sandbox.inject(Fault::status(423).retry_after(1));
    assert_eq!(agent.post(&exec, json!({})).await.status, 423);

    // Coverage: every documented operation answered a success and a problem.
    let seen = contract().seen.lock().unwrap().clone();
    let doc = contract().doc();
    let mut missing = BTreeSet::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            let m = method.to_uppercase();
            let answered = |ok: bool| {
                seen.iter()
                    .any(|(sm, st, ss)| sm == &m && st == template && (ss.starts_with('2') == ok))
            };
            if !answered(true) {
                missing.insert(format!("{m} {template}: no success"));
            }
            if !answered(false) {
                missing.insert(format!("{m} {template}: no problem"));
            }
            for status in op["responses"].as_object().unwrap().keys() {
                let hit = seen
                    .iter()
                    .any(|(sm, st, ss)| sm == &m && st == template && ss == status);
                if !hit {
                    missing.insert(format!("{m} {template}: status {status} never answered"));
                }
            }
        }
    }
    // Statuses the sample data cannot reach on every endpoint (forbidden
    // reads need a masked filter; 409 and 423 only exist on execute).
    missing.retain(|m| {
        !(m.ends_with("status 403 never answered")
            && !m.contains("execute")
            && !m.contains("/query"))
    });
    assert!(
        missing.is_empty(),
        "not covered:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The check itself fails on drift: a missing field, an undocumented field, a
/// wrong type, an undocumented status.
#[test]
fn the_check_refuses_answers_that_drift() {
    let path = "/api/v1/domains/supply/kinds/Supplier/records/S-1/history";
    let good = json!({"ref": "Supplier/S-1", "branch": "main", "revision": "a".repeat(64), "total": 0, "entries": []});
    contract().check("GET", path, 200, "application/json", None, &good);
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("total");
    let mut extra = good.clone();
    extra["surprise"] = json!(1);
    let mut wrong = good.clone();
    wrong["revision"] = json!("not-hex");
    for (status, body) in [(200, missing), (200, extra), (200, wrong), (418, good)] {
        let r = std::panic::catch_unwind(|| {
            contract().check("GET", path, status, "application/json", None, &body);
        });
        assert!(r.is_err(), "{status} {body} passed");
    }
}
