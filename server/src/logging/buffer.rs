//! Log lines bound for stderr, written together every [`FLUSH_EVERY`]
//! by a thread of their own, never on the calls' path and never blocking it.
//!
//! Writing each line with its own `write` adds to a stdio call's p50
//! (docs/benchmarks.md, "Herald against the floor of its own
//! architecture"). The state is a value: a [`LogWriter`] (the log layer's writer; clones share
//! one buffer) and, while batching, the [`FlushGuard`] `run_cli` holds.
//! Once [`LogWriter::batch`]ed, each whole line the log layer writes is
//! appended to the writer's buffer; the writer thread (`herald-log-writer`)
//! takes the buffer [`FLUSH_EVERY`] after the first line of a batch arrived,
//! or as soon as it holds [`FLUSH_BYTES`], swaps it out and writes it in one
//! `write` *without holding the buffer's lock* (it sleeps while there is
//! nothing to write). Dropping the guard, on every way out of `run_cli`
//! (the second signal's too), writes what waits.
//!
//! A host may pipe stderr and never read it: the pipe fills, and
//! the writer's `write` blocks. The calls do not: lines keep arriving in the
//! buffer until it holds [`MAX_PENDING_BYTES`]; past that a line is dropped
//! and counted ([`LogWriter::dropped_total`], the metric
//! `herald_log_lines_dropped_total`). Once stderr takes the blocked batch,
//! the writer writes the lines that waited, then one warning saying how many
//! were dropped. Lines keep their order and never interleave.
//!
//! Not batching (before and after `run_cli`'s guard, and under
//! `run_cli_async` on a binding's runtime), every line is written at once.
//! Dropping the guard waits (at most [`FLUSH_WAIT`]) until the lines so far
//! are written. A process killed with SIGKILL loses the lines of its last
//! [`FLUSH_EVERY`] at most.

use herald_core::config::SettingKey;
use std::cell::Cell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// A buffer this full is written at once.
pub(crate) const FLUSH_BYTES: usize = 16 * 1024;
/// How long a line waits at most (but for a process killed outright, or a
/// stderr that nobody reads).
pub(crate) const FLUSH_EVERY: Duration = Duration::from_millis(25);
/// The most the lines waiting may hold (besides the batch being written):
/// past it, lines are dropped and counted.
pub(crate) const MAX_PENDING_BYTES: usize = 256 * 1024;
/// How long a flush waits for the writer at most (a stderr nobody reads
/// would make it wait forever).
pub(crate) const FLUSH_WAIT: Duration = Duration::from_secs(1);

thread_local! {
    /// Set on a writer thread: its own lines (the dropped-lines warning)
    /// go straight to stderr, after the batch it has just written.
    static WRITER_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// The log layer's writer: stderr, through its buffer while a
/// [`FlushGuard`] of it lives. Clones share the buffer.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogWriter {
    shared: Arc<Shared>,
}

/// What the writer's clones, its thread and its guard share.
#[derive(Debug, Default)]
struct Shared {
    /// Whether lines wait in `pending` (while the writer thread runs).
    batching: AtomicBool,
    /// The lines not yet written, and what the writer has done.
    pending: Mutex<Pending>,
    /// Wakes the writer: a line arrived in an empty buffer, the buffer
    /// reached [`FLUSH_BYTES`], a flush was asked for, or batching ended.
    arrived: Condvar,
    /// Wakes a flush: the writer wrote a batch.
    written: Condvar,
    /// Lines dropped since the writer was made (stderr could not take them).
    dropped_total: AtomicU64,
}

/// The buffer and the writer's progress.
#[derive(Debug, Default)]
struct Pending {
    lines: Vec<u8>,
    /// Lines dropped since the last warning about them.
    dropped: u64,
    /// Lines accepted so far, and how many of them the writer has written.
    accepted: u64,
    written: u64,
    /// A flush is waiting: write without waiting for the batch to gather.
    flush_asked: bool,
    /// Whether the writer thread exists (it may outlive its guard while a
    /// write blocks; a new guard then starts no second one).
    writer_running: bool,
}

