//! A Keeper one release ahead of the contract. On the sandbox's newer-Keeper
//! mode (`SandboxOptions::newer_keeper`: extra fields, enum values and
//! problem codes the contract does not list) every golden case reads exactly
//! as on the contract's Keeper once the new names are put back: the only
//! differences are the new values, shown as they are. Problems keep Keeper's
//! code and message whatever the code; only 429, 503 and an unreachable
//! Keeper say "retry".

use crate::tools_golden::{cases, golden_path, mask_new_ids, sample_revisions};
use crate::tools_support;

use herald_core::config::Secret;
use herald_core::error::unknown_code_next;
use herald_core::keeper::Credential;
use herald_core::tools::{RenderedOutput, Toolbox};
use lorebase_sandbox::newer::{
    ADDED_SIGNAL, ADDED_SIGNAL_MESSAGE, EXTRA_FIELDS, RENAMED, RENAMED_CODES,
};
use lorebase_sandbox::{AuthMode, Fault, Sandbox, SandboxOptions};
use serde_json::{Value, json};
use tools_support::{args, call, sandbox_toolbox_with, schema_violations, toolbox_on};

fn newer(auth: AuthMode) -> SandboxOptions {
    SandboxOptions {
        auth,
        newer_keeper: true,
        ..Default::default()
    }
}

/// A text answer with the new names put back and the added signal's lines
/// left out: what the contract's Keeper would have given.
fn text_as_contract(text: &str) -> String {
    let mut out = text
        .lines()
        .filter(|l| !l.contains(ADDED_SIGNAL_MESSAGE))
        .collect::<Vec<_>>()
        .join("\n");
    for (_, from, to) in RENAMED {
        out = out.replace(to, from);
    }
    out
}

/// A JSON answer with the new names put back and the added signal left out.
fn json_as_contract(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if let Value::String(s) = child
                    && let Some((_, from, _)) = RENAMED
                        .iter()
                        .find(|(field, _, to)| field == key && to == s)
                {
                    *s = (*from).to_string();
                }
                if key == "coverage"
                    && let Value::Array(signals) = child
                {
                    signals.retain(|s| s["signal"] != ADDED_SIGNAL);
                }
                json_as_contract(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(json_as_contract),
        _ => {}
    }
}

/// The object keys anywhere in `value`.
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

fn golden(file: &str) -> String {
    std::fs::read_to_string(golden_path(file)).expect("the golden file exists")
}

