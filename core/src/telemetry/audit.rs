//! The record of one tool call: its audit line (info level, target
//! `herald::audit`) and, when spans are exported, its span.
//!
//! The audit line names the time, the request and trace ids (the ones its
//! Keeper requests carried), the tool, Domain and branch, the outcome code,
//! the duration, the Keeper requests made and the caller as a key
//! fingerprint: the first 12 hex digits of the SHA-256 of the key, the same
//! on every replica (`printf %s "$KEY" | sha256sum | cut -c1-12`), never the
//! key. Argument names are added only when `log.audit_arguments` is on
//! (at most [`MAX_AUDITED_NAMES`] of them and [`MAX_AUDITED_NAMES_CHARS`]
//! characters, then how many were left out); argument values never are.

use std::borrow::Cow;
use std::fmt;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tracing::field::display;

use super::scope::CallScope;
use super::spans::{AttributeValue, SpanKind, SpanRecord};
use super::trace::{Hex, RequestId, TraceContext};
use crate::config::Secret;

/// The `target` of audit lines (`RUST_LOG=herald::audit=off` silences them).
pub const AUDIT_TARGET: &str = "herald::audit";

/// Longest caller-given text (a Domain, a branch, an unknown tool's name)
/// copied into a log line.
const MAX_LOGGED_CHARS: usize = 128;

/// The most argument names an audit line lists (a call may send thousands:
/// 20,000 made a 129 KB line).
pub const MAX_AUDITED_NAMES: usize = 32;

/// The most characters of argument names an audit line holds (each name is
/// [`log_safe`], so at most 129 of them).
pub const MAX_AUDITED_NAMES_CHARS: usize = 1024;

/// Who made a call, as logs name it: `key:<fingerprint>` (computed only
/// when a line is written) or `anonymous`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller<'a> {
    /// A key.
    Key(&'a Secret),
    /// A call without a credential (`http.allow_anonymous`, or refused).
    Anonymous,
}

impl<'a> Caller<'a> {
    /// The caller with `key`, or without one.
    pub fn of(key: Option<&'a Secret>) -> Self {
        key.map_or(Self::Anonymous, Self::Key)
    }
}

impl fmt::Display for Caller<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Key(key) => write!(f, "key:{}", fingerprint(key.expose())),
            Self::Anonymous => f.write_str("anonymous"),
        }
    }
}

/// Whether audit lines are written now (a subscriber takes `herald::audit`
/// at info level).
pub fn audit_enabled() -> bool {
    tracing::enabled!(target: AUDIT_TARGET, tracing::Level::INFO)
}

/// The fingerprint of a key: the first 12 hex digits of its SHA-256.
pub fn fingerprint(key: &str) -> Hex<12> {
    let digest = Sha256::digest(key.as_bytes());
    Hex::of(&digest[..6])
}

/// Caller-given text as a log line may hold it: at most 128 characters,
/// control characters replaced (no line breaks into the log).
pub fn log_safe(text: &str) -> Cow<'_, str> {
    let clean = !text.chars().any(char::is_control);
    if clean && text.len() <= MAX_LOGGED_CHARS {
        return Cow::Borrowed(text);
    }
    let mut out: String = text
        .chars()
        .take(MAX_LOGGED_CHARS)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > MAX_LOGGED_CHARS {
        out.push('…');
    }
    Cow::Owned(out)
}

/// The names of a call's arguments, comma-separated (never their values).
pub struct ArgumentNames<'a>(pub &'a [String]);

impl fmt::Display for ArgumentNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(&log_safe(name))?;
        }
        Ok(())
    }
}

/// The argument names of `arguments`, for the audit line: the first ones,
/// up to [`MAX_AUDITED_NAMES`] names and [`MAX_AUDITED_NAMES_CHARS`]
/// characters (as logged), then `(+N more)` when some were left out.
pub fn argument_names(arguments: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    let mut chars = 0;
    for name in arguments.keys() {
        let logged = log_safe(name);
        let cost = logged.chars().count();
        if names.len() == MAX_AUDITED_NAMES || chars + cost > MAX_AUDITED_NAMES_CHARS {
            break;
        }
        chars += cost;
        names.push(logged.into_owned());
    }
    let left_out = arguments.len() - names.len();
    if left_out > 0 {
        names.push(format!("(+{left_out} more)"));
    }
    names
}

/// What is known of a finished (or refused) call.
#[derive(Debug, Clone, Copy)]
pub struct CallReport<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The Domain (empty when the tool has none).
    pub domain: &'a str,
    /// The branch (empty: the Domain's default branch, or none).
    pub branch: &'a str,
    /// `ok`, or the error code.
    pub outcome: &'static str,
    /// From the call reaching Herald to its answer.
    pub duration: Duration,
    /// Who called.
    pub caller: Caller<'a>,
    /// The argument names, when `log.audit_arguments` is on.
    pub arguments: Option<&'a [String]>,
}

