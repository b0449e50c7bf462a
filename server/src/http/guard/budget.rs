//! The JSON values all requests in flight may hold at once. One request is
//! capped at [`MAX_JSON_VALUES`](super::probe::MAX_JSON_VALUES) (about 4 MB
//! of rmcp's tree at the cap), but 1,024 connections at that cap would still
//! be 4 GB: past a few values each, a request reserves its count here before
//! rmcp parses it and gives it back once it is answered. A request that
//! cannot reserve within [`WAIT`] is answered 503 with `Retry-After`.

use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::message::refusal;

/// The JSON values the requests in flight may hold together: about 85 MB of
/// parsed trees (rmcp's parse and the tool's checks cost ~85 bytes a value
/// at their peak; docs/benchmarks.md, "Bodies that expand in memory").
pub(super) const MAX_JSON_VALUES_IN_FLIGHT: usize = 1_000_000;

/// A request of at most this many values reserves nothing: 1,024 of them at
/// once hold under 100 MB, and an ordinary call never waits behind large ones.
pub(super) const SMALL_REQUEST_VALUES: usize = 1_024;

/// How long a large request may wait for its reservation: long enough for
/// 256 calls at the per-request bound to pass one after another on a loaded
/// 2-core machine (about 30 a second in a debug build).
pub(super) const WAIT: Duration = Duration::from_secs(30);

/// The budget of one listener.
#[derive(Debug)]
pub(crate) struct JsonBudget {
    values: Semaphore,
    wait: Duration,
}

impl Default for JsonBudget {
    fn default() -> Self {
        Self::new(MAX_JSON_VALUES_IN_FLIGHT, WAIT)
    }
}

impl JsonBudget {
    /// A budget of `values` JSON values in flight; a reservation waits at
    /// most `wait`.
    pub(crate) fn new(values: usize, wait: Duration) -> Self {
        Self {
            values: Semaphore::new(values),
            wait,
        }
    }

    /// Reserves `values` for one request until the permit is dropped; none
    /// for a small request. `Err`: the 503 to answer, after the budget's wait.
    pub(crate) async fn reserve(
        &self,
        values: usize,
    ) -> Result<Option<SemaphorePermit<'_>>, Response> {
        if values <= SMALL_REQUEST_VALUES {
            return Ok(None);
        }
        let wanted = u32::try_from(values).unwrap_or(u32::MAX);
        match tokio::time::timeout(self.wait, self.values.acquire_many(wanted)).await {
            Ok(Ok(permit)) => Ok(Some(permit)),
            _ => {
                tracing::warn!(
                    values,
                    budget = MAX_JSON_VALUES_IN_FLIGHT,
                    "refused a large request: the JSON values in flight are at their budget"
                );
                Err(busy())
            }
        }
    }
}

/// 503, JSON-RPC -32000, `Retry-After: 1`.
fn busy() -> Response {
    let mut response = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        -32000,
        "Service Unavailable: other large requests hold the memory Herald gives requests in flight; retry in a second, or send fewer items per call",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn large_requests_share_the_budget_and_small_ones_never_wait() {
        let budget = JsonBudget::new(100_000, WAIT);
        let first = budget.reserve(60_000).await.expect("fits").expect("held");
        // A small request reserves nothing, even with the budget taken.
        assert!(
            budget
                .reserve(SMALL_REQUEST_VALUES)
                .await
                .expect("small")
                .is_none()
        );
        // A second large one waits until the first is answered.
        let waiting = budget.reserve(60_000);
        tokio::pin!(waiting);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut waiting)
                .await
                .is_err(),
            "waits while the first holds its values"
        );
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("goes once the first is done");
        assert!(second.expect("fits").is_some());
    }

    #[tokio::test]
    async fn a_request_that_cannot_reserve_in_time_gets_503_retry_after() {
        let budget = JsonBudget::new(10_000, Duration::from_millis(50));
        let _held = budget.reserve(9_000).await.expect("fits");
        let refused = budget
            .reserve(9_000)
            .await
            .expect_err("no room within WAIT");
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
    }
}
