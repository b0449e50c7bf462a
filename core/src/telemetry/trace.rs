//! W3C Trace Context (`traceparent`) and request ids: parsed from what a
//! caller sent, or made anew, and written into fixed buffers (no allocation).
//!
//! `traceparent` is `version-traceid-parentid-flags`, lowercase hex
//! (`00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01`); a value that is
//! not valid starts a new trace, as the W3C recommendation asks.

use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// `Display` and `Debug` as the text `as_str` gives.
macro_rules! shown_as_str {
    ($ty:ty $(, $($generics:tt)*)?) => {
        impl$(<$($generics)*>)? fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl$(<$($generics)*>)? fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// The bytes of a trace id (16) or a span id (8).
pub type TraceId = [u8; 16];
/// The bytes of a span id.
pub type SpanId = [u8; 8];

/// The trace a call belongs to: the trace id, the caller's span (when the
/// call continues one), the call's own span, and whether it is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceContext {
    /// The trace.
    pub trace_id: TraceId,
    /// Herald's span for this call (the parent of each Keeper request's span).
    pub span_id: SpanId,
    /// The caller's span, when the call continued a caller's trace.
    pub parent_span_id: Option<SpanId>,
    /// The sampled flag: continued from the caller, or chosen for a new trace.
    pub sampled: bool,
}

impl TraceContext {
    /// Continues the caller's `traceparent` when it is valid, else starts a
    /// new trace whose sampled flag is `sample_new`. Either way the call gets
    /// a span of its own.
    pub fn continue_or_start(traceparent: Option<&str>, sample_new: bool) -> Self {
        match traceparent.and_then(parse_traceparent) {
            Some((trace_id, parent, flags)) => Self {
                trace_id,
                span_id: new_span_id(),
                parent_span_id: Some(parent),
                sampled: flags & 1 == 1,
            },
            None => Self {
                trace_id: new_trace_id(),
                span_id: new_span_id(),
                parent_span_id: None,
                sampled: sample_new,
            },
        }
    }

    /// The `traceparent` of a request made inside this trace from span `span`.
    pub fn traceparent(&self, span: &SpanId) -> Traceparent {
        let mut out = [0u8; 55];
        out[..3].copy_from_slice(b"00-");
        hex_into(&self.trace_id, &mut out[3..35]);
        out[35] = b'-';
        hex_into(span, &mut out[36..52]);
        out[52] = b'-';
        out[53..55].copy_from_slice(if self.sampled { b"01" } else { b"00" });
        Traceparent(out)
    }

    /// The trace id as 32 hex digits.
    pub fn trace_id_hex(&self) -> Hex<32> {
        Hex::of(&self.trace_id)
    }

    /// The call's span id as 16 hex digits.
    pub fn span_id_hex(&self) -> Hex<16> {
        Hex::of(&self.span_id)
    }
}

/// A `traceparent` header value (55 ASCII bytes).
#[derive(Clone, Copy)]
pub struct Traceparent([u8; 55]);

impl Traceparent {
    /// The value.
    pub fn as_str(&self) -> &str {
        // Only ASCII hex digits and dashes are ever written.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

shown_as_str!(Traceparent);

/// Bytes as `N` lowercase hex digits, on the stack.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Hex<const N: usize>([u8; N]);

impl<const N: usize> Hex<N> {
    /// `bytes` (N/2 of them) in hex.
    pub fn of(bytes: &[u8]) -> Self {
        let mut out = [b'0'; N];
        hex_into(&bytes[..N / 2], &mut out);
        Self(out)
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

shown_as_str!(Hex<N>, const N: usize);

/// Longest request id taken from a caller.
pub const MAX_REQUEST_ID_LEN: usize = 64;

/// The id of one call, sent to Keeper as `X-Request-Id` and named in the
/// audit line: the caller's own (`X-Request-Id` of the HTTP request, when it
/// is 1 to 64 characters of letters, digits and `-_.:/+=@`), else 16 new hex
/// digits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RequestId {
    bytes: [u8; MAX_REQUEST_ID_LEN],
    len: u8,
}

impl RequestId {
    /// The caller's id when it is acceptable, else a new one.
    pub fn from_caller_or_new(caller: Option<&str>) -> Self {
        caller.and_then(Self::from_caller).unwrap_or_default()
    }

    /// A new random id.
    pub fn new() -> Self {
        let hex = Hex::<16>::of(&nonzero_random::<8>());
        let mut bytes = [0u8; MAX_REQUEST_ID_LEN];
        bytes[..16].copy_from_slice(&hex.0);
        Self { bytes, len: 16 }
    }

    /// The caller's id, when it is 1 to 64 safe characters.
    pub fn from_caller(text: &str) -> Option<Self> {
        let text = text.trim();
        let safe = |b: u8| b.is_ascii_alphanumeric() || b"-_.:/+=@".contains(&b);
        if text.is_empty() || text.len() > MAX_REQUEST_ID_LEN || !text.bytes().all(safe) {
            return None;
        }
        let mut bytes = [0u8; MAX_REQUEST_ID_LEN];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Some(Self {
            bytes,
            len: text.len() as u8,
        })
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl Default for RequestId {
    fn default() -> Self {
        Self::new()
    }
}

shown_as_str!(RequestId);

/// A new random trace id (never all zeros).
pub fn new_trace_id() -> TraceId {
    nonzero_random::<16>()
}

/// A new random span id (never all zeros).
pub fn new_span_id() -> SpanId {
    nonzero_random::<8>()
}

fn nonzero_random<const N: usize>() -> [u8; N] {
    loop {
        let mut out = [0u8; N];
        for chunk in out.chunks_mut(8) {
            let bits = random_u64().to_le_bytes();
            chunk.copy_from_slice(&bits[..chunk.len()]);
        }
        if out.iter().any(|b| *b != 0) {
            return out;
        }
    }
}

/// 64 random bits: SplitMix64 over one process-wide counter, seeded once from
/// the system's randomness (std's `RandomState`). Unlike a thread-local
/// generator (fastrand's), it creates no state on the calling thread: in the
/// C library that thread is the host program's, which never frees a Rust
/// thread handle made on it (valgrind reports it as lost in scripts/test-c.sh).
fn random_u64() -> u64 {
    const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
    static STATE: OnceLock<AtomicU64> = OnceLock::new();
    let state = STATE.get_or_init(|| AtomicU64::new(RandomState::new().hash_one(0x5eed_u64)));
    let mut z = state
        .fetch_add(GOLDEN_GAMMA, Ordering::Relaxed)
        .wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Parses a `traceparent`: the trace id, the parent span id and the flags.
/// Versions above 00 are read by their first four fields, as the
/// recommendation says; `ff`, uppercase hex and all-zero ids are invalid.
pub fn parse_traceparent(text: &str) -> Option<(TraceId, SpanId, u8)> {
    let text = text.trim();
    let bytes = text.as_bytes();
    if bytes.len() < 55 || bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return None;
    }
    let version = hex_byte(&bytes[0..2])?;
    if version == 0xff || (version == 0 && bytes.len() != 55) {
        return None;
    }
    if bytes.len() > 55 && bytes[55] != b'-' {
        return None;
    }
    let mut trace_id = [0u8; 16];
    let mut span_id = [0u8; 8];
    hex_decode(&bytes[3..35], &mut trace_id)?;
    hex_decode(&bytes[36..52], &mut span_id)?;
    let flags = hex_byte(&bytes[53..55])?;
    if trace_id.iter().all(|b| *b == 0) || span_id.iter().all(|b| *b == 0) {
        return None;
    }
    Some((trace_id, span_id, flags))
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

fn hex_into(bytes: &[u8], out: &mut [u8]) {
    for (i, b) in bytes.iter().enumerate() {
        out[2 * i] = DIGITS[usize::from(b >> 4)];
        out[2 * i + 1] = DIGITS[usize::from(b & 0x0f)];
    }
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

fn hex_byte(pair: &[u8]) -> Option<u8> {
    Some(hex_digit(pair[0])? << 4 | hex_digit(pair[1])?)
}

fn hex_decode(text: &[u8], out: &mut [u8]) -> Option<()> {
    for (i, pair) in text.chunks(2).enumerate() {
        out[i] = hex_byte(pair)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    #[test]
    fn ids_do_not_repeat() {
        let ids: std::collections::HashSet<[u8; 8]> = (0..10_000).map(|_| new_span_id()).collect();
        assert_eq!(ids.len(), 10_000);
        let traces: std::collections::HashSet<[u8; 16]> =
            (0..10_000).map(|_| new_trace_id()).collect();
        assert_eq!(traces.len(), 10_000);
    }

    #[test]
    fn a_valid_traceparent_is_continued() {
        let t = TraceContext::continue_or_start(Some(GOOD), false);
        assert_eq!(
            t.trace_id_hex().as_str(),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(
            t.parent_span_id.map(|p| Hex::<16>::of(&p).to_string()),
            Some("b7ad6b7169203331".into())
        );
        assert!(t.sampled);
        assert_ne!(t.span_id_hex().as_str(), "b7ad6b7169203331");
        let child = new_span_id();
        let header = t.traceparent(&child);
        assert_eq!(
            header.as_str(),
            format!(
                "00-0af7651916cd43dd8448eb211c80319c-{}-01",
                Hex::<16>::of(&child)
            )
        );
        assert!(parse_traceparent(header.as_str()).is_some());
    }

    #[test]
    fn invalid_traceparents_start_a_new_trace() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad:?}");
            let t = TraceContext::continue_or_start(Some(bad), true);
            assert_eq!(t.parent_span_id, None);
            assert!(t.sampled);
        }
        // A later version may add fields after a dash.
        assert!(
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-xyz")
                .is_some()
        );
    }

    #[test]
    fn request_ids_come_from_the_caller_when_safe() {
        assert_eq!(
            RequestId::from_caller_or_new(Some("req-42")).as_str(),
            "req-42"
        );
        for bad in ["", "a b", "x\ny", &"x".repeat(65), "quote\""] {
            let id = RequestId::from_caller_or_new(Some(bad));
            assert_eq!(id.as_str().len(), 16, "{bad:?}");
            assert!(id.as_str().bytes().all(|b| b.is_ascii_hexdigit()));
        }
        assert_ne!(RequestId::new(), RequestId::new());
    }
}