/// While it lives, lines wait and the writer thread writes them; dropped,
/// lines are written at once again, those waiting first (waiting at most
/// [`FLUSH_WAIT`]), and the writer thread ends.
#[derive(Debug)]
#[must_use = "dropping the guard ends the batching at once"]
pub(crate) struct FlushGuard {
    shared: Arc<Shared>,
}

impl Drop for FlushGuard {
    fn drop(&mut self) {
        self.shared.batching.store(false, Ordering::Release);
        self.shared.arrived.notify_all();
        self.shared.flush();
        // All written: the writer thread sees batching off and ends at once;
        // wait for that, briefly. (Lines still queued mean stderr is not
        // read: the flush already waited its FLUSH_WAIT for them.)
        let pending = self.shared.lock();
        if pending.written >= pending.accepted {
            let _ =
                self.shared
                    .written
                    .wait_timeout_while(pending, Duration::from_millis(100), |p| p.writer_running);
        }
    }
}

impl LogWriter {
    /// A writer of its own (lines written at once until [`LogWriter::batch`]).
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// From now on lines wait, and the writer thread writes them, until the
    /// guard is dropped. If that thread cannot start, lines are written at
    /// once (the guard then does nothing).
    pub(crate) fn batch(&self) -> FlushGuard {
        let shared = &self.shared;
        let mut pending = shared.lock();
        if !shared.batching.swap(true, Ordering::AcqRel) && !pending.writer_running {
            let thread_shared = Arc::clone(shared);
            let started = std::thread::Builder::new()
                .name("herald-log-writer".into())
                .spawn(move || thread_shared.write_batches());
            match started {
                Ok(_) => pending.writer_running = true,
                Err(_) => shared.batching.store(false, Ordering::Release),
            }
        }
        FlushGuard {
            shared: Arc::clone(shared),
        }
    }

    /// Lines dropped since this writer was made because stderr could not
    /// take them (`herald_log_lines_dropped_total`).
    pub(crate) fn dropped_total(&self) -> u64 {
        self.shared.dropped_total.load(Ordering::Relaxed)
    }

