//! One connection's shared state, read by its task ([`crate::http::connection`]) and
//! by the table of open connections ([`crate::http::connection::table`]): what it is
//! doing ([`Phase`]), since when, the time limits of each phase
//! ([`ConnectionLimits`]), and the 503 written to a connection over the limit.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// What a connection is doing, which sets how long it may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Phase {
    /// Waiting for the head of a request: from the connection opening, or
    /// from the first byte of a later request (`http.header_timeout_s`).
    Head = 0,
    /// The head arrived; the body is on its way (`http.body_timeout_s`).
    Body = 1,
    /// A whole request arrived; its answer is being made (no limit but the
    /// drain's).
    Busy = 2,
    /// Kept alive after an answer, no byte of a next request yet
    /// (`http.idle_timeout_s`).
    Idle = 3,
    /// The answer is made but its last bytes still wait in hyper's buffer
    /// for the client to read them (`http.send_timeout_s`).
    Sending = 4,
}

impl Phase {
    fn from_u8(v: u8) -> Self {
        match v {
            0 => Self::Head,
            1 => Self::Body,
            2 => Self::Busy,
            3 => Self::Idle,
            _ => Self::Sending,
        }
    }
}

/// The time limits of a connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    /// `http.header_timeout_s`.
    pub header: Duration,
    /// `http.body_timeout_s`.
    pub body: Duration,
    /// `http.send_timeout_s`.
    pub send: Duration,
    /// `http.idle_timeout_s`.
    pub idle: Duration,
    /// `http.drain_timeout_s`.
    pub drain: Duration,
}

impl ConnectionLimits {
    /// The limits of `http`.
    pub(crate) fn of(http: &herald_core::config::HttpSettings) -> Self {
        Self {
            header: Duration::from_secs(http.header_timeout_s),
            body: Duration::from_secs(http.body_timeout_s),
            send: Duration::from_secs(http.send_timeout_s),
            idle: Duration::from_secs(http.idle_timeout_s),
            drain: Duration::from_secs(http.drain_timeout_s),
        }
    }
}

/// One open connection's shared state: its phase and since when.
#[derive(Debug)]
pub(crate) struct ConnState {
    epoch: Instant,
    /// The client's address.
    pub(crate) peer: Option<IpAddr>,
    /// Milliseconds after `epoch` when the connection opened.
    opened: u64,
    phase: AtomicU8,
    /// Milliseconds after `epoch` when the phase began.
    since: AtomicU64,
    /// At least one answer was made on it.
    answered: AtomicBool,
    /// It sent a request before its last answer was out (HTTP/1.1
    /// pipelining, which no MCP client does).
    pipelined: AtomicBool,
    evicted: AtomicBool,
    /// Bytes of a request were read since its last answer was handed to
    /// hyper: closing it now would leave that request unanswered.
    heard: AtomicBool,
    /// Its socket's descriptor (-1: none), to ask whether a request waits
    /// unread in it.
    fd: i32,
    pub(crate) changed: Notify,
    /// Notified when an answer has left hyper's buffer.
    flushed: Notify,
}

impl ConnState {
    pub(crate) fn new(epoch: Instant, peer: Option<IpAddr>, fd: i32) -> Self {
        let now = epoch.elapsed().as_millis() as u64;
        Self {
            epoch,
            peer,
            opened: now,
            phase: AtomicU8::new(Phase::Head as u8),
            since: AtomicU64::new(now),
            answered: AtomicBool::new(false),
            pipelined: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            heard: AtomicBool::new(false),
            fd,
            changed: Notify::new(),
            flushed: Notify::new(),
        }
    }

