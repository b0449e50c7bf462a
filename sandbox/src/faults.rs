//! Fault injection: the next N API calls answer a status, wait, or lose their
//! connection.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// What an injected fault does to one API call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer this HTTP status with a problem body (429 `rate-limited`, 423
    /// `branch-busy`, anything else `keeper-unavailable`), or with `body`
    /// exactly when given (a problem a newer Keeper could send, or none), and
    /// with `Retry-After` when given.
    Status {
        /// The HTTP status.
        status: u16,
        /// Seconds for the `Retry-After` header.
        retry_after: Option<u64>,
        /// The body to answer instead of the sandbox's problem.
        body: Option<Value>,
    },
    /// Wait this long, then answer normally.
    Delay(Duration),
    /// Close the connection without answering.
    Drop,
}

/// A fault for the next `count` API calls (admin endpoints excluded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What it does.
    pub action: FaultAction,
    /// How many calls it applies to (default 1).
    pub count: u32,
}

impl Fault {
    /// Answer `status` (for example 429 or 503).
    pub fn status(status: u16) -> Self {
        Self {
            action: FaultAction::Status {
                status,
                retry_after: None,
                body: None,
            },
            count: 1,
        }
    }

    /// Answer `status` with exactly this JSON body (status faults only):
    /// `Fault::status(409).body(json!({"code": "conflict", "detail": "..."}))`,
    /// or an answer Herald cannot read, `Fault::status(200).body(json!({}))`.
    pub fn body(mut self, json: Value) -> Self {
        if let FaultAction::Status { body, .. } = &mut self.action {
            *body = Some(json);
        }
        self
    }

    /// Wait, then answer normally.
    pub fn delay(delay: Duration) -> Self {
        Self {
            action: FaultAction::Delay(delay),
            count: 1,
        }
    }

    /// Close the connection without an answer.
    pub fn drop_connection() -> Self {
        Self {
            action: FaultAction::Drop,
            count: 1,
        }
    }

    /// Adds `Retry-After: secs` (status faults only).
    pub fn retry_after(mut self, secs: u64) -> Self {
        if let FaultAction::Status { retry_after, .. } = &mut self.action {
            *retry_after = Some(secs);
        }
        self
    }

    /// Applies to the next `n` calls.
    pub fn times(mut self, n: u32) -> Self {
        self.count = n;
        self
    }
}

/// The body of `POST /_sandbox/faults`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FaultSpec {
    #[serde(default = "one")]
    count: u32,
    status: Option<u16>,
    retry_after: Option<u64>,
    body: Option<Value>,
    delay_ms: Option<u64>,
    #[serde(default)]
    drop: bool,
}

fn one() -> u32 {
    1
}

impl FaultSpec {
    /// The fault, or why the body names none or several.
    pub(crate) fn into_fault(self) -> Result<Fault, String> {
        let chosen = [self.status.is_some(), self.delay_ms.is_some(), self.drop]
            .iter()
            .filter(|b| **b)
            .count();
        if chosen != 1 {
            return Err("give exactly one of status, delay_ms or drop: true".into());
        }
        if (self.retry_after.is_some() || self.body.is_some()) && self.status.is_none() {
            return Err("retry_after and body go with status".into());
        }
        let fault = if let Some(status) = self.status {
            // An answer of a newer Keeper may be a 2xx; a fault without a
            // body is a problem.
            let lowest = if self.body.is_some() { 200 } else { 400 };
            if !(lowest..=599).contains(&status) {
                return Err("status must be 400..599 (200..599 with a body)".into());
            }
            let mut f = Fault::status(status);
            if let Some(s) = self.retry_after {
                f = f.retry_after(s);
            }
            match self.body {
                Some(body) => f.body(body),
                None => f,
            }
        } else if let Some(ms) = self.delay_ms {
            if ms > 600_000 {
                return Err("delay_ms must be at most 600000".into());
            }
            Fault::delay(Duration::from_millis(ms))
        } else {
            Fault::drop_connection()
        };
        Ok(fault.times(self.count))
    }
}

/// The queued faults, applied in order.
#[derive(Debug, Default)]
pub(crate) struct FaultQueue(Mutex<VecDeque<Fault>>);

impl FaultQueue {
    pub(crate) fn push(&self, fault: Fault) {
        if fault.count > 0 {
            self.lock().push_back(fault);
        }
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// Queued calls still to be faulted.
    pub(crate) fn pending(&self) -> u64 {
        self.lock().iter().map(|f| u64::from(f.count)).sum()
    }

    /// The fault of the next call, if any.
    pub(crate) fn next(&self) -> Option<FaultAction> {
        let mut q = self.lock();
        let front = q.front_mut()?;
        let action = front.action.clone();
        front.count -= 1;
        if front.count == 0 {
            q.pop_front();
        }
        Some(action)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Fault>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_apply_in_order_for_their_count() {
        let q = FaultQueue::default();
        q.push(Fault::status(429).retry_after(2).times(2));
        q.push(Fault::drop_connection());
        assert_eq!(q.pending(), 3);
        let first = FaultAction::Status {
            status: 429,
            retry_after: Some(2),
            body: None,
        };
        assert_eq!(q.next(), Some(first.clone()));
        assert_eq!(q.next(), Some(first));
        assert_eq!(q.next(), Some(FaultAction::Drop));
        assert_eq!(q.next(), None);
    }

    #[test]
    fn specs_name_exactly_one_fault() {
        let spec = |v: serde_json::Value| serde_json::from_value::<FaultSpec>(v).unwrap();
        let f = spec(serde_json::json!({"count": 3, "status": 503}))
            .into_fault()
            .unwrap();
        assert_eq!(f, Fault::status(503).times(3));
        let f = spec(serde_json::json!({"status": 409, "body": {"code": "conflict"}}))
            .into_fault()
            .unwrap();
        assert_eq!(
            f,
            Fault::status(409).body(serde_json::json!({"code": "conflict"}))
        );
        assert!(
            spec(serde_json::json!({"drop": true, "body": {}}))
                .into_fault()
                .is_err()
        );
        assert!(
            spec(serde_json::json!({"status": 503, "drop": true}))
                .into_fault()
                .is_err()
        );
        assert!(spec(serde_json::json!({})).into_fault().is_err());
        assert!(
            spec(serde_json::json!({"delay_ms": 5, "retry_after": 1}))
                .into_fault()
                .is_err()
        );
    }
}
