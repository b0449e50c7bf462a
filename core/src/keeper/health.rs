//! When Keeper last answered, and when it last could not be reached: what
//! Herald's readiness report (`GET /readyz`) says about Keeper. Recorded by
//! every call, so it costs Keeper nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The times of the last answer and the last failure, shared by the clones
/// of one [`super::KeeperClient`].
#[derive(Debug)]
pub struct KeeperHealth {
    epoch: Instant,
    /// Milliseconds after `epoch` plus one; 0 means never.
    last_answer: AtomicU64,
    last_failure: AtomicU64,
}

/// What [`KeeperHealth::snapshot`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeeperHealthSnapshot {
    /// Since Keeper last answered a call (any status below 500), if ever.
    pub last_answer_ago: Option<Duration>,
    /// Since a call last got no answer (refused, timed out, reset) or a 5xx
    /// from a gateway in front of Keeper, if ever.
    pub last_failure_ago: Option<Duration>,
}

impl Default for KeeperHealth {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            last_answer: AtomicU64::new(0),
            last_failure: AtomicU64::new(0),
        }
    }
}

impl KeeperHealth {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// Keeper answered with `status`.
    pub fn answered(&self, status: u16) {
        if (500..600).contains(&status) {
            self.failed();
        } else {
            self.last_answer.store(self.now(), Ordering::Relaxed);
        }
    }

    /// A call got no answer.
    pub fn failed(&self) {
        self.last_failure.store(self.now(), Ordering::Relaxed);
    }

    /// The times as ages.
    pub fn snapshot(&self) -> KeeperHealthSnapshot {
        let now = self.now();
        let ago = |stamp: &AtomicU64| match stamp.load(Ordering::Relaxed) {
            0 => None,
            t => Some(Duration::from_millis(now.saturating_sub(t))),
        };
        KeeperHealthSnapshot {
            last_answer_ago: ago(&self.last_answer),
            last_failure_ago: ago(&self.last_failure),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_answers_and_failures() {
        let h = KeeperHealth::default();
        assert_eq!(h.snapshot().last_answer_ago, None);
        assert_eq!(h.snapshot().last_failure_ago, None);
        h.answered(404);
        assert!(h.snapshot().last_answer_ago.is_some());
        assert_eq!(h.snapshot().last_failure_ago, None);
        h.answered(503);
        assert!(h.snapshot().last_failure_ago.is_some());
    }
}
