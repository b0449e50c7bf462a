//! One HTTP/1.1 connection under its limits: what it is doing (its
//! [`Phase`]), how long it may do it (`http.header_timeout_s`,
//! `http.body_timeout_s`, `http.idle_timeout_s`), and how it ends on a
//! shutdown (in-flight calls finish within `http.drain_timeout_s`; a
//! connection that has not delivered a whole request is dropped at once).
//!
//! The table of open connections ([`ConnectionTable`]) is what keeps slow
//! clients from locking others out: at `http.max_connections`, a new
//! connection closes the oldest one still waiting for a request
//! ([`ConnectionTable::evict_one`]).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tower::ServiceExt;

use crate::shutdown::Shutdown;

/// What a connection is doing, which sets how long it may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Waiting for the head of a request: from the connection opening, or
    /// from the first byte of a later request (`http.header_timeout_s`).
    Head = 0,
    /// The head arrived; the body is on its way (`http.body_timeout_s`).
    Body = 1,
    /// A whole request arrived; its answer is being made or sent (no limit
    /// but the drain's).
    Busy = 2,
    /// Kept alive after an answer, no byte of a next request yet
    /// (`http.idle_timeout_s`).
    Idle = 3,
    /// The answer is complete but its last bytes may still wait in hyper's
    /// buffer: not to be closed yet (`http.idle_timeout_s`, in case the
    /// client never reads them).
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
pub struct ConnectionLimits {
    /// `http.header_timeout_s`.
    pub header: Duration,
    /// `http.body_timeout_s`.
    pub body: Duration,
    /// `http.idle_timeout_s`.
    pub idle: Duration,
    /// `http.drain_timeout_s`.
    pub drain: Duration,
}

/// One open connection's shared state: its phase and since when.
#[derive(Debug)]
pub struct ConnState {
    epoch: Instant,
    phase: AtomicU8,
    /// Milliseconds after `epoch` when the phase began.
    since: AtomicU64,
    evicted: AtomicBool,
    changed: Notify,
}

impl ConnState {
    fn new(epoch: Instant) -> Self {
        Self {
            epoch,
            phase: AtomicU8::new(Phase::Head as u8),
            since: AtomicU64::new(epoch.elapsed().as_millis() as u64),
            evicted: AtomicBool::new(false),
            changed: Notify::new(),
        }
    }

    /// The phase now.
    pub fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Acquire))
    }

    fn since_ms(&self) -> u64 {
        self.since.load(Ordering::Acquire)
    }

    fn set(&self, phase: Phase) {
        self.since
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::Release);
        self.phase.store(phase as u8, Ordering::Release);
        self.changed.notify_one();
    }

    /// Moves from `from` to `to` only if the phase is still `from`.
    fn advance(&self, from: Phase, to: Phase) {
        if self.phase() == from {
            self.set(to);
        }
    }

    /// When the phase's time runs out (`None`: never, outside a drain).
    fn deadline(
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
            Phase::Idle | Phase::Sending => limits.idle,
            Phase::Busy => return None,
        };
        Some(self.epoch + Duration::from_millis(self.since_ms()) + limit)
    }

    fn is_evictable(&self) -> bool {
        matches!(self.phase(), Phase::Head | Phase::Body | Phase::Idle)
            && !self.evicted.load(Ordering::Acquire)
    }
}

/// The open connections, for the connection limit and the drain.
#[derive(Debug)]
pub struct ConnectionTable {
    epoch: Instant,
    slots: Mutex<Slots>,
    emptied: Notify,
}

#[derive(Debug, Default)]
struct Slots {
    entries: Vec<Option<Arc<ConnState>>>,
    free: Vec<usize>,
    len: usize,
    /// The most connections open at once since [`ConnectionTable::take_highest`].
    highest: usize,
}

/// How many connections [`ConnectionTable::evict_one`] compares.
const EVICTION_SAMPLE: usize = 16;
/// A connection this young is never closed to make room: it has not had
/// the time to send its request (and the newest ones are the ones a burst
/// of connections would otherwise close at once).
const EVICTION_MIN_AGE: Duration = Duration::from_millis(100);

impl Default for ConnectionTable {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            slots: Mutex::default(),
            emptied: Notify::new(),
        }
    }
}

impl ConnectionTable {
    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Connections open (evicted ones no longer count).
    pub fn len(&self) -> usize {
        self.lock().len
    }

