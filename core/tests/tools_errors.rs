//! Every error path of the tools: Herald's own checks (before any Keeper
//! call) and Keeper's problems, each shown as `[code] message`, issues and a
//! `next:` line, with no structured content.

use crate::tools_support;

use herald_core::config::Secret;
use herald_core::keeper::Credential;
use herald_core::tools::RenderedOutput;
use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};
use serde_json::{Value, json};
use tools_support::{args, call, sandbox_toolbox, toolbox_on};

fn assert_error(out: &RenderedOutput, code: &str) {
    assert!(out.is_error, "expected [{code}], got {}", out.text);
    assert!(
        out.structured.is_none(),
        "errors carry no structured content"
    );
    assert!(out.text.starts_with(&format!("[{code}] ")), "{}", out.text);
    assert!(
        out.text.lines().last().unwrap().starts_with("next: "),
        "{}",
        out.text
    );
}

/// Calls that Herald refuses as validation-failed, naming the argument, before
/// any Keeper call.
#[tokio::test]
async fn bad_arguments_fail_before_any_keeper_call() {
    let (sandbox, t) = sandbox_toolbox("supply").await;
    let cases: Vec<(&str, Value, &str)> = vec![
        ("lorebase_get", json!({"ref": "S-1001"}), "ref"),
        ("lorebase_get", json!({"ref": "Supplier/"}), "ref"),
        ("lorebase_get", json!({}), "ref"),
        ("lorebase_get", json!({"ref": 7}), "ref"),
        (
            "lorebase_get",
            json!({"ref": "Supplier/S-1001", "bogus": 1}),
            "bogus",
        ),
        (
            "lorebase_get",
            json!({"ref": "Supplier/S-1001", "format": "xml"}),
            "format",
        ),
        (
            "lorebase_get",
            json!({"ref": "Supplier/S-1001", "domain": ""}),
            "domain",
        ),
        (
            "lorebase_diff",
            json!({"from_revision": "a", "to_revision": "b", "branch": "main"}),
            "branch",
        ),
        (
            "lorebase_neighborhood",
            json!({"seeds": ["Supplier/S-1001", "nope"], "depth": 1}),
            "seeds[1]",
        ),
        (
            "lorebase_neighborhood",
            json!({"seeds": [], "depth": 1}),
            "seeds",
        ),
        (
            "lorebase_neighborhood",
            json!({"seeds": ["Supplier/S-1001"], "depth": 9}),
            "depth",
        ),
        (
            "lorebase_context",
            json!({"records": ["bad ref"]}),
            "records[0]",
        ),
        ("lorebase_context", json!({}), "records"),
        (
            "lorebase_history",
            json!({"ref": "Supplier/S-1001", "limit": 0}),
            "limit",
        ),
        (
            "lorebase_history",
            json!({"ref": "Supplier/S-1001", "limit": -3}),
            "limit",
        ),
        ("lorebase_changes", json!({"since": "abc"}), "since"),
        ("lorebase_resolve", json!({"text": "   "}), "text"),
        (
            "lorebase_resolve",
            json!({"text": "red", "levels": ["psychic"]}),
            "levels[0]",
        ),
        (
            "lorebase_search",
            json!({"query": "x", "query_vector": []}),
            "query_vector",
        ),
        (
            "lorebase_query",
            json!({"query": {"kind": "Product", "bogus": true}}),
            "query",
        ),
        (
            "lorebase_query",
            json!({"query": {"kind": "Product", "where": {"attr": "color", "op": "like", "value": "x"}}}),
            "query.where",
        ),
        (
            "lorebase_execute",
            json!({"operation": "flag supplier", "parameters": {}}),
            "operation",
        ),
        (
            "lorebase_execute",
            json!({"operation": "x", "parameters": {}, "task": "Not A Slug"}),
            "task",
        ),
        (
            "lorebase_execute",
            json!({"operation": "x", "parameters": []}),
            "parameters",
        ),
        (
            "lorebase_execute",
            json!({"operation": "x", "parameters": {}, "expected_head": "zz"}),
            "expected_head",
        ),
    ];
    let before = sandbox.request_count();
    for (tool, arguments, arg) in cases {
        let out = call(&t, tool, arguments.clone()).await;
        assert_error(&out, "validation-failed");
        assert!(
            out.text.lines().any(|l| l.starts_with(&format!("  {arg}"))),
            "{tool} {arguments}: the issue names {arg}\n{}",
            out.text
        );
    }
    assert_eq!(
        sandbox.request_count(),
        before,
        "no Keeper call for bad arguments"
    );
}

