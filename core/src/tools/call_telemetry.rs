//! What a toolbox records of each call ([`CallTelemetry`]): the call metrics,
//! the audit line and, when traces are exported, the spans; and how a
//! call's result becomes its outcome label (`ok`, or its error code).

use std::borrow::Cow;
use std::time::Instant;

use serde_json::{Map, Value};

use crate::config::{Secret, Settings};
use crate::keeper::Credential;
use crate::keeper::model::ProblemCode;
use crate::telemetry::audit::{AUDIT_TARGET, argument_names, audit_enabled, log_safe};
use crate::telemetry::metrics::UNKNOWN_TOOL_LABEL;
use crate::telemetry::{CallMetrics, CallOrigin, CallReport, CallScope, Caller, SpanSink};
use crate::tool_interface::{RenderedOutput, ToolCallError};
use crate::tools::source::ToolOrigin;

/// The outcome of a call dropped before it finished (the caller went away).
pub(crate) const CANCELLED: &str = "cancelled";
/// The outcome of a failed remote tool that named no code.
pub(crate) const REMOTE_ERROR: &str = "remote-error";
/// The outcome of a tool error without a known code.
pub(crate) const OTHER_ERROR: &str = "error";

/// The error codes Herald itself reports besides Keeper's: remote tool
/// calls' and the knowledge base's.
const HERALD_CODES: [&str; 3] = [
    "remote-unavailable",
    crate::tools::kb::KB_INDEXING,
    crate::tools::kb::KB_UNAVAILABLE,
];

/// What a toolbox records of its calls; shared by its clones.
#[derive(Debug)]
pub(crate) struct CallTelemetry {
    /// Calls by tool and outcome, their latency, calls in flight.
    pub(crate) metrics: CallMetrics,
    /// Where spans go, when they are exported.
    pub(crate) spans: Option<SpanSink>,
    /// Whether audit lines name the arguments.
    audit_arguments: bool,
}

impl CallTelemetry {
    /// From the settings; starts the span exporter when
    /// `traces.otlp_endpoint` is set.
    pub(crate) fn new(settings: &Settings) -> Result<Self, String> {
        Ok(Self {
            metrics: CallMetrics::default(),
            spans: crate::otlp::start(&settings.traces)?,
            audit_arguments: settings.log.audit_arguments,
        })
    }
}

/// One call being observed: started when it reaches the toolbox, ended by
/// [`CallRecord::end`] with its result (or none, when it was dropped).
pub(crate) struct CallRecord<'a> {
    pub(crate) telemetry: &'a CallTelemetry,
    pub(crate) name: &'a str,
    pub(crate) label: Cow<'static, str>,
    pub(crate) origin: Option<ToolOrigin>,
    pub(crate) domain: Cow<'a, str>,
    pub(crate) branch: Cow<'a, str>,
    pub(crate) caller: Caller<'a>,
    pub(crate) arguments: Option<Vec<String>>,
    pub(crate) started: Instant,
}

impl<'a> CallRecord<'a> {
    /// Starts observing a call of `name` (counted in flight). What only the
    /// audit line and the span need is gathered only when one of them will
    /// be written (no copy when logs are off and spans not exported).
    pub(crate) fn start(
        telemetry: &'a CallTelemetry,
        name: &'a str,
        label: Cow<'static, str>,
        origin: Option<ToolOrigin>,
        settings: &'a Settings,
        caller: Caller<'a>,
        arguments: &Map<String, Value>,
    ) -> Self {
        telemetry.metrics.started();
        let reported = audit_enabled() || telemetry.spans.is_some();
        let (domain, branch) = if reported {
            audit_scope(origin, arguments, settings)
        } else {
            (Cow::Borrowed(""), Cow::Borrowed(""))
        };
        Self {
            telemetry,
            name,
            label,
            origin,
            domain,
            branch,
            caller,
            arguments: (reported && telemetry.audit_arguments).then(|| argument_names(arguments)),
            started: Instant::now(),
        }
    }

    /// Ends it: the metrics, the audit line, the span.
    pub(crate) fn end(
        self,
        result: Option<&Result<RenderedOutput, ToolCallError>>,
        scope: Option<CallScope>,
    ) {
        let outcome = result.map_or(CANCELLED, |r| outcome(r, self.origin));
        let duration = self.started.elapsed();
        self.telemetry.metrics.ended(self.label, outcome, duration);
        if let Some(scope) = scope {
            CallReport {
                tool: self.name,
                domain: &self.domain,
                branch: &self.branch,
                outcome,
                duration,
                caller: self.caller,
                arguments: self.arguments.as_deref(),
            }
            .emit(&scope);
        }
    }
}

/// Records a call refused before it ran (no credential, a tool not served
/// for this request): its metric and audit line, with ids of its own.
pub(crate) fn refused(
    telemetry: &CallTelemetry,
    name: &str,
    label: Cow<'static, str>,
    outcome: &'static str,
    key: Option<&Secret>,
    (domain, branch): (Cow<'_, str>, Cow<'_, str>),
    origin: &CallOrigin<'_>,
) {
    telemetry.metrics.refused(label, outcome);
    let scope = CallScope::new(origin, telemetry.spans.as_ref());
    CallReport {
        tool: &log_safe(name),
        domain: &domain,
        branch: &branch,
        outcome,
        duration: std::time::Duration::ZERO,
        caller: Caller::of(key),
        arguments: None,
    }
    .emit(&scope);
}

