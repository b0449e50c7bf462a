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
//! [`MAX_BUF_BYTES`] of requests read ahead, not all of their answers).
//!
//! A client that closes its connection while its call runs has left, and
//! its call is cancelled (MCP 2026-07-28: a disconnect is a cancellation):
//! hyper sees the end of the stream, the connection ends, and dropping the
//! request's future makes rmcp cancel the call, which stops its Keeper
//! request; the slot is given back at once. A client that only shuts its
//! sending side (`shutdown(SHUT_WR)`) cannot be told apart from one that
//! closed, so it is taken as gone too, as Go's `net/http` and nginx do
//! (hyper's `half_close` is off).
//!
//! The table of open connections ([`ConnectionTable`]) is what keeps slow
//! clients from locking others out: at `http.max_connections`, a new
//! connection closes one that is waiting or stalled
//! ([`ConnectionTable::evict_one`]).

pub(crate) mod accept;
pub(crate) mod fd_limit;
pub(crate) mod heap_trim;
pub(crate) mod peer;
pub(crate) mod state;
pub(crate) mod table;

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::ServiceExt;

use crate::http::connection::peer::PeerRules;
use crate::http::connection::state::{ConnState, ConnectionLimits, Phase};
use crate::http::connection::table::{Admission, ConnectionTable};
use crate::shutdown::Shutdown;

/// The connection a request came on, in each request's extensions: unique
/// for the life of the process (an anonymous caller's cancellation reaches
/// only its own connection's calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ConnectionId(pub(crate) u64);

impl ConnectionId {
    /// A connection's id, never given before.
    pub(crate) fn next() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Self(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// hyper's read and write buffer limit for one connection: a request head
/// must fit in it, and it bounds the pipelined requests read ahead.
pub(crate) const MAX_BUF_BYTES: usize = 64 * 1024;

/// Bytes of answers the kernel may hold for a connection beyond what the
/// client's window lets out (`TCP_NOTSENT_LOWAT`): past it, a client that
/// does not read stalls hyper's writes, instead of the kernel taking
/// megabytes of answers and the calls going on.
pub(crate) const MAX_UNSENT_BYTES: usize = 64 * 1024;

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

/// Serves one accepted connection (counted in `table` as `admission`) until
/// it closes, its time runs out, it is evicted, or the drain (from when
/// `drain` fires) ends it. Behind a proxy `rules` trusts, it is counted
/// under the client the proxy forwards from its first request on.
pub(crate) async fn serve_connection(
    stream: TcpStream,
    admission: Admission,
    app: Router,
    table: Arc<ConnectionTable>,
    limits: ConnectionLimits,
    rules: PeerRules,
    drain: Shutdown,
) {
    let _ = stream.set_nodelay(true);
    limit_unsent(&stream);
    let state = admission.state.clone();
    let slot = admission.slot;
    // Given back however this task ends, a panic included.
    let slot_guard = Slot {
        table: table.clone(),
        admission,
    };
    let io = TokioIo::new(TrackedIo {
        inner: stream,
        state: state.clone(),
    });
    let service_state = state.clone();
    let connection = ConnectionId::next();
    let service_table = table.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let state = service_state.clone();
        let app = app.clone();
        let client = state
            .peer
            .and_then(|socket| rules.client_of(socket, request.headers()));
        if let Some(client) = client {
            service_table.set_client(slot, &state, client);
        }
        async move {
            // A pipelined request marks its connection first to close at the
            // limit, and waits for the answer before it to be read (the
            // connection's time is then `http.send_timeout_s`'s).
            state.note_request();
            state.wait_flushed().await;
            let (mut parts, body) = request.into_parts();
            parts.extensions.insert(connection);
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
            // From here hyper writes the answer: a cut now is no 503.
            state.set_heard(false);
            Ok::<_, std::convert::Infallible>(
                response.map(|body| TrackedResponseBody { inner: body, state }),
            )
        }
    });
    let mut conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        // The end of the stream while a call runs: the client left (see above).
        .half_close(false)
        .max_buf_size(MAX_BUF_BYTES)
        .serve_connection(io, service);
    let mut drain_deadline = None;
    let evicted = loop {
        if state.is_evicted() {
            break true;
        }
        let deadline = state.deadline(&limits, drain_deadline);
        if deadline.is_some_and(|d| d <= Instant::now()) {
            if drain_deadline.is_none() {
                tracing::debug!(phase = ?state.phase(), "closed a connection whose time ran out");
            }
            break false;
        }
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            result = Pin::new(&mut conn) => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                break false;
            }
            () = sleep => {}
            () = state.changed.notified() => {}
            () = drain.wait(), if drain_deadline.is_none() => {
                drain_deadline = Some(Instant::now() + limits.drain);
                // Answers from now on carry `Connection: close`.
                Pin::new(&mut conn).graceful_shutdown();
            }
        }
    };
    if evicted {
        // Closed to make room: a request it holds (a call, cut now, or one
        // that arrived unread) is answered 503, never left without a word.
        let parts = conn.into_parts();
        let stream = parts.io.into_inner().inner;
        let owes = state.owes_answer() || peer::bytes_waiting(state.fd());
        tracing::debug!(phase = ?state.phase(), owes, "closed a connection to make room for a new one");
        drop(parts.service);
        if owes {
            table.refuse(stream).await;
        }
    }
    drop(slot_guard);
}

/// A connection's place in the table, given back when dropped.
struct Slot {
    table: Arc<ConnectionTable>,
    admission: Admission,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.table.remove(&self.admission);
    }
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
            self.state.set_heard(true);
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_pipelined_request_waits_until_the_answer_before_it_left() {
        let s = Arc::new(ConnState::new(Instant::now(), None, -1));
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
}