    /// The connections open now, and the most open at once since the last
    /// call (which starts counting again from now).
    pub fn take_highest(&self) -> (usize, usize) {
        let mut slots = self.lock();
        let highest = slots.highest.max(slots.len);
        slots.highest = slots.len;
        (slots.len, highest)
    }

    /// Whether no connection is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a new connection (in [`Phase::Head`]); returns its slot.
    fn insert(&self) -> (usize, Arc<ConnState>) {
        let state = Arc::new(ConnState::new(self.epoch));
        let mut slots = self.lock();
        slots.len += 1;
        slots.highest = slots.highest.max(slots.len);
        let slot = match slots.free.pop() {
            Some(i) => {
                slots.entries[i] = Some(state.clone());
                i
            }
            None => {
                slots.entries.push(Some(state.clone()));
                slots.entries.len() - 1
            }
        };
        (slot, state)
    }

    /// Removes the connection in `slot` if it is still `state`.
    fn remove(&self, slot: usize, state: &Arc<ConnState>) {
        let mut slots = self.lock();
        if slots.entries[slot]
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, state))
        {
            slots.entries[slot] = None;
            slots.free.push(slot);
            slots.len -= 1;
        }
        if slots.len == 0 {
            self.emptied.notify_waiters();
        }
    }

    /// Closes the connection that has waited longest for a request (idle, or
    /// with a head or body still arriving), among a random sample of the
    /// open ones. False when the sample holds only busy connections, or
    /// ones younger than a tenth of a second.
    pub fn evict_one(&self) -> bool {
        let now = self.epoch.elapsed().as_millis() as u64;
        let min_age = EVICTION_MIN_AGE.as_millis() as u64;
        let mut slots = self.lock();
        let n = slots.entries.len();
        if n == 0 {
            return false;
        }
        let candidates: Vec<usize> = if n <= EVICTION_SAMPLE * 4 {
            (0..n).collect()
        } else {
            (0..EVICTION_SAMPLE * 4)
                .map(|_| fastrand::usize(..n))
                .filter(|&i| slots.entries[i].is_some())
                .take(EVICTION_SAMPLE)
                .collect()
        };
        let victim = candidates
            .into_iter()
            .filter_map(|i| Some((i, slots.entries[i].as_ref()?)))
            .filter(|(_, s)| s.is_evictable() && s.since_ms() + min_age <= now)
            .min_by_key(|(_, s)| s.since_ms())
            .map(|(i, s)| (i, s.clone()));
        let Some((slot, state)) = victim else {
            return false;
        };
        state.evicted.store(true, Ordering::Release);
        state.changed.notify_one();
        slots.entries[slot] = None;
        slots.free.push(slot);
        slots.len -= 1;
        true
    }

    /// Waits until every connection is closed.
    pub async fn wait_empty(&self) {
        loop {
            let emptied = self.emptied.notified();
            if self.is_empty() {
                return;
            }
            emptied.await;
        }
    }
}

/// Serves one accepted connection until it closes, its time runs out, it
/// is evicted, or the drain (from when `drain` fires) ends it.
pub async fn serve_connection(
    stream: TcpStream,
    app: Router,
    table: Arc<ConnectionTable>,
    limits: ConnectionLimits,
    drain: Shutdown,
) {
    let _ = stream.set_nodelay(true);
    let (slot, state) = table.insert();
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        state: state.clone(),
    });
    let service_state = state.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let state = service_state.clone();
        let app = app.clone();
        async move {
            let (parts, body) = request.into_parts();
            if http_body::Body::is_end_stream(&body) {
                state.set(Phase::Busy);
            } else {
                state.set(Phase::Body);
            }
            let body = Body::new(TrackedRequestBody {
                inner: body,
                state: state.clone(),
            });
            let response = app.oneshot(Request::from_parts(parts, body)).await?;
            Ok::<_, std::convert::Infallible>(
                response.map(|body| TrackedResponseBody { inner: body, state }),
            )
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let mut drain_deadline = None;
    loop {
        if state.evicted.load(Ordering::Acquire) {
            tracing::debug!("closed a connection waiting for a request to make room for a new one");
            break;
        }
        let deadline = state.deadline(&limits, drain_deadline);
        if deadline.is_some_and(|d| d <= Instant::now()) {
            if drain_deadline.is_none() {
                tracing::debug!(phase = ?state.phase(), "closed a connection whose time ran out");
            }
            break;
        }
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                break;
            }
            () = sleep => {}
            () = state.changed.notified() => {}
            () = drain.wait(), if drain_deadline.is_none() => {
                drain_deadline = Some(Instant::now() + limits.drain);
                // Answers from now on carry `Connection: close`.
                conn.as_mut().graceful_shutdown();
            }
        }
    }
    table.remove(slot, &state);
}