impl CallReport<'_> {
    /// Writes the audit line, and the call's span when spans are exported.
    pub fn emit(&self, scope: &CallScope) {
        self.audit(scope.trace(), scope.request_id(), scope.keeper_requests());
        if let Some(sink) = scope.spans() {
            sink.record(self.span(scope));
        }
    }

    fn audit(&self, trace: &TraceContext, request_id: &RequestId, keeper_requests: u32) {
        let duration_ms = self.duration.as_micros() as f64 / 1000.0;
        // `None` records nothing: the field is left out.
        let arguments = self.arguments.map(|names| display(ArgumentNames(names)));
        tracing::info!(
            target: AUDIT_TARGET,
            request_id = %request_id,
            trace_id = %trace.trace_id_hex(),
            span_id = %trace.span_id_hex(),
            tool = %log_safe(self.tool),
            domain = %log_safe(self.domain),
            branch = %log_safe(self.branch),
            outcome = %self.outcome,
            duration_ms,
            keeper_requests,
            caller = %self.caller,
            arguments,
            "tool call"
        );
    }

    fn span(&self, scope: &CallScope) -> SpanRecord {
        let trace = scope.trace();
        let end = SystemTime::now();
        let mut attributes = vec![
            ("mcp.method.name", AttributeValue::Static("tools/call")),
            (
                "gen_ai.tool.name",
                AttributeValue::Text(self.tool.to_string()),
            ),
            ("lorebase.outcome", AttributeValue::Static(self.outcome)),
            (
                "lorebase.request_id",
                AttributeValue::Text(scope.request_id().to_string()),
            ),
            (
                "lorebase.keeper_requests",
                AttributeValue::Int(i64::from(scope.keeper_requests())),
            ),
        ];
        if !self.domain.is_empty() {
            attributes.push((
                "lorebase.domain",
                AttributeValue::Text(log_safe(self.domain).into_owned()),
            ));
        }
        if !self.branch.is_empty() {
            attributes.push((
                "lorebase.branch",
                AttributeValue::Text(log_safe(self.branch).into_owned()),
            ));
        }
        SpanRecord {
            trace_id: trace.trace_id,
            span_id: trace.span_id,
            parent_span_id: trace.parent_span_id,
            name: format!("tools/call {}", log_safe(self.tool)),
            kind: SpanKind::Server,
            start: end.checked_sub(self.duration).unwrap_or(end),
            end,
            attributes,
            error: (self.outcome != "ok").then(|| self.outcome.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_short_stable_and_not_the_key() {
        let key = "lbk_abcdefghij_12345678";
        let fp = fingerprint(key);
        assert_eq!(fp.as_str().len(), 12);
        assert_eq!(fp, fingerprint(key));
        assert_ne!(fp, fingerprint("lbk_abcdefghij_12345679"));
        // sha256("lbk_abcdefghij_12345678"), as sha256sum prints it.
        let full = format!("{:x}", Sha256::digest(key.as_bytes()));
        assert!(full.starts_with(fp.as_str()));
        assert!(!fp.as_str().contains("abcdefghij"));
        assert_eq!(
            Caller::of(Some(&Secret::new(key))).to_string(),
            format!("key:{fp}")
        );
        assert_eq!(Caller::of(None).to_string(), "anonymous");
    }

    #[test]
    fn argument_names_are_capped_with_a_count_of_those_left_out() {
        let many: Map<String, Value> = (0..20_000)
            .map(|n| (format!("a{n:05}"), Value::Null))
            .collect();
        let names = argument_names(&many);
        assert_eq!(names.len(), MAX_AUDITED_NAMES + 1);
        assert_eq!(names.last().unwrap(), "(+19968 more)");
        let line = ArgumentNames(&names).to_string();
        assert!(line.len() < MAX_AUDITED_NAMES_CHARS + 64, "{}", line.len());

        // Long names: the character budget ends the list first.
        let long: Map<String, Value> = (0..100)
            .map(|n| (format!("{n:03}{}", "x".repeat(300)), Value::Null))
            .collect();
        let names = argument_names(&long);
        assert_eq!(names.len(), 8, "7 names of 129 characters, then the count");
        assert_eq!(names.last().unwrap(), "(+93 more)");
        assert!(ArgumentNames(&names).to_string().len() <= MAX_AUDITED_NAMES_CHARS + 64);

        // Few short names: all of them, no marker.
        let few: Map<String, Value> = [("ref", Value::Null), ("links", Value::Null)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        assert_eq!(argument_names(&few).len(), 2);
    }

    #[test]
    fn caller_text_cannot_break_a_log_line() {
        assert!(matches!(log_safe("supply"), Cow::Borrowed("supply")));
        assert_eq!(log_safe("a\nb\r\tc"), "a?b??c");
        let long = "x".repeat(500);
        let cut = log_safe(&long);
        assert_eq!(cut.chars().count(), MAX_LOGGED_CHARS + 1);
        assert_eq!(
            ArgumentNames(&["ref".into(), "li\nnks".into()]).to_string(),
            "ref,li?nks"
        );
    }
}
