//! Log lines bound for stderr, written together every [`FLUSH_EVERY`]
//! by a thread of their own, never on the calls' path and never blocking it.
//!
//! A tool call's audit line cost a stdio call 25-35 µs of its p50 on two
//! cores when each line was a `write` (docs/benchmarks.md, issue 22). Once
//! [`enable`]d (by `run_cli`), each whole line the log layer writes is
//! appended to one process-wide buffer (stderr is process-wide); the writer
//! thread (`herald-log-writer`) takes the buffer [`FLUSH_EVERY`] after the
//! first line of a batch arrived, or as soon as it holds [`FLUSH_BYTES`], and
//! writes it in one `write` *without holding the buffer's lock* (it sleeps
//! while there is nothing to write).
//!
//! A host may pipe stderr and never read it (issue 29): the pipe fills, and
//! the writer's `write` blocks. The calls do not: lines keep arriving in the
//! buffer until it holds [`MAX_PENDING_BYTES`]; past that a line is dropped
//! and counted ([`dropped_total`], the metric
//! `herald_log_lines_dropped_total`). Once stderr takes the blocked batch,
//! the writer writes the lines that waited, then one warning saying how many
//! were dropped. Lines keep their order and never interleave.
//!
//! Not enabled (before and after `run_cli`, and under `run_cli_async` on a
//! binding's runtime), every line is written at once. [`flush`] waits (at
//! most [`FLUSH_WAIT`]) until the lines so far are written; [`disable`] does
//! so when `run_cli` ends. A process killed with SIGKILL loses the lines of
//! its last [`FLUSH_EVERY`] at most.

use std::cell::Cell;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// A buffer this full is written at once.
pub const FLUSH_BYTES: usize = 16 * 1024;
/// How long a line waits at most (but for a process killed outright, or a
/// stderr that nobody reads).
pub const FLUSH_EVERY: Duration = Duration::from_millis(25);
/// The most the lines waiting may hold (besides the batch being written):
/// past it, lines are dropped and counted.
pub const MAX_PENDING_BYTES: usize = 256 * 1024;
/// How long [`flush`] and [`disable`] wait for the writer at most (a stderr
/// nobody reads would make them wait forever).
pub const FLUSH_WAIT: Duration = Duration::from_secs(1);

/// Whether lines wait in [`STATE`] (while the writer thread runs).
static ENABLED: AtomicBool = AtomicBool::new(false);
/// The lines not yet written, and what the writer has done. Process-wide,
/// as stderr is.
static STATE: Mutex<Pending> = Mutex::new(Pending::new());
/// Wakes the writer: a line arrived in an empty buffer, the buffer reached
/// [`FLUSH_BYTES`], a flush was asked for, or logging was disabled.
static ARRIVED: Condvar = Condvar::new();
/// Wakes [`flush`]: the writer wrote a batch.
static WRITTEN: Condvar = Condvar::new();
/// Lines dropped since the process started (stderr could not take them).
static DROPPED_TOTAL: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set on the writer thread: its own lines (the dropped-lines warning)
    /// go straight to stderr, after the batch it has just written.
    static WRITER_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// The buffer and the writer's progress.
struct Pending {
    lines: Vec<u8>,
    /// Lines dropped since the last warning about them.
    dropped: u64,
    /// Lines accepted so far, and how many of them the writer has written.
    accepted: u64,
    written: u64,
    /// A [`flush`] is waiting: write without waiting for the batch to gather.
    flush_asked: bool,
    /// Whether the writer thread exists (it may outlive [`disable`] while a
    /// write blocks; [`enable`] then starts no second one).
    writer_running: bool,
}

impl Pending {
    const fn new() -> Self {
        Self {
            lines: Vec::new(),
            dropped: 0,
            accepted: 0,
            written: 0,
            flush_asked: false,
            writer_running: false,
        }
    }
}

fn state() -> MutexGuard<'static, Pending> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Lines dropped since the process started because stderr could not take
/// them (`herald_log_lines_dropped_total`).
pub fn dropped_total() -> u64 {
    DROPPED_TOTAL.load(Ordering::Relaxed)
}

/// From now on lines wait, and the writer thread writes them, until
/// [`disable`]. If that thread cannot start, lines are written at once.
pub fn enable() {
    let mut pending = state();
    if ENABLED.swap(true, Ordering::AcqRel) || pending.writer_running {
        return;
    }
    let started = std::thread::Builder::new()
        .name("herald-log-writer".into())
        .spawn(write_batches);
    match started {
        Ok(_) => pending.writer_running = true,
        Err(_) => ENABLED.store(false, Ordering::Release),
    }
}

