//! The spans Herald records when it exports traces (`traces.otlp_endpoint`):
//! one per tool call, one per Keeper request (each attempt of it). They are
//! queued here; [`crate::otlp`] sends them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use super::trace::{SpanId, TraceId};

/// What kind of span (OTLP's `SpanKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// A call Herald serves (`tools/call`).
    Server,
    /// A request Herald makes (to Keeper).
    Client,
}

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    /// A string.
    Text(String),
    /// A static string.
    Static(&'static str),
    /// An integer.
    Int(i64),
}

/// One finished span.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanRecord {
    /// The trace.
    pub trace_id: TraceId,
    /// This span.
    pub span_id: SpanId,
    /// Its parent, if any.
    pub parent_span_id: Option<SpanId>,
    /// Its name (`tools/call lorebase_get`, `GET /schema`).
    pub name: String,
    /// Server or client.
    pub kind: SpanKind,
    /// When it started.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// Its attributes.
    pub attributes: Vec<(&'static str, AttributeValue)>,
    /// An error status with its message, when it failed.
    pub error: Option<String>,
}

/// What the exporter is told.
#[derive(Debug)]
pub enum SpanMessage {
    /// A span to send.
    Span(Box<SpanRecord>),
    /// Send what is queued now, then answer.
    Flush(std::sync::mpsc::Sender<()>),
}

/// Where spans are queued for export (cheap to clone). A full queue drops
/// the span and counts it: a slow collector never slows a call down.
#[derive(Debug, Clone)]
pub struct SpanSink {
    queue: tokio::sync::mpsc::Sender<SpanMessage>,
    dropped: Arc<AtomicU64>,
}

impl SpanSink {
    /// A sink over `queue`.
    pub fn new(queue: tokio::sync::mpsc::Sender<SpanMessage>) -> Self {
        Self {
            queue,
            dropped: Arc::default(),
        }
    }

    /// Queues a span (dropped, and counted, when the queue is full).
    pub fn record(&self, span: SpanRecord) {
        if self
            .queue
            .try_send(SpanMessage::Span(Box::new(span)))
            .is_err()
            && self.dropped.fetch_add(1, Ordering::Relaxed) == 0
        {
            tracing::warn!("span export: the queue is full or closed; dropping spans");
        }
    }

    /// Spans dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Asks the exporter to send what is queued, waiting at most `wait`
    /// (blocking; call it when a process ends).
    pub fn flush(&self, wait: std::time::Duration) {
        let (done, finished) = std::sync::mpsc::channel();
        if self.queue.try_send(SpanMessage::Flush(done)).is_ok() {
            let _ = finished.recv_timeout(wait);
        }
    }
}
