//! Log lines written by the current thread while a test runs.
//!
//! One global subscriber (TRACE, installed once per test binary) writes each
//! event into the buffer of the thread that emitted it, when that thread is
//! capturing. A scoped subscriber per test (`set_default`) would be simpler,
//! but tracing caches each callsite's interest process-wide: a callsite first
//! hit by a thread without a subscriber, while another thread installs its
//! own, can stay disabled, and a test then sees no lines at all (seen in CI).
//! With one global subscriber every callsite is always enabled.
//!
//! `#[tokio::test]` runs on one thread, so everything a test's tasks log
//! (the client's and the in-process sandbox's) lands in its buffer.

#![allow(dead_code)]

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Once};

use tracing::{Level, Metadata};
use tracing_subscriber::fmt::MakeWriter;

/// What the current thread captures: into which buffer, up to which level.
type Capture = (Arc<Mutex<Vec<u8>>>, Level);

thread_local! {
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Writes into the current thread's buffer, if it is capturing an event of
/// that level.
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
        ThreadWriter(CAPTURE.with(|c| c.borrow().as_ref().map(|(b, _)| b.clone())))
    }

    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> ThreadWriter {
        ThreadWriter(CAPTURE.with(|c| {
            c.borrow()
                .as_ref()
                .filter(|(_, max)| meta.level() <= max)
                .map(|(b, _)| b.clone())
        }))
    }
}

/// The lines captured on this thread since [`Captured::start`].
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

/// Stops capturing when dropped.
pub struct CaptureGuard;

impl Drop for CaptureGuard {
    fn drop(&mut self) {
        CAPTURE.with(|c| *c.borrow_mut() = None);
    }
}

impl Captured {
    /// Captures this thread's log lines (every level) until the guard drops.
    pub fn start() -> (Self, CaptureGuard) {
        Self::start_up_to(Level::TRACE)
    }

    /// Captures this thread's log lines of `max` and more severe levels.
    pub fn start_up_to(max: Level) -> (Self, CaptureGuard) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            let subscriber = tracing_subscriber::fmt()
                .with_writer(ThreadWriters)
                .with_max_level(Level::TRACE)
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other global subscriber in this test binary");
        });
        let captured = Captured::default();
        CAPTURE.with(|c| *c.borrow_mut() = Some((captured.0.clone(), max)));
        (captured, CaptureGuard)
    }

    /// Everything captured so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}