#[tokio::test]
async fn every_golden_case_reads_the_same_on_a_newer_keeper_but_for_the_new_values() {
    let known = sample_revisions().await;
    let mut failures = Vec::new();
    let mut raw = String::new();
    for case in cases() {
        let (_sandbox, t) = sandbox_toolbox_with(case.domain, newer(AuthMode::None)).await;
        let text = call(&t, case.tool, case.args.clone()).await;
        assert!(!text.is_error, "{}: {}", case.stem, text.text);
        raw.push_str(&text.text);
        let as_contract = mask_new_ids(&format!("{}\n", text_as_contract(&text.text)), &known);
        if as_contract != golden(&format!("{}.txt", case.stem)) {
            failures.push(format!(
                "{}.txt: more than the new values differ\n--- newer Keeper ---\n{}\n--- as the contract's ---\n{as_contract}",
                case.stem, text.text
            ));
        }

        let mut json_args = case.args.clone();
        json_args["format"] = json!("json");
        // Output schemas on: the new values are checked against them.
        let sandbox = Sandbox::start(newer(AuthMode::None)).await.unwrap();
        let t = toolbox_on(&sandbox.url(), case.domain, |s| s.output.schemas = true);
        let out = call(&t, case.tool, json_args).await;
        assert!(!out.is_error, "{}: {}", case.stem, out.text);
        let structured = out.structured.clone().expect("json has structured content");
        raw.push_str(&out.text);
        // Fields Herald does not know are not passed on.
        let mut seen = Vec::new();
        keys(&structured, &mut seen);
        for (field, _) in EXTRA_FIELDS {
            assert!(!seen.iter().any(|k| k == field), "{}: {field}", case.stem);
        }
        // New values conform to the output schema (names are not a closed enum).
        let schema = t
            .definitions()
            .into_iter()
            .find(|d| d.name == case.tool)
            .and_then(|d| d.output_schema)
            .expect("output schemas are on");
        let violations = schema_violations(&schema, &structured);
        assert!(violations.is_empty(), "{}: {violations:?}", case.stem);
        let mut contract = structured;
        json_as_contract(&mut contract);
        let pretty = serde_json::to_string_pretty(&contract).unwrap() + "\n";
        let as_contract = mask_new_ids(&pretty, &known);
        if as_contract != golden(&format!("{}.json", case.stem)) {
            failures.push(format!(
                "{}.json: more than the new values differ\n--- newer Keeper ---\n{}\n--- as the contract's ---\n{as_contract}",
                case.stem, out.text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The cases met every new value, shown as it is.
    for (_, _, to) in RENAMED {
        assert!(raw.contains(to), "no golden case showed {to}");
    }
    assert!(
        raw.contains(ADDED_SIGNAL_MESSAGE),
        "the added signal is shown"
    );
}

/// The errors of a sequence of calls on a sandbox in auth mode api_key.
async fn error_texts(options: SandboxOptions) -> Vec<String> {
    let sandbox = Sandbox::start(options).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |_| {});
    let key = |p: &str| Credential::Bearer(Secret::new(sandbox.key_of(p).unwrap()));
    let (bot, steward) = (key("agt_risk_bot"), key("usr_steward"));
    let run = |t: &Toolbox, cred: &Credential, tool: &str, a: Value| {
        let (t, cred, tool) = (t.clone(), cred.clone(), tool.to_string());
        async move { t.call(&tool, args(a), &cred).await.unwrap() }
    };
    let flag = |branch: &str, task: Option<&str>, auto_propose: bool| {
        let mut a = json!({"operation": "flag_supplier_risk", "branch": branch, "dry_run": false,
            "parameters": {"supplier_code": "S-1002", "reason": "audit"}});
        if let Some(task) = task {
            a["task"] = json!(task);
            a["intent"] = json!("check");
        }
        if auto_propose {
            a["auto_propose"] = json!(true);
        }
        a
    };
    let update = |branch: &str, risk: Value, head: Option<&str>| {
        let mut a = json!({"operation": "update_supplier", "branch": branch, "dry_run": false,
            "parameters": {"supplier_code": "S-1002", "risk_score": risk}});
        if let Some(head) = head {
            a["expected_head"] = json!(head);
        }
        a
    };
    let mut outs: Vec<RenderedOutput> = vec![
        run(&t, &bot, "lorebase_get", json!({"ref": "Supplier/S-9999"})).await,
        run(
            &t,
            &bot,
            "lorebase_execute",
            update("dev", json!("very"), None),
        )
        .await,
        run(
            &t,
            &bot,
            "lorebase_execute",
            update("dev", json!(5), Some(&"0".repeat(64))),
        )
        .await,
        run(&t, &bot, "lorebase_execute", flag("dev", None, false)).await,
        run(&t, &bot, "lorebase_execute", update("main", json!(5), None)).await,
        run(&t, &bot, "lorebase_execute", flag("main", None, true)).await,
        run(&t, &Credential::Anonymous, "lorebase_branches", json!({})).await,
    ];
    let opened = run(
        &t,
        &bot,
        "lorebase_execute",
        flag("main", Some("risk-check"), false),
    )
    .await;
    assert!(!opened.is_error, "{}", opened.text);
    let theirs = "agent/agt_risk_bot/risk-check";
    outs.push(
        run(
            &t,
            &steward,
            "lorebase_execute",
            update(theirs, json!(43), None),
        )
        .await,
    );
    for n in 0..5 {
        let out = run(
            &t,
            &bot,
            "lorebase_execute",
            flag("main", Some(&format!("t-{n}")), false),
        )
        .await;
        if out.is_error {
            outs.push(out);
            break;
        }
    }
    outs.into_iter()
        .map(|o| {
            assert!(o.is_error, "{}", o.text);
            o.text
        })
        .collect()
}

#[tokio::test]
async fn problems_of_a_newer_keeper_keep_its_code_and_message() {
    let contract = error_texts(SandboxOptions {
        auth: AuthMode::ApiKey,
        ..Default::default()
    })
    .await;
    let newer = error_texts(newer(AuthMode::ApiKey)).await;
    assert_eq!(contract.len(), newer.len(), "{newer:#?}");
    let no_retry = unknown_code_next(Some(409), None);
    assert!(!no_retry.contains("retry"), "{no_retry}");
    let mut renamed_seen = 0;
    for (c, n) in contract.iter().zip(&newer) {
        let renamed = RENAMED_CODES
            .iter()
            .find(|(from, _)| c.starts_with(&format!("[{from}] ")));
        match renamed {
            // The new code as it is, Keeper's message and issues, and a next
            // step that does not send the agent back to the same failure.
            Some((from, to)) => {
                renamed_seen += 1;
                let (c_body, _) = c.rsplit_once("\nnext: ").unwrap();
                let (n_body, n_next) = n.rsplit_once("\nnext: ").unwrap();
                assert_eq!(
                    n_body.replacen(&format!("[{to}] "), &format!("[{from}] "), 1),
                    c_body
                );
                assert!(n_body.starts_with(&format!("[{to}] ")), "{n}");
                assert_eq!(n_next, no_retry, "{n}");
            }
            None => assert_eq!(n, c, "a known code reads the same"),
        }
    }
    assert_eq!(renamed_seen, RENAMED_CODES.len(), "{contract:#?}");
    // Keeper answers auto_propose without a task (Herald passes it on).
    assert!(
        contract
            .iter()
            .any(|t| t.starts_with("[validation-failed] ")
                && t.contains("\n  auto_propose: auto_propose needs a task")),
        "{contract:#?}"
    );
}

/// One call of `lorebase_get` answered by `fault` (no resend).
async fn answered_by(fault: Fault) -> (String, u64) {
    let sandbox = Sandbox::start(SandboxOptions::default()).await.unwrap();
    let t = toolbox_on(&sandbox.url(), "supply", |s| s.keeper.max_retries = 0);
    sandbox.inject(fault);
    let out = call(&t, "lorebase_get", json!({"ref": "Supplier/S-1001"})).await;
    assert!(out.is_error && out.structured.is_none(), "{}", out.text);
    (out.text, sandbox.request_count())
}

#[tokio::test]
async fn a_problem_with_a_code_herald_does_not_know_reaches_the_agent_as_keeper_wrote_it() {
    let (text, calls) = answered_by(Fault::status(409).body(json!({
        "code": "conflict", "detail": "the Proposal has conflicts",
        "issues": [{"path": "parameters.risk_score", "message": "changed on main since", "since": "r1"}],
        "hint": "re-read, then run it again"
    })))
    .await;
    assert_eq!(
        text,
        "[conflict] the Proposal has conflicts\n  parameters.risk_score: changed on main since\nnext: do not repeat the same call: act on Keeper's message above (its code is newer than this Herald)"
    );
    assert_eq!(calls, 1);

    // No `code`: the last segment of `type`; no `detail`: the title.
    let (text, _) = answered_by(Fault::status(409).body(json!({
        "type": "https://lorebase.dev/problems/proposal-conflict", "title": "Proposal conflicts"
    })))
    .await;
    assert!(
        text.starts_with("[proposal-conflict] Proposal conflicts\nnext: do not repeat"),
        "{text}"
    );

    // A known code with a status it does not usually come with is still that code.
    let (text, _) =
        answered_by(Fault::status(409).body(json!({"code": "not-found", "detail": "gone"}))).await;
    assert!(
        text.starts_with("[not-found] gone\nnext: check refs"),
        "{text}"
    );

    // A transient status keeps its retry, whatever the code.
    let (text, _) = answered_by(
        Fault::status(503)
            .retry_after(2)
            .body(json!({"code": "maintenance", "detail": "back soon"})),
    )
    .await;
    assert_eq!(text, "[maintenance] back soon\nnext: retry after 2 s");
}

#[tokio::test]
async fn only_429_503_and_an_unreachable_keeper_say_retry() {
    // Without a problem body: HTTP's own name for the status, never "retry".
    let (text, _) = answered_by(Fault::status(500).body(json!({"oops": true}))).await;
    assert_eq!(
        text,
        "[internal-server-error] Keeper answered 500 Internal Server Error without a problem body\nnext: do not repeat the same call: Keeper failed (HTTP 500); report Keeper's message above"
    );
    let (text, _) = answered_by(Fault::status(409).body(json!(["not", "a", "problem"]))).await;
    assert!(
        text.starts_with(
            "[conflict] Keeper answered 409 Conflict without a problem body\nnext: do not repeat"
        ),
        "{text}"
    );
    // An answer Herald cannot read reads the same the next time.
    let (text, _) = answered_by(Fault::status(200).body(json!({"unexpected": true}))).await;
    assert!(
        text.starts_with("[keeper-unavailable] unexpected answer from Keeper: "),
        "{text}"
    );
    assert!(text.ends_with("\nnext: do not repeat the same call: Keeper's answer does not match the contract this Herald reads; report the message above"), "{text}");
    for status in [429, 503] {
        let (text, _) = answered_by(Fault::status(status).retry_after(4)).await;
        assert!(text.ends_with("\nnext: retry after 4 s"), "{text}");
    }
}
