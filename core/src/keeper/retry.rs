//! When and how long to wait before resending a Keeper call.
//!
//! Resent: answers 429 and 503, and an unreachable Keeper (connection refused,
//! reset or timed out), at most `keeper.max_retries` times. Never resent: any
//! other status, and a write that carries no `idempotency_key`. The wait is
//! `Retry-After` when Keeper gives it, capped at `keeper.retry_max_wait_s`;
//! otherwise exponential backoff with jitter under the same cap.

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};

/// The first backoff step; each further retry doubles it.
pub const BACKOFF_BASE: Duration = Duration::from_millis(250);

/// Whether Keeper's answer with this status may be resent.
pub fn is_retryable_status(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE
}

/// The `Retry-After` header: delay-seconds or an HTTP date (a date in the
/// past is no wait). `None` when absent or unreadable.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(text).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The pause before resend number `retry` (0 for the first resend):
/// `retry_after` capped at `max_wait` when given, otherwise
/// `BACKOFF_BASE * 2^retry` with jitter (between half and all of it), capped
/// at `max_wait`.
pub fn retry_delay(retry: u32, retry_after: Option<Duration>, max_wait: Duration) -> Duration {
    if let Some(wait) = retry_after {
        return wait.min(max_wait);
    }
    let step = BACKOFF_BASE
        .saturating_mul(1u32.checked_shl(retry.min(16)).unwrap_or(u32::MAX))
        .min(max_wait);
    let half = step / 2;
    let jitter = half.mul_f64(fastrand::f64());
    (half + jitter).min(max_wait)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn retry_after_is_capped() {
        let max = Duration::from_secs(5);
        assert_eq!(
            retry_delay(0, Some(Duration::from_secs(1)), max),
            Duration::from_secs(1)
        );
        assert_eq!(retry_delay(3, Some(Duration::from_secs(60)), max), max);
        assert_eq!(
            retry_delay(0, Some(Duration::from_secs(60)), Duration::ZERO),
            Duration::ZERO
        );
    }

    #[test]
    fn backoff_grows_with_jitter_under_the_cap() {
        let max = Duration::from_secs(5);
        for retry in 0..6 {
            let full = (BACKOFF_BASE * 2u32.pow(retry)).min(max);
            for _ in 0..50 {
                let d = retry_delay(retry, None, max);
                assert!(
                    d >= full / 2 && d <= full,
                    "retry {retry}: {d:?} not in [{:?}, {full:?}]",
                    full / 2
                );
            }
        }
        assert!(retry_delay(40, None, max) <= max);
        assert_eq!(retry_delay(2, None, Duration::ZERO), Duration::ZERO);
    }

    #[test]
    fn retry_after_headers_parse() {
        assert_eq!(retry_after(&headers("3")), Some(Duration::from_secs(3)));
        assert_eq!(
            retry_after(&headers("Wed, 21 Oct 2015 07:28:00 GMT")),
            Some(Duration::ZERO)
        );
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
        let d = retry_after(&headers(&later)).unwrap();
        assert!(
            d > Duration::from_secs(100) && d <= Duration::from_secs(120),
            "{d:?}"
        );
        assert_eq!(retry_after(&headers("soon")), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn only_429_and_503_are_retryable() {
        for code in [429, 503] {
            assert!(is_retryable_status(StatusCode::from_u16(code).unwrap()));
        }
        for code in [200, 400, 401, 403, 404, 409, 422, 423, 500, 502, 504] {
            assert!(
                !is_retryable_status(StatusCode::from_u16(code).unwrap()),
                "{code}"
            );
        }
    }
}
