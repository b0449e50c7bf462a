//! The tokio runtime the in-process tool calls run on: one per process, made on
//! first use (by `herald_core::runtime`, as every front end makes it), and made
//! again in a child after `os.fork()` (a forked child keeps the runtime's
//! memory but none of its threads).

use std::sync::{Arc, Mutex, PoisonError};

use tokio::runtime::Runtime;

/// The runtime of the process that made it.
struct ProcessRuntime {
    pid: u32,
    runtime: Arc<Runtime>,
}

static RUNTIME: Mutex<Option<ProcessRuntime>> = Mutex::new(None);

/// The runtime of this process, made on first use.
pub(crate) fn shared() -> std::io::Result<Arc<Runtime>> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(current) = slot.as_ref().filter(|current| current.pid == pid) {
        return Ok(Arc::clone(&current.runtime));
    }
    let runtime = Arc::new(herald_core::runtime::multi_thread("lorebase-herald", None)?);
    if let Some(stale) = slot.replace(ProcessRuntime {
        pid,
        runtime: Arc::clone(&runtime),
    }) {
        // The parent's runtime: its threads do not exist here, so dropping it
        // would wait for them forever. Its memory stays with the child.
        std::mem::forget(stale);
    }
    Ok(runtime)
}