/// The paths of an error's issue lines.
fn issue_paths(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("  ")?.split(':').next())
        .collect()
}

/// Every bad argument of a call in one answer, one issue per line with its
/// path, each message as it is alone; the shared arguments' too.
#[tokio::test]
async fn every_bad_argument_is_listed_at_once() {
    let (sandbox, t) = sandbox_toolbox("supply").await;
    let before = sandbox.request_count();
    let out = call(&t, "lorebase_history", json!({"ref": "bad", "limit": 9999})).await;
    assert_error(&out, "validation-failed");
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(
        lines[0],
        "[validation-failed] invalid arguments `ref`, `limit`"
    );
    assert!(lines[1].starts_with("  ref: "), "{}", out.text);
    assert_eq!(lines[2], "  limit: must be between 1 and 200");
    assert_eq!(lines.len(), 4, "{}", out.text);
    let alone = call(&t, "lorebase_history", json!({"ref": "bad"})).await;
    assert_eq!(alone.text.lines().nth(1), Some(lines[1]));
    let out = call(
        &t,
        "lorebase_search",
        json!({"query": "", "limit": 0, "format": "xml", "kinds": "Supplier"}),
    )
    .await;
    assert_error(&out, "validation-failed");
    let paths = issue_paths(&out.text);
    assert_eq!(paths, ["format", "kinds"], "{}", out.text);
    let out = call(&t, "lorebase_search", json!({"query": "", "limit": 0})).await;
    let paths = issue_paths(&out.text);
    assert_eq!(paths, ["query", "limit"], "{}", out.text);
    assert_eq!(sandbox.request_count(), before, "no Keeper call");
}

#[tokio::test]
async fn a_missing_domain_says_how_to_set_one() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "x", |s| s.domain = None);
    let out = call(&t, "lorebase_branches", json!({})).await;
    assert_error(&out, "validation-failed");
    assert!(out.text.contains("LOREBASE_DOMAIN"), "{}", out.text);
    assert_eq!(sandbox.request_count(), 0);
}

#[tokio::test]
async fn keeper_problems_come_back_with_their_code_and_next_step() {
    // An agent's key: the anonymous administrator of auth mode none may write
    // on protected branches.
    let sandbox = Sandbox::start(SandboxOptions {
        auth: AuthMode::ApiKey,
        ..Default::default()
    })
    .await
    .unwrap();
    let key = sandbox.key_of("agt_risk_bot").unwrap().to_string();
    let t = toolbox_on(&sandbox.url(), "supply", |s| {
        s.keeper.api_key = Some(Secret::new(key));
    });
    let not_found = call(&t, "lorebase_get", json!({"ref": "Supplier/S-9999"})).await;
    assert_error(&not_found, "not-found");
    let unknown_domain = call(&t, "lorebase_schema", json!({"domain": "nowhere"})).await;
    assert_error(&unknown_domain, "not-found");

    // A review policy without a task: review-required, with the way out.
    let review = call(
        &t,
        "lorebase_execute",
        json!({"operation": "flag_supplier_risk",
        "parameters": {"supplier_code": "S-1001", "reason": "late"}, "dry_run": false}),
    )
    .await;
    assert!(review.is_error, "{}", review.text);
    assert!(
        review.text.starts_with("[review-required]")
            || review.text.starts_with("[protected-branch]"),
        "{}",
        review.text
    );
    assert!(review.text.contains("task"), "{}", review.text);

    // A commit on the protected main branch without a task.
    let protected = call(
        &t,
        "lorebase_execute",
        json!({"operation": "update_supplier",
        "parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": false}),
    )
    .await;
    assert_error(&protected, "protected-branch");

    // Parameters Keeper refuses.
    let invalid = call(
        &t,
        "lorebase_execute",
        json!({"operation": "update_supplier", "branch": "dev",
        "parameters": {"supplier_code": "S-1001", "risk_score": "very"}, "dry_run": false}),
    )
    .await;
    assert_error(&invalid, "validation-failed");

    // A stale expected_head names the current head.
    let stale = call(
        &t,
        "lorebase_execute",
        json!({"operation": "update_supplier", "branch": "dev",
        "parameters": {"supplier_code": "S-1001", "risk_score": 10}, "dry_run": false,
        "expected_head": "0000000000000000000000000000000000000000000000000000000000000000"}),
    )
    .await;
    assert_error(&stale, "stale-head");
    assert!(stale.text.contains("expected_head"), "{}", stale.text);
}