/// The socket, noting the first byte of a request after an idle spell.
struct TrackedIo {
    inner: TcpStream,
    state: Arc<ConnState>,
}

impl AsyncRead for TrackedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.state.advance(Phase::Idle, Phase::Head);
        }
        polled
    }
}

impl AsyncWrite for TrackedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) {
            // hyper flushes once the whole answer is written.
            self.state.advance(Phase::Sending, Phase::Idle);
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request body that marks the request whole once its last byte arrived.
struct TrackedRequestBody {
    inner: Incoming,
    state: Arc<ConnState>,
}

impl http_body::Body for TrackedRequestBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let ended = match &polled {
            Poll::Ready(None) => true,
            Poll::Ready(Some(Ok(_))) => self.inner.is_end_stream(),
            _ => false,
        };
        if ended {
            self.state.advance(Phase::Body, Phase::Busy);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that marks the answer complete once hyper has taken all
/// of it (it drops the body then, and flushes after).
struct TrackedResponseBody {
    inner: Body,
    state: Arc<ConnState>,
}

impl Drop for TrackedResponseBody {
    fn drop(&mut self) {
        self.state.set(Phase::Sending);
    }
}

impl http_body::Body for TrackedResponseBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The answer to a connection over the limit when no open one can be closed
/// (each is busy, or too new): 503 with a JSON-RPC body and `Retry-After`,
/// written without reading.
pub fn busy_response() -> Vec<u8> {
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
            idle: Duration::from_secs(90),
            drain: Duration::from_secs(25),
        }
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let epoch = Instant::now();
        let s = ConnState::new(epoch);
        let d = s.deadline(&limits(), None).unwrap();
        assert!(d > Instant::now() + Duration::from_secs(9));
        assert!(d <= Instant::now() + Duration::from_secs(10));
        s.set(Phase::Busy);
        assert_eq!(s.deadline(&limits(), None), None);
        s.set(Phase::Sending);
        assert!(!s.is_evictable());
        s.set(Phase::Idle);
        assert!(s.is_evictable());
        assert!(s.deadline(&limits(), None).unwrap() > Instant::now() + Duration::from_secs(89));
        // Draining: only busy connections may go on.
        let drain = Instant::now() + Duration::from_secs(25);
        assert!(s.deadline(&limits(), Some(drain)).unwrap() <= Instant::now());
        s.set(Phase::Busy);
        assert_eq!(s.deadline(&limits(), Some(drain)), Some(drain));
    }

    #[test]
    fn eviction_takes_the_oldest_waiting_connection_never_a_busy_one() {
        let table = ConnectionTable::default();
        let (_, busy) = table.insert();
        busy.set(Phase::Busy);
        assert!(!table.evict_one());
        let (_, old) = table.insert();
        std::thread::sleep(Duration::from_millis(5));
        let (_, young) = table.insert();
        assert_eq!(table.len(), 3);
        // Both are too young to be closed yet.
        assert!(!table.evict_one());
        std::thread::sleep(EVICTION_MIN_AGE);
        assert!(table.evict_one());
        assert!(old.evicted.load(Ordering::Acquire));
        assert!(!young.evicted.load(Ordering::Acquire));
        assert_eq!(table.len(), 2);
        assert!(table.evict_one());
        assert!(young.evicted.load(Ordering::Acquire));
        assert!(!table.evict_one());
        assert!(!busy.evicted.load(Ordering::Acquire));
    }

    #[test]
    fn the_highest_count_since_the_last_look_is_kept_then_reset() {
        let table = ConnectionTable::default();
        let opened: Vec<_> = (0..5).map(|_| table.insert()).collect();
        for (slot, state) in &opened[..4] {
            table.remove(*slot, state);
        }
        assert_eq!(table.take_highest(), (1, 5));
        // Counting starts again from the connections open now.
        assert_eq!(table.take_highest(), (1, 1));
        let (slot, state) = table.insert();
        table.remove(slot, &state);
        assert_eq!(table.take_highest(), (1, 2));
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
