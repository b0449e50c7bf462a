//! A bound on the calls clients can make Herald send to the authorization
//! server, one per kind: introspections of opaque tokens (at most
//! `http.introspection_max_in_flight` at once and
//! `http.introspection_per_second` a second, a bucket of
//! `http.introspection_burst`) and token exchanges (`http.exchange_*`), each
//! read into [`CallLimits`]. Past either, the request is answered 503 with
//! `Retry-After` without a call: a flood of random tokens, or of valid ones
//! the server will not exchange, costs the authorization server a bounded
//! rate, not one call each.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use herald_core::config::HttpSettings;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A bound's three numbers, from the settings (each at least 1, checked
/// by the settings' load).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CallLimits {
    /// Most calls in flight at once.
    pub(crate) in_flight: usize,
    /// Calls a second, sustained.
    pub(crate) per_second: f64,
    /// Calls allowed at once after a quiet spell.
    pub(crate) burst: f64,
}

impl CallLimits {
    /// The bound on introspections (`http.introspection_*`).
    pub(crate) fn introspection(http: &HttpSettings) -> Self {
        Self {
            in_flight: http.introspection_max_in_flight,
            per_second: f64::from(http.introspection_per_second),
            burst: f64::from(http.introspection_burst),
        }
    }

    /// The bound on token exchanges (`http.exchange_*`).
    pub(crate) fn exchange(http: &HttpSettings) -> Self {
        Self {
            in_flight: http.exchange_max_in_flight,
            per_second: f64::from(http.exchange_per_second),
            burst: f64::from(http.exchange_burst),
        }
    }
}

/// The bound of one resource server.
#[derive(Debug)]
pub(crate) struct CallLimit {
    limits: CallLimits,
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

impl CallLimit {
    /// A full bucket under `limits`.
    pub(crate) fn new(limits: CallLimits) -> Self {
        Self {
            limits,
            in_flight: Arc::new(Semaphore::new(limits.in_flight)),
            bucket: Mutex::new(Bucket {
                tokens: limits.burst,
                at: Instant::now(),
            }),
        }
    }

    /// The bound it keeps.
    #[cfg(test)]
    pub(crate) fn limits(&self) -> CallLimits {
        self.limits
    }

    /// Leave for one call now, or `None` past either bound.
    pub(crate) fn admit(&self) -> Option<Admitted> {
        let permit = self.in_flight.clone().try_acquire_owned().ok()?;
        let mut bucket = self
            .bucket
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        let refill =
            now.saturating_duration_since(bucket.at).as_secs_f64() * self.limits.per_second;
        bucket.tokens = (bucket.tokens + refill).min(self.limits.burst);
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

    fn limit(in_flight: usize, per_second: f64, burst: f64) -> CallLimit {
        CallLimit::new(CallLimits {
            in_flight,
            per_second,
            burst,
        })
    }

    #[test]
    fn a_burst_then_nothing_and_in_flight_is_bounded() {
        let limit = limit(3, 1.0, 5.0);
        let held: Vec<Admitted> = (0..10).filter_map(|_| limit.admit()).collect();
        assert_eq!(held.len(), 3);
        assert!(limit.admit().is_none(), "all in flight");
        drop(held);
        let admitted = (0..1000).filter(|_| limit.admit().is_some()).count();
        // The burst (less the first three), and what refilled meanwhile.
        assert!((2..=3).contains(&admitted), "{admitted}");
    }

    #[test]
    fn the_bucket_bounds_calls_that_are_not_held() {
        let limit = limit(100, 1.0, 4.0);
        let admitted = (0..1000).filter(|_| limit.admit().is_some()).count();
        // Four from the bucket, and at most one refilled meanwhile.
        assert!((4..=5).contains(&admitted), "{admitted}");
    }

    #[test]
    fn the_defaults_bound_introspections_and_exchanges() {
        let http = &herald_core::config::Settings::default().http;
        assert_eq!(
            CallLimits::introspection(http),
            CallLimits {
                in_flight: 8,
                per_second: 10.0,
                burst: 20.0
            }
        );
        assert_eq!(
            CallLimits::exchange(http),
            CallLimits {
                in_flight: 16,
                per_second: 20.0,
                burst: 40.0
            }
        );
    }
}
