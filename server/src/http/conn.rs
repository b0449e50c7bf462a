//! One HTTP/1.1 connection under its limits: what it is doing (its
//! [`Phase`]), how long it may do it (`http.header_timeout_s`,
//! `http.body_timeout_s`, `http.send_timeout_s`, `http.idle_timeout_s`),
//! and how it ends on a shutdown (in-flight calls finish within
//! `http.drain_timeout_s`; a connection that has not delivered a whole
//! request is dropped at once).
//!
//! Pipelined requests wait: the next request on a connection is not
//! answered before the previous answer has left hyper's buffer (a client
//! that sends many requests and reads none holds one answer, and at most
//! [`MAX_BUF_BYTES`] of requests read ahead, not all of their answers). A
//! client that half-closes its side after its request still gets the answer
//! (RFC 9112, section 9.6; hyper's `half_close`).
//!
//! The table of open connections ([`ConnectionTable`]) is what keeps slow
//! clients from locking others out: at `http.max_connections`, a new
//! connection closes one that is waiting or stalled
//! ([`ConnectionTable::evict_one`]).

use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
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

use crate::http::conn_table::{Admission, ConnectionTable};
use crate::shutdown::Shutdown;

/// hyper's read and write buffer limit for one connection: a request head
/// must fit in it, and it bounds the pipelined requests read ahead.
pub const MAX_BUF_BYTES: usize = 64 * 1024;

/// Bytes of answers the kernel may hold for a connection beyond what the
/// client's window lets out (`TCP_NOTSENT_LOWAT`): past it, a client that
/// does not read stalls hyper's writes, instead of the kernel taking
/// megabytes of answers and the calls going on.
pub const MAX_UNSENT_BYTES: usize = 64 * 1024;

/// Bounds the answers the kernel holds unsent for `stream` (Linux; a no-op
/// elsewhere, and where the option is refused).
fn limit_unsent(stream: &TcpStream) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let value = MAX_UNSENT_BYTES as libc::c_int;
        // SAFETY: a valid socket descriptor, and a c_int option value of the
        // size passed.
        let set = unsafe {
            libc::setsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_NOTSENT_LOWAT,
                std::ptr::from_ref(&value).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if set != 0 {
            tracing::debug!(error = %io::Error::last_os_error(), "cannot set TCP_NOTSENT_LOWAT");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stream;
}

/// What a connection is doing, which sets how long it may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
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
pub struct ConnectionLimits {
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
    pub fn of(http: &herald_core::config::HttpSettings) -> Self {
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
pub struct ConnState {
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
    evicted: AtomicBool,
    changed: Notify,
    /// Notified when an answer has left hyper's buffer.
    flushed: Notify,
}

impl ConnState {
    pub(crate) fn new(epoch: Instant, peer: Option<IpAddr>) -> Self {
        let now = epoch.elapsed().as_millis() as u64;
        Self {
            epoch,
            peer,
            opened: now,
            phase: AtomicU8::new(Phase::Head as u8),
            since: AtomicU64::new(now),
            answered: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            changed: Notify::new(),
            flushed: Notify::new(),
        }
    }

    /// The phase now.
    pub fn phase(&self) -> Phase {
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
    fn advance(&self, from: Phase, to: Phase) {
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
    async fn wait_flushed(&self) {
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
            Phase::Sending => limits.send,
            Phase::Idle => limits.idle,
            Phase::Busy => return None,
        };
        Some(self.epoch + Duration::from_millis(self.since_ms()) + limit)
    }
}

/// Serves one accepted connection (counted in `table` as `admission`) until
/// it closes, its time runs out, it is evicted, or the drain (from when
/// `drain` fires) ends it.
pub async fn serve_connection(
    stream: TcpStream,
    admission: Admission,
    app: Router,
    table: Arc<ConnectionTable>,
    limits: ConnectionLimits,
    drain: Shutdown,
) {
    let _ = stream.set_nodelay(true);
    limit_unsent(&stream);
    let state = admission.state.clone();
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        state: state.clone(),
    });
    let service_state = state.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let state = service_state.clone();
        let app = app.clone();
        async move {
            // A pipelined request waits for the answer before it to be read
            // (the connection's time is then `http.send_timeout_s`'s).
            state.wait_flushed().await;
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
        // A client that shut its side down after the request reads the answer.
        .half_close(true)
        .max_buf_size(MAX_BUF_BYTES)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let mut drain_deadline = None;
    loop {
        if state.is_evicted() {
            tracing::debug!(phase = ?state.phase(), "closed a waiting or stalled connection to make room for a new one");
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
    table.remove(&admission);
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
        self.state.mark_answered();
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
            send: Duration::from_secs(30),
            idle: Duration::from_secs(90),
            drain: Duration::from_secs(25),
        }
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let epoch = Instant::now();
        let s = ConnState::new(epoch, None);
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

    #[tokio::test]
    async fn a_pipelined_request_waits_until_the_answer_before_it_left() {
        let s = Arc::new(ConnState::new(Instant::now(), None));
        // Nothing waits to be sent: at once.
        s.wait_flushed().await;
        s.set(Phase::Sending);
        let waiting = tokio::spawn({
            let s = s.clone();
            async move { s.wait_flushed().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        s.advance(Phase::Sending, Phase::Idle);
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("released by the flush")
            .unwrap();
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
