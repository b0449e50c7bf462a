//! The scope of one tool call: its trace, its request id, the Keeper
//! requests it made, and where its spans go. A call runs inside its scope
//! ([`ObservedCall`], a Tokio task-local), so the Keeper client finds the ids
//! to send ([`keeper_attempt`]) without every tool passing them along.
//!
//! A Keeper request made outside any call (resources, completions) gets a
//! trace and a request id of its own.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::SystemTime;

use pin_project_lite::pin_project;
use reqwest::header::HeaderValue;
use tokio::task::futures::TaskLocalFuture;

use super::spans::{AttributeValue, SpanKind, SpanRecord, SpanSink};
use super::trace::{RequestId, SpanId, TraceContext, Traceparent, new_span_id};

tokio::task_local! {
    static CALL: CallScope;
}

/// Longest `tracestate` passed on (the W3C limit is 512 characters).
const MAX_TRACESTATE_LEN: usize = 512;

/// What a caller sent with a call to continue its trace and name it: the MCP
/// request's `_meta.traceparent` / `_meta.tracestate`, or the HTTP headers of
/// the same names, and the HTTP `X-Request-Id`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallOrigin<'a> {
    /// The caller's `traceparent`.
    pub traceparent: Option<&'a str>,
    /// The caller's `tracestate` (passed on to Keeper unchanged).
    pub tracestate: Option<&'a str>,
    /// The caller's request id.
    pub request_id: Option<&'a str>,
}

/// One call's trace, request id and count of Keeper requests.
#[derive(Debug)]
pub struct CallScope {
    trace: TraceContext,
    request_id: RequestId,
    tracestate: Option<HeaderValue>,
    keeper_requests: Cell<u32>,
    spans: Option<SpanSink>,
}

impl CallScope {
    /// The scope of a call from `origin`. Its spans go to `spans` when the
    /// trace is sampled (a new trace is sampled when spans are exported).
    pub fn new(origin: &CallOrigin<'_>, spans: Option<&SpanSink>) -> Self {
        let trace = TraceContext::continue_or_start(origin.traceparent, spans.is_some());
        // A tracestate only travels with the trace it belongs to.
        let tracestate = origin
            .tracestate
            .filter(|_| trace.parent_span_id.is_some())
            .filter(|s| s.len() <= MAX_TRACESTATE_LEN)
            .and_then(|s| HeaderValue::from_str(s.trim()).ok());
        Self {
            trace,
            request_id: RequestId::from_caller_or_new(origin.request_id),
            tracestate,
            keeper_requests: Cell::new(0),
            spans: spans.filter(|_| trace.sampled).cloned(),
        }
    }

    /// The trace.
    pub fn trace(&self) -> &TraceContext {
        &self.trace
    }

    /// The request id.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// How many Keeper requests (attempts included) the call made.
    pub fn keeper_requests(&self) -> u32 {
        self.keeper_requests.get()
    }

    /// Where the call's spans go, when they are exported.
    pub fn spans(&self) -> Option<&SpanSink> {
        self.spans.as_ref()
    }
}

pin_project! {
    /// A call running inside its [`CallScope`]. When it finishes, `record`
    /// gets its output and the scope; when it is dropped first (the caller
    /// went away), `record` gets no output.
    pub struct ObservedCall<F: Future, R: FnOnce(Option<&F::Output>, Option<CallScope>)> {
        #[pin]
        inner: TaskLocalFuture<CallScope, F>,
        record: Option<R>,
    }

    impl<F: Future, R: FnOnce(Option<&F::Output>, Option<CallScope>)> PinnedDrop for ObservedCall<F, R> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let Some(record) = this.record.take() {
                record(None, this.inner.take_value());
            }
        }
    }
}

impl<F: Future, R: FnOnce(Option<&F::Output>, Option<CallScope>)> ObservedCall<F, R> {
    /// Runs `call` inside `scope`, then `record`.
    pub fn new(scope: CallScope, call: F, record: R) -> Self {
        Self {
            inner: CALL.scope(scope, call),
            record: Some(record),
        }
    }
}

impl<F: Future, R: FnOnce(Option<&F::Output>, Option<CallScope>)> Future for ObservedCall<F, R> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let mut this = self.project();
        let output = std::task::ready!(this.inner.as_mut().poll(cx));
        if let Some(record) = this.record.take() {
            record(Some(&output), this.inner.take_value());
        }
        Poll::Ready(output)
    }
}

/// One attempt of a Keeper request: the ids it carries and its span.
#[derive(Debug)]
pub struct KeeperAttempt {
    trace: TraceContext,
    span_id: SpanId,
    request_id: RequestId,
    tracestate: Option<HeaderValue>,
    spans: Option<(SpanSink, SystemTime)>,
}