/// The metric label of a tool name: its own for a served tool (built-in
/// names are static), `(unknown)` for anything else.
pub(crate) fn label(
    name: &str,
    origin: Option<ToolOrigin>,
    builtin: Option<&'static str>,
) -> Cow<'static, str> {
    match (builtin, origin) {
        (Some(name), _) => Cow::Borrowed(name),
        (None, Some(ToolOrigin::Remote)) => Cow::Owned(name.to_string()),
        _ => Cow::Borrowed(UNKNOWN_TOOL_LABEL),
    }
}

/// The key a call's credential carries (for the caller's fingerprint).
pub(crate) fn key_of<'a>(credential: &'a Credential, settings: &'a Settings) -> Option<&'a Secret> {
    credential.key(settings.keeper.api_key.as_ref())
}

/// The outcome label of a result: `ok`, the error code of a tool error
/// (`[not-found] ...` gives `not-found`; codes outside the known set give
/// `error`, so labels stay bounded), or the caller's error code.
pub(crate) fn outcome(
    result: &Result<RenderedOutput, ToolCallError>,
    origin: Option<ToolOrigin>,
) -> &'static str {
    match result {
        Ok(out) if !out.is_error => "ok",
        Ok(out) => match (known_code(&out.text), origin) {
            (Some(code), _) => code,
            (None, Some(ToolOrigin::Remote)) => REMOTE_ERROR,
            (None, _) => OTHER_ERROR,
        },
        Err(e) => e.code().as_str(),
    }
}

/// The code a failure's text starts with (`[code] ...`), when it is one
/// of Keeper's or Herald's own.
pub(crate) fn known_code(text: &str) -> Option<&'static str> {
    let code = text
        .strip_prefix('[')
        .and_then(|t| t.split_once(']'))
        .map(|(code, _)| code)?;
    ProblemCode::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(HERALD_CODES)
        .find(|k| *k == code)
}

/// Writes the audit line of a resource read (`resources/read`), which is
/// not a tool call: `resource read`, the resource's template and Domain,
/// the outcome, the duration, the Keeper requests made and the caller, with
/// the read's ids.
pub(crate) fn resource_read(
    (resource, domain): (&str, &str),
    outcome: &'static str,
    started: Instant,
    caller: Caller<'_>,
    scope: Option<CallScope>,
) {
    let Some(scope) = scope else { return };
    let duration_ms = started.elapsed().as_micros() as f64 / 1000.0;
    let trace = scope.trace();
    tracing::info!(
        target: AUDIT_TARGET,
        request_id = %scope.request_id(),
        trace_id = %trace.trace_id_hex(),
        span_id = %trace.span_id_hex(),
        resource = %log_safe(resource),
        domain = %log_safe(domain),
        outcome,
        duration_ms,
        keeper_requests = scope.keeper_requests(),
        caller = %caller,
        "resource read"
    );
}

/// The Domain and branch of a call as its audit line names them: the ones
/// it passed, else the defaults (Lorebase tools only; empty for the others).
pub(crate) fn audit_scope<'a>(
    origin: Option<ToolOrigin>,
    arguments: &Map<String, Value>,
    settings: &'a Settings,
) -> (Cow<'a, str>, Cow<'a, str>) {
    if origin != Some(ToolOrigin::Lorebase) {
        return (Cow::Borrowed(""), Cow::Borrowed(""));
    }
    let given = |key: &str, default: Option<&'a String>| -> Cow<'a, str> {
        match arguments.get(key).and_then(Value::as_str) {
            Some(text) => Cow::Owned(log_safe(text).into_owned()),
            None => Cow::Borrowed(default.map_or("", String::as_str)),
        }
    };
    (
        given("domain", settings.domain.as_ref()),
        given("branch", settings.branch.as_ref()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(text: &str, is_error: bool) -> Result<RenderedOutput, ToolCallError> {
        Ok(RenderedOutput {
            text: text.into(),
            is_error,
            structured: None,
        })
    }

    #[test]
    fn outcomes_are_codes_from_a_fixed_set() {
        let lb = Some(ToolOrigin::Lorebase);
        assert_eq!(outcome(&out("Supplier/S-1001 ...", false), lb), "ok");
        assert_eq!(
            outcome(&out("[not-found] no Record\nnext: ...", true), lb),
            "not-found"
        );
        assert_eq!(outcome(&out("[unauthorized] x", true), lb), "unauthorized");
        assert_eq!(outcome(&out("[made-up-code] x", true), lb), OTHER_ERROR);
        let kb = Some(ToolOrigin::Kb);
        assert_eq!(outcome(&out("[kb-indexing] x", true), kb), "kb-indexing");
        let remote = Some(ToolOrigin::Remote);
        assert_eq!(outcome(&out("boom", true), remote), REMOTE_ERROR);
        assert_eq!(
            outcome(&out("[remote-unavailable] gone", true), remote),
            "remote-unavailable"
        );
        assert_eq!(
            outcome(&Err(ToolCallError::UnknownTool("x".into())), None),
            "unknown-tool"
        );
        assert_eq!(
            outcome(&Err(ToolCallError::EmptyApiKey), lb),
            "bad-arguments"
        );
    }
}
