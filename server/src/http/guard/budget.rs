//! The JSON values all requests in flight may hold at once. One request is
//! capped at [`MAX_JSON_VALUES`](super::probe::MAX_JSON_VALUES) (about 4 MB
//! of rmcp's tree at the cap), but 1,024 connections at that cap would still
//! be 4 GB: past a few values each, a request reserves its count here before
//! rmcp parses it and gives it back once it is answered. A request that
//! cannot reserve within [`WAIT`] is answered 503 with `Retry-After`.
//!
//! The budget has two shares: the bodies of the large-body lane
//! ([`super::lane`]) reserve from theirs ([`LANE_SHARE`]), the others from
//! the rest, so a medium call (2,000 values in a few KB) never waits behind
//! large bodies for its reservation: with one share, many clients posting
//! bodies at the per-request bound make such calls wait (docs/benchmarks.md,
//! "Large bodies beside small calls").

use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::lane;
use super::message::refusal;

/// The JSON values the requests in flight may hold together: about 85 MB of
/// parsed trees (rmcp's parse and the tool's checks cost ~85 bytes a value
/// at their peak; docs/benchmarks.md, "Bodies that expand in memory").
pub(super) const MAX_JSON_VALUES_IN_FLIGHT: usize = 1_000_000;

/// The share of [`MAX_JSON_VALUES_IN_FLIGHT`] the large-body lane's requests
/// reserve from: 16 bodies at the per-request bound. The rest (200,000) is
/// for bodies under [`lane::LANE_BODY_BYTES`], which hold at most ~8,000
/// values each.
pub(super) const LANE_SHARE: usize = 800_000;

/// A request of at most this many values reserves nothing: 1,024 of them at
/// once hold under 100 MB, and an ordinary call never waits behind large ones.
pub(super) const SMALL_REQUEST_VALUES: usize = 1_024;

/// How long a large request may wait for its reservation: long enough for
/// 256 calls at the per-request bound to pass one after another on a loaded
/// 2-core machine (about 30 a second in a debug build).
pub(super) const WAIT: Duration = Duration::from_secs(30);

/// How long a request of the large-body lane may wait: the same 256 calls
/// pass one after another on the lane's share of the cores (one of two),
/// so twice [`WAIT`].
pub(super) const LANE_WAIT: Duration = Duration::from_secs(60);

/// The budget of one listener.
#[derive(Debug)]
pub(crate) struct JsonBudget {
    /// The share of the bodies under [`lane::LANE_BODY_BYTES`].
    main: Share,
    /// The share of the large-body lane's.
    lane: Share,
}

/// One share: its values, and how long a reservation may wait for them.
#[derive(Debug)]
struct Share {
    values: Semaphore,
    wait: Duration,
}

impl Default for JsonBudget {
    fn default() -> Self {
        Self::new(
            (MAX_JSON_VALUES_IN_FLIGHT - LANE_SHARE, WAIT),
            (LANE_SHARE, LANE_WAIT),
        )
    }
}

impl JsonBudget {
    /// A budget of `main.0` JSON values in flight for the bodies that stay
    /// on the main runtime and `lane.0` for the large-body lane's; a
    /// reservation from each waits at most its `.1`.
    pub(crate) fn new(main: (usize, Duration), lane: (usize, Duration)) -> Self {
        let share = |(values, wait)| Share {
            values: Semaphore::new(values),
            wait,
        };
        Self {
            main: share(main),
            lane: share(lane),
        }
    }

    /// Reserves `values` for one request of `body_bytes` (from the share of
    /// its lane) until the permit is dropped; none for a small request.
    /// `Err`: the 503 to answer, after the budget's wait.
    pub(crate) async fn reserve(
        &self,
        values: usize,
        body_bytes: usize,
    ) -> Result<Option<SemaphorePermit<'_>>, Response> {
        if values <= SMALL_REQUEST_VALUES {
            return Ok(None);
        }
        let share = if lane::takes(body_bytes) {
            &self.lane
        } else {
            &self.main
        };
        let wanted = u32::try_from(values).unwrap_or(u32::MAX);
        match tokio::time::timeout(share.wait, share.values.acquire_many(wanted)).await {
            Ok(Ok(permit)) => Ok(Some(permit)),
            _ => {
                tracing::warn!(
                    values,
                    body_bytes,
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

    /// A body that stays on the main runtime, and one that takes the lane.
    const SMALL: usize = 4_096;
    const LARGE: usize = lane::LANE_BODY_BYTES;

    #[tokio::test]
    async fn large_requests_share_the_budget_and_small_ones_never_wait() {
        let budget = JsonBudget::new((100_000, WAIT), (100_000, WAIT));
        let first = budget
            .reserve(60_000, SMALL)
            .await
            .expect("fits")
            .expect("held");
        // A small request reserves nothing, even with the budget taken.
        assert!(
            budget
                .reserve(SMALL_REQUEST_VALUES, SMALL)
                .await
                .expect("small")
                .is_none()
        );
        // A second large one waits until the first is answered.
        let waiting = budget.reserve(60_000, SMALL);
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
        let budget = JsonBudget::new((10_000, Duration::from_millis(50)), (10_000, WAIT));
        let _held = budget.reserve(9_000, SMALL).await.expect("fits");
        let refused = budget
            .reserve(9_000, SMALL)
            .await
            .expect_err("no room within WAIT");
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "1");
    }

    #[tokio::test]
    async fn a_medium_request_never_waits_behind_the_lanes_requests() {
        let budget = JsonBudget::new((10_000, WAIT), (60_000, WAIT));
        // The lane's share is taken by large bodies...
        let _large = budget
            .reserve(60_000, LARGE)
            .await
            .expect("fits")
            .expect("held");
        let next_large = budget.reserve(2_000, LARGE);
        tokio::pin!(next_large);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut next_large)
                .await
                .is_err(),
            "a large body waits for the lane's share"
        );
        // ...and a medium one, under the lane's size, reserves from its own at once.
        let medium = tokio::time::timeout(Duration::from_millis(500), budget.reserve(2_000, SMALL))
            .await
            .expect("no wait");
        assert!(medium.expect("fits").is_some());
    }
}