/// Starts a Keeper request attempt: counted in the current call's scope and
/// carrying its trace and request id; outside a call, a trace and an id of
/// its own.
pub fn keeper_attempt() -> KeeperAttempt {
    CALL.try_with(|scope| {
        scope.keeper_requests.set(scope.keeper_requests.get() + 1);
        KeeperAttempt {
            trace: scope.trace,
            span_id: new_span_id(),
            request_id: scope.request_id,
            tracestate: scope.tracestate.clone(),
            spans: scope.spans.as_ref().map(|s| (s.clone(), SystemTime::now())),
        }
    })
    .unwrap_or_else(|_| KeeperAttempt {
        trace: TraceContext::continue_or_start(None, false),
        span_id: new_span_id(),
        request_id: RequestId::new(),
        tracestate: None,
        spans: None,
    })
}

impl KeeperAttempt {
    /// Its `traceparent` (the call's trace, the attempt's own span).
    pub fn traceparent(&self) -> Traceparent {
        self.trace.traceparent(&self.span_id)
    }

    /// Its `X-Request-Id`.
    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// The caller's `tracestate`, passed on.
    pub fn tracestate(&self) -> Option<&HeaderValue> {
        self.tracestate.as_ref()
    }

    /// Ends the attempt: its span, when spans are exported. `status` is
    /// Keeper's answer (`None`: no answer); `resend` counts the resends
    /// before this attempt.
    pub fn finish(self, endpoint: &'static str, status: Option<u16>, resend: u32) {
        let Some((sink, start)) = self.spans else {
            return;
        };
        let (method, template) = endpoint.split_once(' ').unwrap_or(("", endpoint));
        let mut attributes = vec![
            ("http.request.method", AttributeValue::Static(method)),
            ("url.template", AttributeValue::Static(template)),
            (
                "http.request.resend_count",
                AttributeValue::Int(i64::from(resend)),
            ),
            (
                "lorebase.request_id",
                AttributeValue::Text(self.request_id.to_string()),
            ),
        ];
        if let Some(status) = status {
            attributes.push((
                "http.response.status_code",
                AttributeValue::Int(i64::from(status)),
            ));
        }
        let error = match status {
            None => Some("no answer from Keeper".to_string()),
            Some(s) if s >= 500 => Some(format!("Keeper answered {s}")),
            Some(_) => None,
        };
        sink.record(SpanRecord {
            trace_id: self.trace.trace_id,
            span_id: self.span_id,
            parent_span_id: Some(self.trace.span_id),
            name: endpoint.to_string(),
            kind: SpanKind::Client,
            start,
            end: SystemTime::now(),
            attributes,
            error,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[tokio::test]
    async fn attempts_inside_a_call_carry_its_ids_and_are_counted() {
        let origin = CallOrigin {
            traceparent: Some(PARENT),
            tracestate: Some("vendor=abc"),
            request_id: Some("req-1"),
        };
        let scope = CallScope::new(&origin, None);
        let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
        let kept = seen.clone();
        let output = ObservedCall::new(
            scope,
            async {
                let a = keeper_attempt();
                let b = keeper_attempt();
                assert_eq!(a.request_id().as_str(), "req-1");
                assert_eq!(a.tracestate().unwrap(), "vendor=abc");
                let (ta, tb) = (a.traceparent().to_string(), b.traceparent().to_string());
                assert!(ta.starts_with("00-0af7651916cd43dd8448eb211c80319c-"));
                assert_ne!(ta, tb, "each attempt has its own span");
                7
            },
            move |out: Option<&i32>, scope: Option<CallScope>| {
                let scope = scope.unwrap();
                *kept.lock().unwrap() = Some((out.copied(), scope.keeper_requests()));
            },
        )
        .await;
        assert_eq!(output, 7);
        assert_eq!(*seen.lock().unwrap(), Some((Some(7), 2)));
    }

    #[tokio::test]
    async fn a_dropped_call_is_recorded_without_output() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
        let kept = seen.clone();
        let call = ObservedCall::new(
            CallScope::new(&CallOrigin::default(), None),
            std::future::pending::<()>(),
            move |out: Option<&()>, scope: Option<CallScope>| {
                *kept.lock().unwrap() = Some((out.is_some(), scope.is_some()));
            },
        );
        let _ = tokio::time::timeout(std::time::Duration::from_millis(5), call).await;
        assert_eq!(*seen.lock().unwrap(), Some((false, true)));
    }

    #[test]
    fn outside_a_call_each_attempt_has_new_ids() {
        let a = keeper_attempt();
        let b = keeper_attempt();
        assert_ne!(a.request_id(), b.request_id());
        assert_ne!(
            &a.traceparent().as_str()[3..35],
            &b.traceparent().as_str()[3..35]
        );
        assert!(a.tracestate().is_none());
    }

    #[test]
    fn tracestate_only_travels_with_its_trace() {
        let origin = CallOrigin {
            traceparent: Some("garbage"),
            tracestate: Some("vendor=abc"),
            request_id: None,
        };
        let scope = CallScope::new(&origin, None);
        assert!(scope.tracestate.is_none());
        assert_eq!(scope.trace().parent_span_id, None);
    }
}
