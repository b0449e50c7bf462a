//! Operations: dry runs, commits, stale heads, idempotency, review policies,
//! protected branches, Proposals (proposed, merged, conflicts) and limits.

use crate::common;

use common::Harness;
use lorebase_sandbox::AuthMode;
use serde_json::{Value, json};

fn exec(op: &str) -> String {
    Harness::api("supply", &format!("/operations/{op}/execute"))
}

async fn head(h: &Harness, branch: &str) -> String {
    let b = h.get(&Harness::api("supply", "/branches")).await;
    b.body["branches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == branch)
        .unwrap()["head"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn risk(h: &Harness, code: &str, branch: &str) -> Value {
    h.get(&Harness::api(
        "supply",
        &format!("/kinds/Supplier/records/{code}?branch={branch}"),
    ))
    .await
    .body["values"]["risk_score"]
        .clone()
}

#[tokio::test]
async fn dry_run_then_commit_with_expected_head_and_idempotency() {
    let admin = Harness::start(AuthMode::ApiKey).await;
    let h = admin.as_principal("agt_risk_bot");
    let params = json!({"supplier_code": "S-1001", "risk_score": 70});
    let dry = h
        .post(
            &exec("update_supplier"),
            json!({"branch": "dev", "parameters": params, "dry_run": true}),
        )
        .await;
    assert_eq!(dry.status, 200);
    assert_eq!(dry.body["status"], "dry_run");
    let dev_head = head(&h, "dev").await;
    assert_eq!(dry.body["head"], dev_head.as_str());
    assert_eq!(
        dry.body["edits"],
        json!([{"change": "updated", "ref": "Supplier/S-1001", "changes": [{"attribute": "risk_score", "before": 90, "after": 70}]}])
    );
    assert!(dry.body["next"][0].as_str().unwrap().contains(&dev_head));
    assert_eq!(head(&h, "dev").await, dev_head, "a dry run writes nothing");

    let body = json!({"branch": "dev", "parameters": params, "dry_run": false, "expected_head": dev_head, "idempotency_key": "k-1", "message": "Lower the risk"});
    let done = h.post(&exec("update_supplier"), body.clone()).await;
    assert_eq!(
        (done.status, done.body["status"].as_str()),
        (200, Some("committed"))
    );
    let rev = done.body["revision"].as_str().unwrap().to_string();
    assert_eq!(rev.len(), 64);
    assert_eq!(head(&h, "dev").await, rev);
    assert_eq!(risk(&h, "S-1001", "dev").await, 70);
    assert_eq!(risk(&h, "S-1001", "main").await, 90, "main is untouched");
    let hist = h
        .get(&Harness::api(
            "supply",
            "/kinds/Supplier/records/S-1001/history?branch=dev",
        ))
        .await;
    assert_eq!(hist.body["total"], 3);
    assert_eq!(
        (
            hist.body["entries"][0]["author"].as_str(),
            hist.body["entries"][0]["message"].as_str()
        ),
        (Some("agt_risk_bot"), Some("Lower the risk"))
    );

    // The same key commits once and answers the same.
    let again = h.post(&exec("update_supplier"), body.clone()).await;
    assert_eq!(
        (
            again.status,
            again.body["revision"].as_str(),
            again.body["replayed"].as_bool()
        ),
        (200, Some(rev.as_str()), Some(true))
    );
    assert_eq!(head(&h, "dev").await, rev);
    let other = h.post(&exec("update_supplier"), json!({"branch": "dev", "parameters": {"supplier_code": "S-1001", "risk_score": 1}, "dry_run": false, "idempotency_key": "k-1"})).await;
    assert_eq!(
        (other.status, other.body["issues"][0]["path"].as_str()),
        (422, Some("idempotency_key"))
    );

    // The old head is stale now.
    let stale = h.post(&exec("update_supplier"), json!({"branch": "dev", "parameters": {"supplier_code": "S-1001", "risk_score": 60}, "dry_run": false, "expected_head": dev_head})).await;
    assert_eq!((stale.status, stale.code()), (409, "stale-head"));
    assert_eq!(stale.body["head"], rev.as_str());
}

#[tokio::test]
async fn rules_and_parameters_are_checked_path_by_path() {
    let h = Harness::start(AuthMode::None).await;
    let out_of_range = json!({"branch": "dev", "parameters": {"supplier_code": "S-1001", "risk_score": 500}, "dry_run": true});
    let dry = h.post(&exec("update_supplier"), out_of_range.clone()).await;
    assert_eq!(
        (dry.status, dry.body["status"].as_str()),
        (200, Some("rejected"))
    );
    assert_eq!(dry.body["violations"][0]["path"], "parameters.risk_score");
    let mut commit = out_of_range;
    commit["dry_run"] = json!(false);
    let refused = h.post(&exec("update_supplier"), commit).await;
    assert_eq!((refused.status, refused.code()), (422, "validation-failed"));
    assert_eq!(refused.body["issues"][0]["path"], "parameters.risk_score");
    let shape = h
        .post(
            &exec("update_supplier"),
            json!({"parameters": {"risk_score": "high", "colour": 1}, "dry_run": true}),
        )
        .await;
    assert_eq!(shape.status, 422);
    let paths: Vec<&str> = shape.body["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["parameters.colour", "parameters.supplier_code"]);
    let missing = h
        .post(
            &exec("update_supplier"),
            json!({"parameters": {"supplier_code": "S-0", "risk_score": 5}, "dry_run": true}),
        )
        .await;
    assert_eq!(
        missing.body["violations"][0]["message"],
        "no Record Supplier/S-0"
    );
    let custom = h
        .post(
            &exec("flag_supplier_risk"),
            json!({"parameters": {"supplier_code": "S-1001"}, "dry_run": true}),
        )
        .await;
    assert_eq!(
        (custom.status, custom.body["issues"][0]["path"].as_str()),
        (422, Some("parameters.reason"))
    );
    let propose = h.post(&exec("update_supplier"), json!({"parameters": {"supplier_code": "S-1001", "risk_score": 5}, "dry_run": false, "auto_propose": true})).await;
    assert_eq!(
        (propose.status, propose.body["issues"][0]["path"].as_str()),
        (422, Some("auto_propose"))
    );
    let unknown = h
        .post(
            &exec("teleport_supplier"),
            json!({"parameters": {}, "dry_run": true}),
        )
        .await;
    assert_eq!((unknown.status, unknown.code()), (404, "not-found"));
    let no_branch = h.post(&exec("update_supplier"), json!({"branch": "nope", "parameters": {"supplier_code": "S-1001", "risk_score": 5}, "dry_run": true})).await;
    assert_eq!(no_branch.status, 404);
    let not_json = h.post(&exec("update_supplier"), json!("nope")).await;
    assert_eq!(not_json.status, 422);
    // create and delete
    let create = h.post(&Harness::api("retail", "/operations/create_product/execute"), json!({"parameters": {"sku": "P-9000", "name": "Test Shoe", "category": "Calzature", "brand": "Vela", "color": "red"}, "dry_run": false})).await;
    assert_eq!(
        (create.status, create.body["edits"][0]["change"].as_str()),
        (200, Some("created"))
    );
    let del = h
        .post(
            &Harness::api("retail", "/operations/delete_product/execute"),
            json!({"parameters": {"sku": "P-9000"}, "dry_run": false}),
        )
        .await;
    assert_eq!(
        (del.status, del.body["edits"][0]["change"].as_str()),
        (200, Some("deleted"))
    );
    let gone = h
        .get(&Harness::api("retail", "/kinds/Product/records/P-9000"))
        .await;
    assert_eq!(gone.status, 404);
}

#[tokio::test]
async fn protected_branches_and_review_policies_go_through_proposals() {
    let admin = Harness::start(AuthMode::ApiKey).await;
    let agent = admin.as_principal("agt_risk_bot");
    let main_head = head(&agent, "main").await;
    let direct = agent
        .post(
            &exec("update_supplier"),
            json!({"parameters": {"supplier_code": "S-1001", "risk_score": 40}, "dry_run": false}),
        )
        .await;
    assert_eq!((direct.status, direct.code()), (403, "protected-branch"));
    let dry = agent
        .post(
            &exec("update_supplier"),
            json!({"parameters": {"supplier_code": "S-1001", "risk_score": 40}, "dry_run": true}),
        )
        .await;
    assert!(
        dry.body["warnings"][0]
            .as_str()
            .unwrap()
            .contains("protected-branch")
    );

    let body = json!({"parameters": {"supplier_code": "S-1001", "risk_score": 40}, "dry_run": false, "task": "lower-risk", "intent": "Risk review done", "auto_merge": true, "idempotency_key": "p-1"});
    let p = agent.post(&exec("update_supplier"), body.clone()).await;
    assert_eq!(
        (p.status, p.body["status"].as_str()),
        (202, Some("proposed"))
    );
    assert_eq!(p.body["branch"], "agent/agt_risk_bot/lower-risk");
    assert_eq!(p.body["proposal"]["status"], "proposed");
    assert_eq!(p.body["proposal"]["target"], "main");
    assert_eq!(p.body["proposal"]["title"], "Risk review done");
    assert!(
        p.body["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("auto_merge is not allowed"))
    );
    assert_eq!(
        head(&agent, "main").await,
        main_head,
        "main waits for a reviewer"
    );
    assert_eq!(
        risk(&agent, "S-1001", "agent/agt_risk_bot/lower-risk").await,
        40
    );
    let again = agent.post(&exec("update_supplier"), body).await;
    assert_eq!(
        (
            again.status,
            again.body["proposal"]["id"].clone(),
            again.body["replayed"].as_bool()
        ),
        (202, p.body["proposal"]["id"].clone(), Some(true))
    );
    let branches = agent.get(&Harness::api("supply", "/branches")).await;
    let task = branches.body["branches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "agent/agt_risk_bot/lower-risk")
        .unwrap()
        .clone();
    assert_eq!(task["owner"], "agt_risk_bot");
    let log = agent
        .get(&Harness::api(
            "supply",
            "/branches/agent%2Fagt_risk_bot%2Flower-risk/log",
        ))
        .await;
    assert_eq!(log.body["entries"][0]["author"], "agt_risk_bot");
    let raw = agent
        .get(&Harness::api(
            "supply",
            "/branches/agent/agt_risk_bot/lower-risk/log?limit=1",
        ))
        .await;
    assert_eq!(raw.body["entries"][0], log.body["entries"][0]);

    // A review policy needs a Proposal even for a steward, who may merge it at once.
    let steward = admin.as_principal("usr_steward");
    let flag = json!({"supplier_code": "S-1003", "reason": "late deliveries", "risk_score": 80});
    let refused = steward
        .post(
            &exec("flag_supplier_risk"),
            json!({"parameters": flag, "dry_run": false}),
        )
        .await;
    assert_eq!((refused.status, refused.code()), (403, "review-required"));
    let merged = steward.post(&exec("flag_supplier_risk"), json!({"parameters": flag, "dry_run": false, "task": "flag-s1003", "intent": "Late deliveries", "auto_merge": true})).await;
    assert_eq!(
        (merged.status, merged.body["proposal"]["status"].as_str()),
        (202, Some("merged"))
    );
    let rec = steward
        .get(&Harness::api("supply", "/kinds/Supplier/records/S-1003"))
        .await;
    assert_eq!(
        (
            rec.body["values"]["risk_flag"].clone(),
            rec.body["values"]["risk_reason"].clone(),
            rec.body["values"]["risk_score"].clone()
        ),
        (json!(true), json!("late deliveries"), json!(80))
    );
    assert_eq!(rec.body["revision"], merged.body["revision"]);
    let lin = steward
        .get(&Harness::api(
            "supply",
            "/kinds/Supplier/records/S-1003/lineage",
        ))
        .await;
    assert_eq!(
        lin.body["proposals"][0]["id"],
        merged.body["proposal"]["id"]
    );
    let flagged = lin.body["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["attribute"] == "risk_flag")
        .unwrap()
        .clone();
    assert_eq!(flagged["origin"]["origin_type"], "proposal");
}

#[tokio::test]
async fn conflicts_and_the_task_branch_limit() {
    let admin = Harness::start(AuthMode::ApiKey).await;
    let agent = admin.as_principal("agt_risk_bot");
    let boss = admin.as_principal("usr_admin");
    let run = |task: &str, code: &str, score: i64| json!({"parameters": {"supplier_code": code, "risk_score": score}, "dry_run": false, "task": task, "intent": "x"});
    let first = agent
        .post(&exec("update_supplier"), run("t1", "S-1002", 50))
        .await;
    assert_eq!(first.body["proposal"]["status"], "proposed");
    // An administrator writes main directly (protection does not apply to it).
    let direct = boss
        .post(
            &exec("update_supplier"),
            json!({"parameters": {"supplier_code": "S-1002", "risk_score": 60}, "dry_run": false}),
        )
        .await;
    assert_eq!(
        (direct.status, direct.body["status"].as_str()),
        (200, Some("committed"))
    );
    let second = agent
        .post(&exec("update_supplier"), run("t1", "S-1002", 55))
        .await;
    assert_eq!(
        (second.status, second.body["proposal"]["status"].as_str()),
        (202, Some("conflicts"))
    );
    assert_eq!(
        second.body["proposal"]["id"], first.body["proposal"]["id"],
        "the same Proposal"
    );
    assert!(second.body["next"][0].as_str().unwrap().contains("re-read"));
    for t in ["t2", "t3"] {
        let ok = agent
            .post(&exec("update_supplier"), run(t, "S-2001", 10))
            .await;
        assert_eq!(ok.status, 202);
    }
    let over = agent
        .post(&exec("update_supplier"), run("t4", "S-2001", 10))
        .await;
    assert_eq!((over.status, over.code()), (409, "agent-branch-limit"));
    let theirs = boss.post(&exec("update_supplier"), json!({"branch": "agent/agt_risk_bot/t2", "parameters": {"supplier_code": "S-2001", "risk_score": 11}, "dry_run": true})).await;
    assert_eq!((theirs.status, theirs.code()), (409, "already-exists"));
    let bad_task = agent
        .post(&exec("update_supplier"), run("Not A Slug", "S-2001", 10))
        .await;
    assert_eq!(
        (bad_task.status, bad_task.body["issues"][0]["path"].as_str()),
        (422, Some("task"))
    );
}
