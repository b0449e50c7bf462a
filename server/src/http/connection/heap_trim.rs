//! Gives the heap freed after a surge of connections back to the system.
//!
//! An allocator keeps what a burst of connections freed (a slow-client attack
//! of 20,000 connections left RSS at its 57 MB peak, docs/benchmarks.md):
//! glibc's arenas shrink only from their top, and mimalloc (the binary's
//! allocator, the `mimalloc` feature) purges its free pages only as later
//! allocations pass by. Once a surge is over (the connections open fell by
//! half of `http.max_connections`, at most [`SURGE`], from their highest since
//! the last look), the watcher calls [`HeapTrims::trim`] on a blocking thread:
//! both allocators give their whole free pages back. mimalloc keeps a heap per
//! thread, which only its own thread can collect: each runtime worker
//! collects its heap the next time it parks ([`HeapTrims::on_worker_park`],
//! the hook of the runtime that owns the [`HeapTrims`]).
//! docs/benchmarks.md, "RSS after a slow-client attack", has the figures.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::http::connection::table::ConnectionTable;
use crate::shutdown::Shutdown;

/// A fall of this many open connections (or of half the limit) is a surge that ended.
pub(crate) const SURGE: usize = 512;
/// How often the watcher looks.
const PERIOD: Duration = Duration::from_secs(2);

/// A request body at least this big sets off a trim once it was answered
/// ([`HeapTrims::after_large_body`]).
pub(crate) const LARGE_BODY: usize = 64 * 1024;
/// How long a trim after large bodies waits (a burst of them is one trim).
const LARGE_BODY_DELAY: Duration = Duration::from_secs(1);

/// The heap trims asked for in one runtime: a worker that has seen fewer
/// collects its heap when it parks. The runtime's builder owns one (its
/// park hook); the HTTP server's watcher and its guard (after large bodies)
/// ask for trims through it.
#[derive(Debug, Default)]
pub struct HeapTrims {
    asked: AtomicU64,
    /// Whether a trim after large bodies is waiting.
    large_body_pending: AtomicBool,
}

thread_local! {
    /// The trims this thread has collected its heap for.
    static TRIMS_SEEN: Cell<u64> = const { Cell::new(0) };
}

impl HeapTrims {
    /// Returns the free pages of the heap to the system: mimalloc's (when
    /// the binary's allocator is mimalloc, and the `mimalloc` feature is
    /// built in) and glibc's (which the library's hosts, and C code in any
    /// process, use). The runtime's workers collect their own mimalloc heaps
    /// as they next park.
    pub fn trim(&self) {
        self.asked.fetch_add(1, Ordering::Relaxed);
        collect_this_thread();
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            unsafe extern "C" {
                // glibc, since 2.0: `int malloc_trim(size_t pad)`; safe to call at any time.
                safe fn malloc_trim(pad: usize) -> std::ffi::c_int;
            }
            malloc_trim(0);
        }
    }

    /// The runtime's `on_thread_park` hook: after a trim was asked for, the
    /// worker about to park collects its own heap (once per trim).
    /// Otherwise an atomic load and a thread-local read.
    pub fn on_worker_park(&self) {
        let asked = self.asked.load(Ordering::Relaxed);
        if TRIMS_SEEN.get() != asked {
            TRIMS_SEEN.set(asked);
            collect_this_thread();
        }
    }
}

/// mimalloc: frees this thread's empty pages, and returns free memory
/// (this thread's, abandoned threads', and what waits to be purged) to the
/// system. Without the `mimalloc` feature, nothing.
fn collect_this_thread() {
    #[cfg(feature = "mimalloc")]
    // SAFETY: `mi_collect` may be called from any thread at any time; it
    // touches the calling thread's heap and mimalloc's shared, locked state.
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
}

impl HeapTrims {
    /// A request with a body of [`LARGE_BODY`] or more was answered: the
    /// trees rmcp and the tools built from it are freed, but the allocator
    /// may keep their pages (64 calls of 200 KB at once, 100,000 JSON values
    /// each, left 158 MB resident 20 s later with nothing else happening).
    /// One trim, [`LARGE_BODY_DELAY`] after the first of a burst, gives them
    /// back. Call from within the runtime.
    pub fn after_large_body(self: &Arc<Self>) {
        if self.large_body_pending.swap(true, Ordering::AcqRel) {
            return;
        }
        let trims = Arc::clone(self);
        tokio::spawn(async move {
            tokio::time::sleep(LARGE_BODY_DELAY).await;
            trims.large_body_pending.store(false, Ordering::Release);
            let _ = tokio::task::spawn_blocking(move || trims.trim()).await;
        });
    }
}

/// Watches `table` until `stop` fires; trims the heap through `trims`
/// after each surge (see the module documentation; `max_connections` sets
/// its size).
pub(crate) async fn watch(
    table: Arc<ConnectionTable>,
    trims: Arc<HeapTrims>,
    max_connections: usize,
    stop: Shutdown,
) {
    let surge = (max_connections / 2).clamp(16, SURGE);
    let mut tick = tokio::time::interval(PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.wait() => return,
            _ = tick.tick() => {}
        }
        let (open, highest) = table.take_highest();
        if highest >= open + surge {
            tracing::debug!(
                open,
                highest,
                "a surge of connections is over: trimming the heap"
            );
            let trims = trims.clone();
            let _ = tokio::task::spawn_blocking(move || trims.trim()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_worker_collects_once_per_trim() {
        // A thread that has seen every trim does nothing as it parks; after
        // a new trim it collects once, then is up to date again.
        std::thread::spawn(|| {
            let trims = HeapTrims::default();
            trims.on_worker_park();
            assert_eq!(TRIMS_SEEN.get(), trims.asked.load(Ordering::Relaxed));
            trims.trim();
            let asked = trims.asked.load(Ordering::Relaxed);
            assert!(TRIMS_SEEN.get() < asked);
            trims.on_worker_park();
            assert_eq!(TRIMS_SEEN.get(), asked);
            trims.on_worker_park();
            assert_eq!(TRIMS_SEEN.get(), asked);
        })
        .join()
        .unwrap();
    }
}