    /// The phase now.
    pub(crate) fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Acquire))
    }

    pub(crate) fn since_ms(&self) -> u64 {
        self.since.load(Ordering::Acquire)
    }

    pub(crate) fn opened_ms(&self) -> u64 {
        self.opened
    }

    pub(crate) fn set(&self, phase: Phase) {
        self.since
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::Release);
        let before = Phase::from_u8(self.phase.swap(phase as u8, Ordering::AcqRel));
        self.changed.notify_one();
        if before == Phase::Sending && phase != Phase::Sending {
            self.flushed.notify_waiters();
        }
    }

    /// Moves from `from` to `to` only if the phase is still `from`.
    pub(crate) fn advance(&self, from: Phase, to: Phase) {
        if self.phase() == from {
            self.set(to);
        }
    }

    /// Whether an answer was made on this connection.
    pub(crate) fn answered(&self) -> bool {
        self.answered.load(Ordering::Acquire)
    }

    pub(crate) fn mark_answered(&self) {
        self.answered.store(true, Ordering::Release);
    }

    /// Called as a request reaches the service: after an answer, a request
    /// whose bytes came before that answer was out (the phase is still
    /// [`Phase::Sending`], or [`Phase::Idle`] with no byte read since) was
    /// pipelined. A client that waits for each answer is always in
    /// [`Phase::Head`] or [`Phase::Body`] here: its next request's bytes are
    /// read after the answer left.
    pub(crate) fn note_request(&self) {
        if self.answered() && matches!(self.phase(), Phase::Sending | Phase::Idle) {
            self.pipelined.store(true, Ordering::Release);
        }
    }

    /// Whether it ever pipelined a request (see [`Self::note_request`]).
    pub(crate) fn pipelined(&self) -> bool {
        self.pipelined.load(Ordering::Acquire)
    }

    /// Its socket's descriptor (-1: none).
    pub(crate) fn fd(&self) -> i32 {
        self.fd
    }

    /// Notes bytes of a request read (`true`) or its answer handed to hyper
    /// (`false`).
    pub(crate) fn set_heard(&self, heard: bool) {
        self.heard.store(heard, Ordering::Release);
    }

    /// Whether a whole request head was read and its answer not handed to
    /// hyper yet (a head still arriving is no request yet: closing a slow
    /// client owes it nothing).
    pub(crate) fn owes_answer(&self) -> bool {
        self.heard.load(Ordering::Acquire) && matches!(self.phase(), Phase::Body | Phase::Busy)
    }

    pub(crate) fn is_evicted(&self) -> bool {
        self.evicted.load(Ordering::Acquire)
    }

    /// Marks it closed to make room; its task closes it.
    pub(crate) fn evict(&self) {
        self.evicted.store(true, Ordering::Release);
        self.changed.notify_one();
    }

    /// Waits until the last answer has left hyper's buffer (at once when
    /// none waits).
    pub(crate) async fn wait_flushed(&self) {
        loop {
            let flushed = self.flushed.notified();
            tokio::pin!(flushed);
            flushed.as_mut().enable();
            if self.phase() != Phase::Sending {
                return;
            }
            flushed.await;
        }
    }

    /// When the phase's time runs out (`None`: never, outside a drain).
    pub(crate) fn deadline(
        &self,
        limits: &ConnectionLimits,
        drain_deadline: Option<Instant>,
    ) -> Option<Instant> {
        let phase = self.phase();
        if let Some(drain) = drain_deadline {
            // Draining: only a whole request still being answered may go on.
            let answering = matches!(phase, Phase::Busy | Phase::Sending);
            return Some(if answering { drain } else { Instant::now() });
        }
        let limit = match phase {
            Phase::Head => limits.header,
            Phase::Body => limits.body,
            Phase::Sending => limits.send,
            Phase::Idle => limits.idle,
            Phase::Busy => return None,
        };
        Some(self.epoch + Duration::from_millis(self.since_ms()) + limit)
    }
}

/// The answer to a connection over the limit when no open one can be closed
/// (each is busy, or too new): 503 with a JSON-RPC body and `Retry-After`,
/// written without reading.
pub(crate) fn busy_response() -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: too many connections; retry"}}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            header: Duration::from_secs(10),
            body: Duration::from_secs(30),
            send: Duration::from_secs(30),
            idle: Duration::from_secs(90),
            drain: Duration::from_secs(25),
        }
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let epoch = Instant::now();
        let s = ConnState::new(epoch, None, -1);
        let d = s.deadline(&limits(), None).unwrap();
        assert!(d > Instant::now() + Duration::from_secs(9));
        assert!(d <= Instant::now() + Duration::from_secs(10));
        s.set(Phase::Busy);
        assert_eq!(s.deadline(&limits(), None), None);
        s.set(Phase::Sending);
        // An answer not read gets http.send_timeout_s.
        let d = s.deadline(&limits(), None).unwrap();
        assert!(
            d > Instant::now() + Duration::from_secs(29)
                && d <= Instant::now() + Duration::from_secs(30)
        );
        s.set(Phase::Idle);
        assert!(s.deadline(&limits(), None).unwrap() > Instant::now() + Duration::from_secs(89));
        // Draining: only busy connections may go on.
        let drain = Instant::now() + Duration::from_secs(25);
        assert!(s.deadline(&limits(), Some(drain)).unwrap() <= Instant::now());
        s.set(Phase::Busy);
        assert_eq!(s.deadline(&limits(), Some(drain)), Some(drain));
    }

    #[test]
    fn the_busy_answer_is_http() {
        let text = String::from_utf8(busy_response()).unwrap();
        assert!(text.starts_with("HTTP/1.1 503 "));
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let _: serde_json::Value = serde_json::from_str(body).unwrap();
    }
}
