//! The lane of large bodies. A request whose body is [`LANE_BODY_BYTES`] or
//! more is probed, parsed by rmcp and handled on a runtime of its own: a
//! fixed share of the cores ([`lane_threads`]: a quarter of them, at least
//! one thread). Small calls stay on the main runtime, whose workers the
//! lane's long parses no longer hold, so they never queue behind one
//! (docs/benchmarks.md, "Large bodies beside small calls", measures both).
//! The lane's threads keep the normal priority: at a lower one a machine busy
//! with other work gives them so little CPU that large calls wait for tens
//! of seconds.
//!
//! The lane's requests also reserve their JSON values from a share of the
//! budget of their own ([`super::budget`]), so a medium call (past 1,024
//! values, under [`LANE_BODY_BYTES`]) never waits behind large ones either.
//! A request dropped by its connection aborts its task on the lane.

use std::future::Future;
use std::io;
use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use tokio::runtime::{Handle, Runtime};
use tokio::task::AbortHandle;
use tracing::Instrument;

use super::message::refusal;
use crate::http::connection::heap_trim::HeapTrims;

/// A body of this many bytes or more takes the lane. 16 KiB hold at most
/// about 8,000 JSON values (`0,` is two bytes), a few milliseconds of parse
/// in a debug build; an ordinary call's body is under 1 KiB.
pub(super) const LANE_BODY_BYTES: usize = 16 * 1024;

/// Whether a body of `bytes` takes the lane.
pub(super) fn takes(bytes: usize) -> bool {
    bytes >= LANE_BODY_BYTES
}

/// The lane's threads: a quarter of the cores, at least one.
fn lane_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 4).max(1))
}

/// The lane's runtime; dropping it lets its threads go without waiting.
#[derive(Debug)]
pub(crate) struct LargeBodyLane {
    runtime: Option<Runtime>,
    handle: Handle,
}

impl LargeBodyLane {
    /// Starts the lane's [`lane_threads`] threads (`herald-large-bodies`);
    /// each collects its heap as it parks after `trims` asked for it.
    pub(crate) fn start(trims: Arc<HeapTrims>) -> io::Result<Self> {
        let runtime = herald_core::runtime::builder("herald-large-bodies", Some(lane_threads()))
            .on_thread_park(move || trims.on_worker_park())
            .build()?;
        let handle = runtime.handle().clone();
        Ok(Self {
            runtime: Some(runtime),
            handle,
        })
    }

    /// Runs `work` (a request's probe, rmcp's parse and the call) on the
    /// lane and waits for its answer; dropping the wait aborts it. A task
    /// that panicked or was stopped answers 500.
    pub(crate) async fn run<F>(&self, work: F) -> Response
    where
        F: Future<Output = Response> + Send + 'static,
    {
        let task = self.handle.spawn(work.in_current_span());
        let _abort = AbortOnDrop(task.abort_handle());
        match task.await {
            Ok(response) => response,
            Err(e) => {
                tracing::error!(
                    panicked = e.is_panic(),
                    "a request on the large-body lane did not finish"
                );
                refusal(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    -32603,
                    "Internal error: the request stopped before its answer; send it again",
                )
            }
        }
    }
}

impl Drop for LargeBodyLane {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime blocks until its threads stop, which is not
            // allowed inside the main runtime, where a router is dropped.
            runtime.shutdown_background();
        }
    }
}

/// Aborts a lane task whose request was dropped (its client went away).
struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn lane() -> LargeBodyLane {
        LargeBodyLane::start(Arc::new(HeapTrims::default())).expect("lane")
    }

    #[tokio::test]
    async fn work_runs_on_the_lanes_threads() {
        let lane = lane();
        let answer = lane
            .run(async {
                let name = std::thread::current()
                    .name()
                    .unwrap_or_default()
                    .to_string();
                refusal(StatusCode::OK, 0, &name)
            })
            .await;
        let body = axum::body::to_bytes(answer.into_body(), 4096)
            .await
            .unwrap();
        assert!(
            String::from_utf8_lossy(&body).contains("herald-large-bodies"),
            "{body:?}"
        );
    }

    #[tokio::test]
    async fn a_dropped_request_stops_its_work_on_the_lane() {
        let lane = lane();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let waiting = lane.run(async move {
            // Held until the task is dropped: `tx` is dropped with it.
            let _tx = tx;
            tokio::time::sleep(Duration::from_secs(60)).await;
            refusal(StatusCode::OK, 0, "late")
        });
        assert!(
            tokio::time::timeout(Duration::from_millis(50), waiting)
                .await
                .is_err()
        );
        // The wait was dropped by the timeout: the task is aborted, its `tx` dropped.
        tokio::time::timeout(Duration::from_secs(5), rx)
            .await
            .expect("aborted within 5 s")
            .expect_err("dropped, never sent");
    }

    #[tokio::test]
    async fn a_panic_on_the_lane_answers_500() {
        let lane = lane();
        let answer = lane
            .run(async {
                if std::hint::black_box(true) {
                    panic!("on purpose");
                }
                refusal(StatusCode::OK, 0, "never")
            })
            .await;
        assert_eq!(answer.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn a_lane_dropped_inside_a_runtime_does_not_block_it() {
        let main = herald_core::runtime::multi_thread("test-main", Some(1)).unwrap();
        main.block_on(async { drop(lane()) });
    }
}
