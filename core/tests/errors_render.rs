//! How failures read: `[code] message`, one issue per line, `next:` from
//! the table of problem codes, for every problem code.

use herald_core::config::{OutputSettings, Settings};
use herald_core::error::{DEFAULT_RETRY_DELAY_S, KeeperError, ToolError};
use herald_core::keeper::model::{Issue, Problem, ProblemCode};

fn problem(code: ProblemCode, detail: &str) -> Problem {
    KeeperError::problem(code, detail, Vec::new())
}

/// The default output caps (12000 characters, 500 a value).
fn caps() -> OutputSettings {
    Settings::default().output
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
        let text = ToolError::new(code, "something went wrong").render(&caps());
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
    let text = ToolError::from(KeeperError::Problem(Box::new(p))).render(&caps());
    assert_eq!(
        text,
        "[stale-head] the branch moved since expected_head\n\
         next: the branch head is now f4d229169a37; re-read what you are changing, then retry with expected_head: f4d229169a37"
    );
    let without = ToolError::new(ProblemCode::StaleHead, "moved").render(&caps());
    assert!(
        next_line(&without).contains("lorebase_branches"),
        "{without}"
    );
}

#[test]
fn review_codes_say_to_open_a_proposal() {
    for code in [ProblemCode::ReviewRequired, ProblemCode::ProtectedBranch] {
        let text = ToolError::new(code, "needs review").render(&caps());
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
        let text = ToolError::new(code, "too many").render(&caps());
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
    let text = ToolError::from(KeeperError::Problem(Box::new(p))).render(&caps());
    assert_eq!(
        text,
        "[validation-failed] parameters do not match the Operation\n\
         \x20 parameters.risk_score: must be at most 100\n\
         \x20 parameters.reason: is required\n\
         next: fix the issues above (one per line, with its path), then call again"
    );
    let bare = ToolError::new(ProblemCode::ValidationFailed, "bad").render(&caps());
    assert!(next_line(&bare).contains("fix the arguments"), "{bare}");
}

#[test]
fn not_found_points_at_search_and_schema() {
    let text = ToolError::new(ProblemCode::NotFound, "no Record Supplier/S-9").render(&caps());
    assert_eq!(
        next_line(&text),
        "next: check refs with lorebase_search or lorebase_schema"
    );
}

#[test]
fn forbidden_and_unauthorized_say_not_to_retry() {
    for code in [ProblemCode::Forbidden, ProblemCode::Unauthorized] {
        let text = ToolError::new(code, "no").render(&caps());
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
        let text = ToolError::from(p).render(&caps());
        assert_eq!(next_line(&text), "next: retry after 7 s", "{text}");
        let text = ToolError::new(code, "busy").render(&caps());
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
        .render(&caps());
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
        e.render(&caps())
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
    let text = e.render(&caps());
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
    let text = e.render(&caps());
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.starts_with("[validation-failed] two lines\n  a b: c d\n"),
        "{text}"
    );
}

/// Keeper's 422 with 300 issues: as many issue lines as fit in max_chars,
/// then the count of the others, then the next line, the whole within the cap.
#[test]
fn issues_fill_max_chars_then_say_how_many_more() {
    let mut e = ToolError::new(
        ProblemCode::ValidationFailed,
        "the parameters of update_supplier are not valid",
    );
    for i in 0..300 {
        e = e.with_issue(
            format!("parameters.p{i}"),
            format!("update_supplier has no parameter p{i}"),
        );
    }
    let caps = caps();
    let text = e.render(&caps);
    assert!(text.chars().count() <= caps.max_chars, "{}", text.len());
    assert!(
        text.chars().count() > caps.max_chars - 100,
        "{}",
        text.len()
    );
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines
        .iter()
        .filter(|l| l.starts_with("  parameters.p"))
        .count();
    assert!(shown > 100 && shown < 300, "{shown}");
    assert_eq!(
        lines[lines.len() - 2],
        format!("  ... {} more issues", 300 - shown)
    );
    next_line(&text);
    // The issues kept are the first ones, in order.
    assert_eq!(
        lines[1],
        "  parameters.p0: update_supplier has no parameter p0"
    );

    // A cap too small for any issue still gives the head, the count and next.
    let tiny = OutputSettings {
        max_chars: 10,
        ..caps.clone()
    };
    let text = e.render(&tiny);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert_eq!(text.lines().nth(1), Some("  ... 300 more issues"));
    next_line(&text);
    // All issues fit: no count line.
    let few = ToolError::new(ProblemCode::ValidationFailed, "bad")
        .with_issue("a", "x")
        .with_issue("b", "y");
    assert!(!few.render(&caps).contains("more issue"));
}

/// A 1 MB value in any field comes back once, cut in the middle and marked,
/// and a 1 MB path (an echoed key) shorter still.
#[test]
fn echoed_values_are_cut_and_marked() {
    let big = "A".repeat(1_000_000);
    let e = ToolError::new(ProblemCode::ValidationFailed, format!("bad {big}"))
        .with_issue(
            format!("parameters.{big}"),
            format!("invalid type: string \"{big}\", expected a boolean"),
        )
        .with_next(format!("do not send {big}"));
    let caps = caps();
    let text = e.render(&caps);
    assert!(text.len() < 4 * caps.max_value_chars, "{}", text.len());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("[validation-failed] bad AAAA"),
        "{text}"
    );
    assert!(lines[0].contains("... [truncated: "), "{text}");
    let (path, message) = lines[1].trim_start().split_once(" chars] ...").unwrap();
    assert!(path.starts_with("parameters.AAAA"), "{path}");
    assert!(path.chars().count() < 200, "{path}");
    assert!(message.contains("invalid type: string \"AAAA"), "{message}");
    assert!(message.contains("[truncated: "), "{message}");
    assert!(message.ends_with("\", expected a boolean"), "{message}");
    assert!(lines[2].starts_with("next: do not send AAA"), "{text}");
}