    /// Queues one whole line (or writes it at once when not batching); a
    /// line that does not fit in [`MAX_PENDING_BYTES`] is dropped and counted.
    pub(crate) fn write_line(&self, line: &[u8]) {
        let shared = &self.shared;
        if !shared.batching.load(Ordering::Acquire) || WRITER_THREAD.with(Cell::get) {
            let _ = io::stderr().write_all(line);
            return;
        }
        let mut pending = shared.lock();
        let before = pending.lines.len();
        if before + line.len() > MAX_PENDING_BYTES {
            pending.dropped += 1;
            shared.dropped_total.fetch_add(1, Ordering::Relaxed);
            return;
        }
        pending.lines.extend_from_slice(line);
        pending.accepted += 1;
        // Wake the writer only when it has something new to do (a wake-up is
        // a system call, and while stderr blocks nobody listens).
        let after = pending.lines.len();
        if before == 0 || (before < FLUSH_BYTES && after >= FLUSH_BYTES) {
            shared.arrived.notify_one();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn batching(&self) -> bool {
        self.batching.load(Ordering::Acquire)
    }

    /// The writer thread: waits for a line, lets the batch gather, swaps it
    /// out and writes it with the lock released.
    fn write_batches(&self) {
        WRITER_THREAD.with(|w| w.set(true));
        let mut batch = Vec::with_capacity(FLUSH_BYTES);
        loop {
            let mut pending = self.lock();
            pending = self
                .arrived
                .wait_while(pending, |p| {
                    p.lines.is_empty() && p.dropped == 0 && !p.flush_asked && self.batching()
                })
                .unwrap_or_else(PoisonError::into_inner);
            if pending.lines.is_empty() && pending.dropped == 0 && !self.batching() {
                pending.writer_running = false;
                pending.written = pending.accepted;
                self.written.notify_all();
                return;
            }
            // Let the batch gather, unless it is full or someone waits.
            pending = self
                .arrived
                .wait_timeout_while(pending, FLUSH_EVERY, |p| {
                    p.lines.len() < FLUSH_BYTES && !p.flush_asked && self.batching()
                })
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            std::mem::swap(&mut pending.lines, &mut batch);
            let dropped = std::mem::take(&mut pending.dropped);
            let upto = pending.accepted;
            pending.flush_asked = false;
            drop(pending);

            // May block for as long as nobody reads stderr; the calls go on.
            let _ = io::stderr().lock().write_all(&batch);
            batch.clear();
            if batch.capacity() > MAX_PENDING_BYTES {
                batch.shrink_to(FLUSH_BYTES);
            }
            if dropped > 0 {
                // Written at once (WRITER_THREAD), in the log format of the moment.
                tracing::warn!(
                    target: "lorebase_herald",
                    dropped,
                    "{dropped} log lines were dropped: stderr was not read \
                     (herald_log_lines_dropped_total counts them; {} keeps every audit line)",
                    SettingKey::LogAuditFile
                );
            }
            let mut pending = self.lock();
            pending.written = upto;
            self.written.notify_all();
        }
    }

    /// Waits until the lines accepted so far are written to stderr, at most
    /// [`FLUSH_WAIT`] (then they stay queued: stderr is not being read).
    fn flush(&self) {
        let mut pending = self.lock();
        if !pending.writer_running || pending.written >= pending.accepted {
            return;
        }
        let upto = pending.accepted;
        pending.flush_asked = true;
        self.arrived.notify_all();
        let deadline = Instant::now() + FLUSH_WAIT;
        while pending.writer_running && pending.written < upto {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            pending = self
                .written
                .wait_timeout(pending, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl<'a> MakeWriter<'a> for LogWriter {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter { to: self }
    }
}

/// Writes one event's formatted line (the log layer writes each whole).
#[derive(Debug)]
pub(crate) struct LineWriter<'a> {
    to: &'a LogWriter,
}

impl Write for LineWriter<'_> {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        self.to.write_line(line);
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(writer: &LogWriter) -> usize {
        writer.shared.lock().lines.len()
    }

    #[test]
    fn lines_wait_in_order_go_out_on_time_and_past_the_bound_are_dropped_and_counted() {
        let writer = LogWriter::new();
        let guard = writer.batch();
        writer.write_line(b"first\n");
        writer.write_line(b"second\n");
        {
            let pending = writer.shared.lock();
            // The writer thread may have written them already; if not, in order.
            assert!(pending.lines.is_empty() || pending.lines.ends_with(b"first\nsecond\n"));
        }
        std::thread::sleep(FLUSH_EVERY * 4);
        assert_eq!(waiting(&writer), 0, "the writer thread wrote them");
        writer.write_line(&vec![b'x'; FLUSH_BYTES]);
        writer.shared.flush();
        assert_eq!(waiting(&writer), 0, "a full buffer goes at once");

        // A line that does not fit is dropped and counted, never waited for.
        let before = writer.dropped_total();
        writer.write_line(&vec![b'y'; MAX_PENDING_BYTES + 1]);
        assert_eq!(writer.dropped_total(), before + 1);
        assert_eq!(
            writer.shared.lock().dropped,
            1,
            "the writer's warning will say so"
        );

        drop(guard);
        writer.write_line(b"direct\n");
        assert_eq!(waiting(&writer), 0, "not batching: written at once");
    }

    #[test]
    fn dropping_the_guard_writes_what_waits_and_ends_the_thread() {
        let writer = LogWriter::new();
        let guard = writer.batch();
        writer.write_line(b"last words\n");
        drop(guard);
        let pending = writer.shared.lock();
        assert!(
            pending.lines.is_empty(),
            "written before the guard's drop returned"
        );
        assert_eq!(pending.written, pending.accepted);
        assert!(!pending.writer_running, "the writer thread ended");
        assert!(!writer.shared.batching());
    }

    #[test]
    fn writers_are_values_each_with_its_own_count() {
        let (a, b) = (LogWriter::new(), LogWriter::new());
        let _guard = a.batch();
        a.write_line(&vec![b'z'; MAX_PENDING_BYTES + 1]);
        assert_eq!(a.dropped_total(), 1);
        assert_eq!(b.dropped_total(), 0);
        assert_eq!(a.clone().dropped_total(), 1, "clones share one buffer");
    }
}
