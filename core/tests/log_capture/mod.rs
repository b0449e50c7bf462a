//! Log lines written by the current thread while a test runs.
//!
//! One global subscriber (TRACE, installed once per test binary) writes each
//! event into the buffer of the thread that emitted it, when that thread is
//! capturing. A scoped subscriber per test (`set_default`) would be simpler,
//! but tracing caches each callsite's interest process-wide: a callsite first
//! hit by a thread without a subscriber, while another thread installs its
//! own, can stay disabled, and a test then sees no lines at all (seen in CI).
//! With one global subscriber every callsite stays enabled: its filter says
//! "sometimes" to every callsite and decides per event, so threads that do
//! not capture pay no formatting.
//!
//! `#[tokio::test]` runs on one thread, so everything a test's tasks log
//! (the client's and the in-process sandbox's) lands in its buffer.

#![allow(dead_code)]

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Once};

use tracing::{Level, Metadata};
use tracing_subscriber::filter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Layer, SubscriberExt};

/// What the current thread captures.
struct Capture {
    /// Where its lines go.
    buffer: Arc<Mutex<Vec<u8>>>,
    /// The least severe level kept.
    max: Level,
    /// Targets (by prefix) never kept, e.g. a test server's own request logs.
    excluded: &'static [&'static str],
}

impl Capture {
    fn keeps(&self, meta: &Metadata<'_>) -> bool {
        meta.level() <= &self.max && !self.excluded.iter().any(|t| meta.target().starts_with(t))
    }
}

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Writes into the current thread's buffer (the subscriber's filter lets
/// through only the events that thread captures).
struct ThreadWriter(Option<Arc<Mutex<Vec<u8>>>>);

impl std::io::Write for ThreadWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(buffer) = &self.0 {
            buffer.lock().unwrap().extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The global subscriber's writers.
struct ThreadWriters;

impl<'a> MakeWriter<'a> for ThreadWriters {
    type Writer = ThreadWriter;

    fn make_writer(&'a self) -> ThreadWriter {
        ThreadWriter(CAPTURE.with(|c| c.borrow().as_ref().map(|c| c.buffer.clone())))
    }
}

/// The lines captured on this thread since [`Captured::start`].
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

/// Stops capturing when dropped.
pub(crate) struct CaptureGuard;

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        CAPTURE.with(|c| *c.borrow_mut() = None);
    }
}

impl Captured {
    /// Captures this thread's log lines (every level) until the guard drops.
    pub(crate) fn start() -> (Self, CaptureGuard) {
        Self::start_up_to(Level::TRACE)
    }

    /// Captures this thread's log lines of `max` and more severe levels.
    pub(crate) fn start_up_to(max: Level) -> (Self, CaptureGuard) {
        Self::start_with(max, &[])
    }

    /// Captures this thread's log lines of `max` and more severe levels,
    /// except those whose target starts with one of `excluded`.
    pub(crate) fn start_with(
        max: Level,
        excluded: &'static [&'static str],
    ) -> (Self, CaptureGuard) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            let capturing = filter::dynamic_filter_fn(|meta, _| {
                CAPTURE.with(|c| c.borrow().as_ref().is_some_and(|c| c.keeps(meta)))
            });
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(ThreadWriters)
                .with_ansi(false)
                .with_filter(capturing);
            tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
                .expect("no other global subscriber in this test binary");
        });
        let captured = Captured::default();
        CAPTURE.with(|c| {
            *c.borrow_mut() = Some(Capture {
                buffer: captured.0.clone(),
                max,
                excluded,
            });
        });
        (captured, CaptureGuard)
    }

    /// Everything captured so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}
