//! How failures read: `[code] message`, one issue per line, `next:` from
//! herald.md's table, for every problem code.

use herald_core::error::{DEFAULT_RETRY_DELAY_S, KeeperError, ToolError};
use herald_core::keeper::model::{Issue, Problem, ProblemCode};

fn problem(code: ProblemCode, detail: &str) -> Problem {
    KeeperError::problem(code, detail, Vec::new())
}

fn next_line(text: &str) -> &str {
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("next: "), "no next line last: {text}");
    assert_eq!(text.matches("\nnext: ").count(), 1, "{text}");
    last
}

#[test]
fn every_code_renders_code_message_and_next() {
    for code in ProblemCode::ALL {
        let text = ToolError::new(code, "something went wrong").render();
        assert!(
            text.starts_with(&format!("[{}] something went wrong\n", code.as_str())),
            "{text}"
        );
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(next_line(&text).len() > "next: ".len() + 5, "{text}");
    }
}

#[test]
fn stale_head_names_the_current_head() {
    let mut p = problem(
        ProblemCode::StaleHead,
        "the branch moved since expected_head",
    );
    p.head = Some("f4d229169a37".into());
    let text = ToolError::from(KeeperError::Problem(Box::new(p))).render();
    assert_eq!(
        text,
        "[stale-head] the branch moved since expected_head\n\
         next: the branch head is now f4d229169a37; re-read what you are changing, then retry with expected_head: f4d229169a37"
    );
    let without = ToolError::new(ProblemCode::StaleHead, "moved").render();
    assert!(
        next_line(&without).contains("lorebase_branches"),
        "{without}"
    );
}

#[test]
fn review_codes_say_to_open_a_proposal() {
    for code in [ProblemCode::ReviewRequired, ProblemCode::ProtectedBranch] {
        let text = ToolError::new(code, "needs review").render();
        let next = next_line(&text);
        assert!(
            next.contains("task") && next.contains("intent") && next.contains("Proposal"),
            "{next}"
        );
    }
}

#[test]
fn branch_limit_codes_say_to_merge_or_use_another_task() {
    for code in [ProblemCode::AgentBranchLimit, ProblemCode::AlreadyExists] {
        let text = ToolError::new(code, "too many").render();
        assert_eq!(
            next_line(&text),
            "next: merge or close one of your Proposals, or use another task"
        );
    }
}

#[test]
fn validation_failed_lists_issues_one_per_line() {
    let mut p = problem(
        ProblemCode::ValidationFailed,
        "parameters do not match the Operation",
    );
    p.issues = vec![
        Issue {
            path: "parameters.risk_score".into(),
            message: "must be at most 100".into(),
        },
        Issue {
            path: "parameters.reason".into(),
            message: "is required".into(),
        },
    ];
    let text = ToolError::from(KeeperError::Problem(Box::new(p))).render();
    assert_eq!(
        text,
        "[validation-failed] parameters do not match the Operation\n\
         \x20 parameters.risk_score: must be at most 100\n\
         \x20 parameters.reason: is required\n\
         next: fix the issues above (one per line, with its path), then call again"
    );
    let bare = ToolError::new(ProblemCode::ValidationFailed, "bad").render();
    assert!(next_line(&bare).contains("fix the arguments"), "{bare}");
}

#[test]
fn not_found_points_at_search_and_schema() {
    let text = ToolError::new(ProblemCode::NotFound, "no Record Supplier/S-9").render();
    assert_eq!(
        next_line(&text),
        "next: check refs with lorebase_search or lorebase_schema"
    );
}

#[test]
fn forbidden_and_unauthorized_say_not_to_retry() {
    for code in [ProblemCode::Forbidden, ProblemCode::Unauthorized] {
        let text = ToolError::new(code, "no").render();
        assert!(next_line(&text).starts_with("next: do not retry"), "{text}");
    }
}

#[test]
fn transient_codes_give_the_delay_in_seconds() {
    for code in [
        ProblemCode::RateLimited,
        ProblemCode::BranchBusy,
        ProblemCode::KeeperUnavailable,
    ] {
        let mut p = problem(code, "busy");
        p.retry_after = Some(7);
        let text = ToolError::from(p).render();
        assert_eq!(next_line(&text), "next: retry after 7 s", "{text}");
        let text = ToolError::new(code, "busy").render();
        assert_eq!(
            next_line(&text),
            format!("next: retry after {DEFAULT_RETRY_DELAY_S} s")
        );
    }
}

#[test]
fn next_overrides_the_default() {
    let text = ToolError::new(ProblemCode::NotFound, "no such tool option")
        .with_next("use format: text or json")
        .render();
    assert_eq!(next_line(&text), "next: use format: text or json");
}

#[test]
fn keeper_errors_convert() {
    let e: ToolError = KeeperError::Unavailable(
        "cannot reach Keeper at http://127.0.0.1:1: refused (3 attempts)".into(),
    )
    .into();
    assert_eq!(e.code, ProblemCode::KeeperUnavailable);
    assert!(
        e.render()
            .starts_with("[keeper-unavailable] cannot reach Keeper")
    );

    let e: ToolError = KeeperError::Protocol("HTTP 500 without a problem body".into()).into();
    assert_eq!(e.code, ProblemCode::KeeperUnavailable);
    assert!(e.message.contains("unexpected answer"), "{}", e.message);

    let e: ToolError = KeeperError::TooLarge {
        endpoint: "POST /neighborhood",
        limit: 1024,
    }
    .into();
    assert_eq!(e.code, ProblemCode::ValidationFailed);
    let text = e.render();
    assert!(
        text.contains("POST /neighborhood") && text.contains("1024 bytes"),
        "{text}"
    );
    assert!(next_line(&text).contains("ask for less"), "{text}");

    // An empty detail falls back to the title.
    let mut p = problem(ProblemCode::Forbidden, "");
    p.title = "Forbidden".into();
    assert_eq!(ToolError::from(p).message, "Forbidden");
}

#[test]
fn fields_never_break_lines() {
    let e =
        ToolError::new(ProblemCode::ValidationFailed, "two\nlines").with_issue("a\nb", "c\r\nd");
    let text = e.render();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.starts_with("[validation-failed] two lines\n  a b: c d\n"),
        "{text}"
    );
}
