//! A bound on the calls an unauthenticated client can make Herald send to
//! the authorization server (introspection of opaque tokens): at most
//! [`IN_FLIGHT`] at once and [`PER_SECOND`] a second (a bucket of
//! [`BURST`]). Past either, the request is answered 503 with `Retry-After`
//! without a call: a flood of random tokens costs the authorization server
//! a bounded rate, not one call each.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most introspections in flight at once.
pub(crate) const IN_FLIGHT: usize = 8;
/// Introspections a second, sustained.
pub(crate) const PER_SECOND: f64 = 10.0;
/// Introspections allowed at once after a quiet spell.
pub(crate) const BURST: f64 = 20.0;

/// The bound of one resource server.
#[derive(Debug)]
pub(crate) struct CallLimit {
    in_flight: Arc<Semaphore>,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Leave to make one call; the call is in flight while it is held.
#[derive(Debug)]
pub(crate) struct Admitted(#[allow(dead_code)] OwnedSemaphorePermit);

impl Default for CallLimit {
    fn default() -> Self {
        Self {
            in_flight: Arc::new(Semaphore::new(IN_FLIGHT)),
            bucket: Mutex::new(Bucket {
                tokens: BURST,
                at: Instant::now(),
            }),
        }
    }
}

impl CallLimit {
    /// Leave for one call now, or `None` past either bound.
    pub(crate) fn admit(&self) -> Option<Admitted> {
        let permit = self.in_flight.clone().try_acquire_owned().ok()?;
        let mut bucket = self
            .bucket
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        let refill = now.saturating_duration_since(bucket.at).as_secs_f64() * PER_SECOND;
        bucket.tokens = (bucket.tokens + refill).min(BURST);
        bucket.at = now;
        if bucket.tokens < 1.0 {
            return None;
        }
        bucket.tokens -= 1.0;
        Some(Admitted(permit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_nothing_and_in_flight_is_bounded() {
        let limit = CallLimit::default();
        let held: Vec<Admitted> = (0..IN_FLIGHT).filter_map(|_| limit.admit()).collect();
        assert_eq!(held.len(), IN_FLIGHT);
        assert!(limit.admit().is_none(), "all in flight");
        drop(held);
        let admitted = (0..1000).filter(|_| limit.admit().is_some()).count();
        // The burst (less the first eight), and what refilled meanwhile.
        assert!(admitted <= BURST as usize, "{admitted}");
    }
}