/// `intent`, `auto_propose` and `auto_merge` are always passed on
/// and Keeper's problem text is returned unchanged.
#[tokio::test]
async fn auto_propose_without_a_task_is_keepers_to_refuse() {
    let (sandbox, t) = sandbox_toolbox("supply").await;
    let out = call(
        &t,
        "lorebase_execute",
        json!({"operation": "flag_supplier_risk", "dry_run": false, "auto_propose": true, "auto_merge": true,
        "intent": "check", "parameters": {"supplier_code": "S-1001", "reason": "late"}}),
    )
    .await;
    assert_eq!(sandbox.request_count(), 1, "Keeper was asked");
    assert_eq!(
        out.text,
        "[validation-failed] the request is not valid\n  auto_propose: auto_propose needs a task (and an intent)\nnext: fix the issues above (one per line, with its path), then call again"
    );
}

#[tokio::test]
async fn too_many_task_branches_is_agent_branch_limit() {
    let (_sandbox, t) = sandbox_toolbox("supply").await;
    let mut last = None;
    for i in 0..5 {
        let out = call(&t, "lorebase_execute", json!({"operation": "flag_supplier_risk",
            "parameters": {"supplier_code": "S-1001", "reason": format!("reason {i}")}, "dry_run": false,
            "task": format!("task-{i}"), "intent": "check", "auto_propose": true})).await;
        if out.is_error {
            last = Some(out);
            break;
        }
    }
    let out = last.expect("the branch limit stops a task");
    assert_error(&out, "agent-branch-limit");
}

#[tokio::test]
async fn credentials_unauthorized_and_forbidden() {
    let sandbox = Sandbox::start(SandboxOptions {
        auth: AuthMode::ApiKey,
        ..Default::default()
    })
    .await
    .unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |_| {});
    let none = call(&t, "lorebase_branches", json!({})).await;
    assert_error(&none, "unauthorized");
    let bad = t
        .call(
            "lorebase_branches",
            args(json!({})),
            &Credential::Bearer(Secret::new("lbk_wrong_key")),
        )
        .await
        .unwrap();
    assert_error(&bad, "unauthorized");
    assert!(!bad.text.contains("lbk_wrong_key"), "no secret in an error");
    let reader = Secret::new(sandbox.key_of("agt_reader").unwrap());
    let ok = t
        .call(
            "lorebase_branches",
            args(json!({})),
            &Credential::Bearer(reader.clone()),
        )
        .await
        .unwrap();
    assert!(!ok.is_error, "{}", ok.text);
    let forbidden = t
        .call(
            "lorebase_execute",
            args(json!({"operation": "update_supplier", "parameters": {"supplier_code": "S-1001", "risk_score": 1}})),
            &Credential::Bearer(reader),
        )
        .await
        .unwrap();
    assert_error(&forbidden, "forbidden");
}

#[tokio::test]
async fn transient_failures_say_when_to_retry() {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.keeper.max_retries = 0);
    sandbox.inject(Fault::status(429).retry_after(7).times(1));
    let limited = call(&t, "lorebase_branches", json!({})).await;
    assert_error(&limited, "rate-limited");
    assert!(limited.text.contains('7'), "{}", limited.text);

    // Nothing listens on a closed port.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let closed = toolbox_on(&format!("http://127.0.0.1:{port}"), "supply", |s| {
        s.keeper.max_retries = 0;
    });
    let out = call(&closed, "lorebase_get", json!({"ref": "Supplier/S-1001"})).await;
    assert_error(&out, "keeper-unavailable");
}

#[tokio::test]
async fn a_question_without_hits_is_not_found_with_a_way_forward() {
    let (_sandbox, t) = sandbox_toolbox("supply").await;
    let out = call(&t, "lorebase_context", json!({"question": "zzxqv qqzzv"})).await;
    assert_error(&out, "not-found");
    assert!(out.text.contains("lorebase_resolve"), "{}", out.text);
}
