//! Log lines bound for stderr, written together every [`FLUSH_EVERY`]
//! rather than one `write` per line on the call's path.
//!
//! A tool call's audit line cost a stdio call 25-35 µs of its p50 on two
//! cores, whether stderr was a file or a pipe that the host drains: each
//! line was a `write`, and on a pipe a wake-up of the reader, competing with
//! the call (docs/benchmarks.md, issue 22). Once [`enable`]d (by `run_cli`),
//! each whole line the log layer writes is appended to one process-wide
//! buffer; a thread of its own writes the buffer in one `write`
//! [`FLUSH_EVERY`] after the first line of a batch arrived (it sleeps while
//! there is none), and a buffer of [`FLUSH_BYTES`] is written at once. Lines
//! keep their order and never interleave; [`flush`] runs before Herald's own
//! notices and when `run_cli` ends. Not enabled (before and after `run_cli`,
//! and under `run_cli_async` on a binding's runtime), every line is written
//! at once. A process killed with SIGKILL loses the lines of its last
//! [`FLUSH_EVERY`] at most.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// A buffer this full is written at once.
pub const FLUSH_BYTES: usize = 16 * 1024;
/// How long a line waits at most (but for a process killed outright).
pub const FLUSH_EVERY: Duration = Duration::from_millis(25);

/// Whether lines wait in [`BUFFER`] (while the writer thread runs).
static ENABLED: AtomicBool = AtomicBool::new(false);
/// The lines not yet written. Process-wide, as stderr is.
static BUFFER: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// Wakes the writer thread when a line arrives in an empty buffer (so an
/// idle Herald has no timer waking it).
static ARRIVED: Condvar = Condvar::new();

/// From now on lines wait, and a thread (`herald-log-writer`) writes them
/// [`FLUSH_EVERY`] after the first of a batch arrived, until [`disable`]. If
/// that thread cannot start, lines are written at once as before.
pub fn enable() {
    if ENABLED.swap(true, Ordering::AcqRel) {
        return;
    }
    let started = std::thread::Builder::new()
        .name("herald-log-writer".into())
        .spawn(write_batches);
    if started.is_err() {
        ENABLED.store(false, Ordering::Release);
    }
}

/// The writer thread: waits for a line, lets the batch gather, writes it.
fn write_batches() {
    while ENABLED.load(Ordering::Acquire) {
        {
            let Ok(pending) = BUFFER.lock() else { return };
            let waited =
                ARRIVED.wait_while(pending, |p| p.is_empty() && ENABLED.load(Ordering::Acquire));
            if waited.is_err() {
                return;
            }
        }
        std::thread::sleep(FLUSH_EVERY);
        flush();
    }
}

/// Lines are written at once again, those waiting first; the writer thread
/// ends.
pub fn disable() {
    ENABLED.store(false, Ordering::Release);
    flush();
    ARRIVED.notify_all();
}

/// Writes the waiting lines to stderr now.
pub fn flush() {
    if let Ok(mut pending) = BUFFER.lock() {
        write_out(&mut pending);
    }
}

fn write_out(pending: &mut Vec<u8>) {
    if !pending.is_empty() {
        let _ = io::stderr().lock().write_all(pending);
        pending.clear();
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
        if !ENABLED.load(Ordering::Acquire) {
            return io::stderr().write(line);
        }
        let Ok(mut pending) = BUFFER.lock() else {
            return io::stderr().write(line);
        };
        let first = pending.is_empty();
        pending.extend_from_slice(line);
        if pending.len() >= FLUSH_BYTES {
            write_out(&mut pending);
        } else if first {
            ARRIVED.notify_one();
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the buffer, and whether it is on, are process-wide.
    #[test]
    fn lines_wait_in_order_and_go_out_on_time_when_full_or_when_disabled() {
        enable();
        LineWriter.write_all(b"first\n").unwrap();
        LineWriter.write_all(b"second\n").unwrap();
        {
            let pending = BUFFER.lock().unwrap();
            // The writer thread may have written them already; if not, in order.
            assert!(pending.is_empty() || pending.ends_with(b"first\nsecond\n"));
        }
        std::thread::sleep(FLUSH_EVERY * 4);
        assert!(
            BUFFER.lock().unwrap().is_empty(),
            "the writer thread wrote them"
        );
        LineWriter.write_all(&vec![b'x'; FLUSH_BYTES]).unwrap();
        assert!(
            BUFFER.lock().unwrap().is_empty(),
            "a full buffer goes at once"
        );
        disable();
        LineWriter.write_all(b"direct\n").unwrap();
        assert!(
            BUFFER.lock().unwrap().is_empty(),
            "disabled: written at once"
        );
    }
}