/// The writer thread: waits for a line, lets the batch gather, takes it and
/// writes it with the lock released.
fn write_batches() {
    WRITER_THREAD.with(|w| w.set(true));
    let mut batch = Vec::with_capacity(FLUSH_BYTES);
    loop {
        let mut pending = state();
        pending = ARRIVED
            .wait_while(pending, |p| {
                p.lines.is_empty()
                    && p.dropped == 0
                    && !p.flush_asked
                    && ENABLED.load(Ordering::Acquire)
            })
            .unwrap_or_else(PoisonError::into_inner);
        if pending.lines.is_empty() && pending.dropped == 0 && !ENABLED.load(Ordering::Acquire) {
            pending.writer_running = false;
            pending.written = pending.accepted;
            WRITTEN.notify_all();
            return;
        }
        // Let the batch gather, unless it is full or someone waits.
        pending = ARRIVED
            .wait_timeout_while(pending, FLUSH_EVERY, |p| {
                p.lines.len() < FLUSH_BYTES && !p.flush_asked && ENABLED.load(Ordering::Acquire)
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
                 (herald_log_lines_dropped_total counts them; log.audit_file keeps every audit line)"
            );
        }
        let mut pending = state();
        pending.written = upto;
        WRITTEN.notify_all();
    }
}

/// Lines are written at once again, those waiting first (waiting at most
/// [`FLUSH_WAIT`] for the writer); the writer thread ends.
pub fn disable() {
    ENABLED.store(false, Ordering::Release);
    ARRIVED.notify_all();
    flush();
}

/// Waits until the lines accepted so far are written to stderr, at most
/// [`FLUSH_WAIT`] (then they stay queued: stderr is not being read).
pub fn flush() {
    let mut pending = state();
    if !pending.writer_running || pending.written >= pending.accepted {
        return;
    }
    let upto = pending.accepted;
    pending.flush_asked = true;
    ARRIVED.notify_all();
    let deadline = Instant::now() + FLUSH_WAIT;
    while pending.writer_running && pending.written < upto {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        pending = WRITTEN
            .wait_timeout(pending, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

/// Queues one whole line (or writes it at once when not [`enable`]d); a
/// line that does not fit in [`MAX_PENDING_BYTES`] is dropped and counted.
pub fn write_line(line: &[u8]) {
    if !ENABLED.load(Ordering::Acquire) || WRITER_THREAD.with(Cell::get) {
        let _ = io::stderr().write_all(line);
        return;
    }
    let mut pending = state();
    let before = pending.lines.len();
    if before + line.len() > MAX_PENDING_BYTES {
        pending.dropped += 1;
        DROPPED_TOTAL.fetch_add(1, Ordering::Relaxed);
        return;
    }
    pending.lines.extend_from_slice(line);
    pending.accepted += 1;
    // Wake the writer only when it has something new to do (a wake-up is a
    // system call, and while stderr blocks nobody listens).
    let after = pending.lines.len();
    if before == 0 || (before < FLUSH_BYTES && after >= FLUSH_BYTES) {
        ARRIVED.notify_one();
    }
}

/// The log layer's writer: stderr, through the buffer once [`enable`]d.
#[derive(Debug, Clone, Copy, Default)]
pub struct BufferedStderr;

impl<'a> MakeWriter<'a> for BufferedStderr {
    type Writer = LineWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter
    }
}

/// Writes one event's formatted line (the log layer writes each whole).
#[derive(Debug)]
pub struct LineWriter;

impl Write for LineWriter {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        write_line(line);
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting() -> usize {
        state().lines.len()
    }

    // One test: the buffer, and whether it is on, are process-wide.
    #[test]
    fn lines_wait_in_order_go_out_on_time_and_past_the_bound_are_dropped_and_counted() {
        enable();
        LineWriter.write_all(b"first\n").unwrap();
        LineWriter.write_all(b"second\n").unwrap();
        {
            let pending = state();
            // The writer thread may have written them already; if not, in order.
            assert!(pending.lines.is_empty() || pending.lines.ends_with(b"first\nsecond\n"));
        }
        std::thread::sleep(FLUSH_EVERY * 4);
        assert_eq!(waiting(), 0, "the writer thread wrote them");
        LineWriter.write_all(&vec![b'x'; FLUSH_BYTES]).unwrap();
        flush();
        assert_eq!(waiting(), 0, "a full buffer goes at once");

        // A line that does not fit is dropped and counted, never waited for.
        let before = dropped_total();
        LineWriter
            .write_all(&vec![b'y'; MAX_PENDING_BYTES + 1])
            .unwrap();
        assert_eq!(dropped_total(), before + 1);
        assert_eq!(state().dropped, 1, "the writer's warning will say so");

        disable();
        LineWriter.write_all(b"direct\n").unwrap();
        assert_eq!(waiting(), 0, "disabled: written at once");
    }
}
