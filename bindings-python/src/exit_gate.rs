//! Interpreter exit without a runtime thread inside Python.
//!
//! A finished `call_async` hands its outcome to Python from a thread of
//! Herald's runtime (the callback wakes the caller's event loop). If that
//! thread takes the GIL while the interpreter finalizes, CPython ends it with
//! `pthread_exit`, whose forced unwind through Rust frames aborts the
//! process (SIGABRT at the end of a script that used `acall_tool`).
//!
//! So a runtime thread enters Python only through [`with_python`], and the
//! gate closes from an `atexit` hook ([`close_for_exit`], registered when
//! `lorebase_herald` is imported): CPython runs `atexit` hooks before it
//! starts finalizing (3.9 to 3.13 alike). Closing waits, without the GIL,
//! for the threads already inside to leave; from then on no runtime thread
//! touches Python, and the outcomes of calls still in flight are dropped
//! (nobody awaits them once the interpreter exits). The gate is
//! process-wide, as the interpreter is.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use pyo3::prelude::*;

/// The most `close_for_exit` waits for a thread inside Python (a callback
/// only schedules work on an event loop: it takes microseconds).
const LEAVE_WAIT: Duration = Duration::from_secs(5);

/// Whether runtime threads may still enter Python, and how many are inside.
struct Gate {
    open: bool,
    inside: usize,
}

static GATE: Mutex<Gate> = Mutex::new(Gate {
    open: true,
    inside: 0,
});
/// Signalled when the last thread inside leaves.
static LEFT: Condvar = Condvar::new();

/// Runs `f` with the GIL on a thread that does not hold it, unless the
/// interpreter is exiting (then `None`, and nothing of Python is touched).
pub(crate) fn with_python<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    {
        let mut gate = GATE.lock().unwrap_or_else(PoisonError::into_inner);
        if !gate.open {
            return None;
        }
        gate.inside += 1;
    }
    let result = Python::try_attach(f);
    let mut gate = GATE.lock().unwrap_or_else(PoisonError::into_inner);
    gate.inside -= 1;
    if gate.inside == 0 {
        LEFT.notify_all();
    }
    result
}

/// Whether the interpreter is still running (the gate is open).
pub(crate) fn is_open() -> bool {
    GATE.lock().unwrap_or_else(PoisonError::into_inner).open
}

/// The `atexit` hook: no runtime thread enters Python from now on; returns
/// once those inside have left (the GIL released meanwhile, so they can).
#[pyfunction]
pub(crate) fn close_for_exit(py: Python<'_>) {
    py.detach(|| {
        let mut gate = GATE.lock().unwrap_or_else(PoisonError::into_inner);
        gate.open = false;
        let _ = LEFT
            .wait_timeout_while(gate, LEAVE_WAIT, |g| g.inside > 0)
            .unwrap_or_else(PoisonError::into_inner);
    });
}
