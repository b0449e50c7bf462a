//! The one way every front end builds its Tokio runtime (the server's command
//! line, the Python module, the C ABI; the Node addon runs on napi's).

use std::io;

use tokio::runtime::{Builder, Runtime};

/// A multi-thread runtime with timers and I/O, its threads named
/// `thread_name`; `worker_threads` fixes their number (default: one per
/// core).
pub fn multi_thread(thread_name: &str, worker_threads: Option<usize>) -> io::Result<Runtime> {
    builder(thread_name, worker_threads).build()
}

/// A runtime on the calling thread only, with timers and I/O (blocking work
/// still goes to `spawn_blocking`'s threads, named `thread_name`): one agent's
/// stdio session, whose calls then never hand off between worker threads.
pub fn current_thread(thread_name: &str) -> io::Result<Runtime> {
    Builder::new_current_thread()
        .enable_all()
        .thread_name(thread_name)
        .build()
}

/// The builder behind [`multi_thread`], for a front end that adds its own
/// hooks before building (the server binary's heap trim runs on each worker
/// as it parks).
pub fn builder(thread_name: &str, worker_threads: Option<usize>) -> Builder {
    let mut builder = Builder::new_multi_thread();
    builder.enable_all().thread_name(thread_name);
    if let Some(workers) = worker_threads {
        builder.worker_threads(workers);
    }
    builder
}
