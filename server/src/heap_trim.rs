//! Gives the heap freed after a surge of connections back to the system.
//!
//! glibc's allocator keeps what a burst of connections freed (a slow-client
//! attack of 20,000 connections left RSS at its 57 MB peak, docs/benchmarks.md):
//! its arenas shrink only from their top. `malloc_trim(0)` returns every
//! whole free page of every arena. Once a surge is over (the connections open
//! fell by half of `http.max_connections`, at most [`SURGE`], from their
//! highest since the last look), the
//! watcher calls it, on a blocking thread; nothing else changes, and no other
//! allocator is linked in (docs/benchmarks.md, "RSS after a slow-client
//! attack", has the allocators compared).

use std::sync::Arc;
use std::time::Duration;

use crate::http_conn::ConnectionTable;
use crate::shutdown::Shutdown;

/// A fall of this many open connections (or of half the limit) is a surge that ended.
pub const SURGE: usize = 512;
/// How often the watcher looks.
const PERIOD: Duration = Duration::from_secs(2);

/// Returns the free pages of the heap to the system (glibc); a no-op elsewhere.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            // glibc, since 2.0: `int malloc_trim(size_t pad)`; safe to call at any time.
            safe fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        malloc_trim(0);
    }
}

/// Watches `table` until `stop` fires; trims the heap after each surge
/// (see the module documentation; `max_connections` sets its size).
pub async fn watch(table: Arc<ConnectionTable>, max_connections: usize, stop: Shutdown) {
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
            let _ = tokio::task::spawn_blocking(trim).await;
        }
    }
}
