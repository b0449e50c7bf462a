//! The stdio transport: one JSON-RPC message a line on stdin and stdout, over
//! rmcp's pipes ([`rmcp::transport::stdio_pipes`]), with what rmcp's own
//! line transport does not do:
//!
//! - each line is bounded before rmcp builds a tree of it: at most
//!   [`MAX_LINE_BYTES`] (the rest of a longer line is skipped as it
//!   arrives, never kept), then the bounds of every message
//!   ([`crate::mcp::refused`]: JSON values, nesting), as over HTTP;
//! - a line that is refused gets its JSON-RPC answer: -32700 when it is not
//!   JSON (invalid UTF-8, a NUL, nesting past 128 levels), -32600 when it is
//!   not one message or too long, a tool error to a call with too many
//!   values; rmcp dropped them without a word;
//! - a host that closes Herald's stdout ends the session: the pipe's reader
//!   gone (the kernel reports it at once, EPOLLERR) or a write that fails
//!   (EPIPE) fires `gone`, which shuts Herald down; calls in flight are
//!   cancelled, no later message is read, and nothing more is written.
//!
//! Answers go through one writer task that owns stdout, so a line is never
//! cut by another.
//!
//! **Back-pressure.** rmcp runs each request on a task of its own and hands
//! each answer to [`Transport::send`] on another; it reads the next message
//! whatever is still owed. So the transport counts what it owes
//! ([`OwedAnswers`]): a request read takes one of [`OWED_ANSWERS`] permits,
//! given back when its answer is written to stdout (or when the host
//! cancels it: rmcp then answers nothing). With every permit taken, the next
//! request read is held and no further line is read, so a host that does not
//! read stdout stops Herald reading stdin: calls in flight plus answers not
//! yet written stay within [`OWED_ANSWERS`], and so do the Keeper connections
//! they open. Nothing is dropped: the held request is passed on when a
//! permit comes back, and answers are written in the order they are made.
//! A request reusing the id of one not yet answered is refused (`-32600`),
//! so every permit has exactly one answer to come back with.

use std::collections::HashSet;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::mcp::refused;
use crate::shutdown::Shutdown;

/// The longest line taken (rmcp's own cap, 16 MiB): one message, whatever
/// its values; past it, `-32600`.
pub(crate) const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Lines waiting for the writer (answers are small; the bound is the
/// back-pressure on a host that does not read).
const OUTBOX_LINES: usize = 64;

/// Requests read and not yet answered on stdout (running, or their answer
/// waiting for the writer) before Herald stops reading stdin.
pub(crate) const OWED_ANSWERS: usize = 64;

/// A line buffer larger than this is given back after its line.
const KEPT_CAPACITY: usize = 64 * 1024;

/// How long closing waits for the answers still queued to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// The stdio transport (see the module documentation).
pub(crate) struct StdioTransport<R> {
    input: BufReader<R>,
    line: Vec<u8>,
    /// Skipping the rest of a line past [`MAX_LINE_BYTES`].
    skipping: bool,
    /// Lines for the writer; `None` once closed.
    outbox: Option<mpsc::Sender<Outgoing>>,
    /// What is owed to the host: the back-pressure on stdin.
    owed: Arc<OwedAnswers>,
    /// A request read while every permit was taken: passed on first.
    held: Option<Box<RxJsonRpcMessage<RoleServer>>>,
    /// A refusal's answer not yet handed to the writer (`receive` may be
    /// dropped while it waits).
    pending: Option<Vec<u8>>,
    gone: CancellationToken,
    writer: Option<JoinHandle<()>>,
}

/// A line for the writer, and the request it answers (its permit comes back
/// once the line is written).
struct Outgoing {
    line: Vec<u8>,
    answers: Option<RequestId>,
}

/// The requests read whose answers are not written yet, each holding one
/// of [`OWED_ANSWERS`] permits.
#[derive(Debug)]
struct OwedAnswers {
    permits: Arc<Semaphore>,
    /// The ids owed; a permit is given back once per id (its answer written
    /// or the request cancelled, whichever comes first).
    ids: Mutex<HashSet<RequestId>>,
}

impl OwedAnswers {
    fn new(bound: usize) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(bound)),
            ids: Mutex::new(HashSet::new()),
        }
    }

    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a request with `id` is still owed its answer.
    fn is_owed(&self, id: &RequestId) -> bool {
        self.ids().contains(id)
    }

    /// Takes `permit` for the request `id`.
    fn owe(&self, id: RequestId, permit: OwnedSemaphorePermit) {
        permit.forget();
        self.ids().insert(id);
    }

    /// `id` is answered (or cancelled): its permit comes back, once.
    fn settle(&self, id: &RequestId) {
        if self.ids().remove(id) {
            self.permits.add_permits(1);
        }
    }
}

/// Outcome of one bounded line read.
enum LineRead {
    /// A whole line is in the buffer.
    Line,
    /// The line was longer than [`MAX_LINE_BYTES`]; it was skipped.
    TooLong,
    /// The host closed stdin.
    Eof,
    /// Reading failed.
    Failed(io::Error),
}

/// What a line holds.
enum Decoded {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// A refusal: its answer line.
    Answer(Vec<u8>),
    /// Nothing to do (a blank line, a notification rmcp does not know).
    Nothing,
}

impl StdioTransport<rmcp::transport::StdioReader> {
    /// Over the process's stdin and stdout; when the host closes stdout,
    /// `shutdown` fires (the session and the process end).
    pub(crate) fn over_stdio(shutdown: &Shutdown) -> Self {
        let (reader, writer) = rmcp::transport::stdio_pipes();
        let gone = CancellationToken::new();
        watch_stdout(gone.clone());
        let ending = gone.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = ending.cancelled() => shutdown.trigger(),
                () = shutdown.wait() => {}
            }
        });
        Self::new(reader, writer, gone)
    }
}

impl<R: AsyncRead + Send + Unpin> StdioTransport<R> {
    /// Over `reader` and `writer`; `gone` fires when a write fails (and
    /// stops the transport when fired from outside).
    pub(crate) fn new<W>(reader: R, writer: W, gone: CancellationToken) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Self::bounded(reader, writer, gone, OWED_ANSWERS)
    }

    /// [`Self::new`] owing at most `owed` answers.
    fn bounded<W>(reader: R, writer: W, gone: CancellationToken, owed: usize) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (outbox, lines) = mpsc::channel(OUTBOX_LINES);
        let owed = Arc::new(OwedAnswers::new(owed));
        let writer = tokio::spawn(write_lines(writer, lines, Arc::clone(&owed), gone.clone()));
        Self {
            input: BufReader::new(reader),
            line: Vec::new(),
            skipping: false,
            outbox: Some(outbox),
            owed,
            held: None,
            pending: None,
            gone,
            writer: Some(writer),
        }
    }

    /// Reads one line into `self.line`, never past [`MAX_LINE_BYTES`].
    /// Cancel-safe: what was read stays in the buffer for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (consumed, ended) = {
                let available = match self.input.fill_buf().await {
                    Ok(available) => available,
                    Err(e) => return LineRead::Failed(e),
                };
                if available.is_empty() {
                    return LineRead::Eof;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                if !self.skipping {
                    if self.line.len() + take > MAX_LINE_BYTES {
                        self.skipping = true;
                        self.line = Vec::new();
                    } else {
                        self.line.extend_from_slice(&available[..take]);
                    }
                }
                (take, newline.is_some())
            };
            self.input.consume(consumed);
            if ended {
                if std::mem::take(&mut self.skipping) {
                    return LineRead::TooLong;
                }
                return LineRead::Line;
            }
        }
    }

    /// Hands the pending refusal to the writer; false when it is gone.
    async fn flush_pending(&mut self) -> bool {
        if self.pending.is_none() {
            return true;
        }
        let Some(outbox) = &self.outbox else {
            return false;
        };
        match outbox.reserve().await {
            Ok(permit) => {
                if let Some(line) = self.pending.take() {
                    permit.send(Outgoing {
                        line,
                        answers: None,
                    });
                }
                true
            }
            Err(_) => false,
        }
    }

    /// Passes on the held request once a permit is free (cancel-safe: it
    /// stays held while waiting); `None` when the host is gone.
    async fn release_held(&mut self) -> Option<Box<RxJsonRpcMessage<RoleServer>>> {
        let message = self.held.take()?;
        let JsonRpcMessage::Request(request) = message.as_ref() else {
            return Some(message);
        };
        let id = request.id.clone();
        self.held = Some(message);
        let permits = Arc::clone(&self.owed.permits);
        let permit = tokio::select! {
            biased;
            () = self.gone.cancelled() => return None,
            permit = permits.acquire_owned() => permit.ok()?,
        };
        self.owed.owe(id, permit);
        self.held.take()
    }

    /// What to do with a message read: a request takes a permit (or is held
    /// until one is free; one reusing an owed id is refused); a cancellation
    /// gives its request's permit back; anything else passes.
    fn admit(&mut self, message: Box<RxJsonRpcMessage<RoleServer>>) -> Admitted {
        match message.as_ref() {
            JsonRpcMessage::Request(request) => {
                if self.owed.is_owed(&request.id) {
                    tracing::debug!(id = %request.id, "refused a request reusing the id of one not yet answered");
                    let mut answer = refused::error_answer(
                        -32600,
                        "Invalid Request: the id of a request not yet answered",
                    );
                    answer["id"] = request.id.clone().into_json_value();
                    return Admitted::Refused(answer_line(&answer));
                }
                match Arc::clone(&self.owed.permits).try_acquire_owned() {
                    Ok(permit) => {
                        self.owed.owe(request.id.clone(), permit);
                        Admitted::Pass(message)
                    }
                    Err(_) => {
                        tracing::debug!(
                            owed = OWED_ANSWERS,
                            "every answer owed is unwritten or running: reading stdin waits"
                        );
                        self.held = Some(message);
                        Admitted::Held
                    }
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    // rmcp drops a cancelled request's answer.
                    self.owed.settle(id);
                }
                Admitted::Pass(message)
            }
            _ => Admitted::Pass(message),
        }
    }
}

/// What [`StdioTransport::admit`] made of a message.
enum Admitted {
    /// For rmcp now.
    Pass(Box<RxJsonRpcMessage<RoleServer>>),
    /// Held until a permit is free.
    Held,
    /// Refused: its answer line.
    Refused(Vec<u8>),
}

impl<R: AsyncRead + Send + Unpin> Transport<RoleServer> for StdioTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let outbox = self.outbox.clone();
        let gone = self.gone.clone();
        let answers = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            let line = Outgoing { line, answers };
            let Some(outbox) = outbox else {
                return Err(io::Error::new(
                    io::ErrorKind::NotConnected,
                    "the stdio transport is closed",
                ));
            };
            match outbox.send(line).await {
                Ok(()) => Ok(()),
                // The host closed stdout: nobody to answer, nothing to log.
                Err(_) if gone.is_cancelled() => Ok(()),
                Err(_) => Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "stdout is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            if self.held.is_some() {
                return self.release_held().await.map(|message| *message);
            }
            let gone = self.gone.clone();
            let read = tokio::select! {
                biased;
                () = gone.cancelled() => return None,
                read = self.read_line() => read,
            };
            match read {
                LineRead::Line => {}
                LineRead::TooLong => {
                    tracing::warn!(
                        limit = MAX_LINE_BYTES,
                        "refused a stdio message longer than the limit"
                    );
                    self.pending = Some(answer_line(&refused::error_answer(
                        -32600,
                        &format!(
                            "Invalid Request: a message is at most {MAX_LINE_BYTES} bytes on one line; this one was longer"
                        ),
                    )));
                    continue;
                }
                LineRead::Eof => return None,
                LineRead::Failed(e) => {
                    tracing::info!(error = %e, "cannot read stdin: ending the session");
                    return None;
                }
            }
            let decoded = decode(&self.line);
            self.line.clear();
            if self.line.capacity() > KEPT_CAPACITY {
                self.line = Vec::new();
            }
            match decoded {
                Decoded::Message(message) => match self.admit(message) {
                    Admitted::Pass(message) => return Some(*message),
                    Admitted::Held => {}
                    Admitted::Refused(line) => self.pending = Some(line),
                },
                Decoded::Answer(line) => self.pending = Some(line),
                Decoded::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        // The writer ends once the lines queued are written.
        self.outbox = None;
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, writer).await;
        }
        Ok(())
    }
}

/// What `line` (with its line end) holds: a message for rmcp, a refusal's
/// answer, or nothing.
fn decode(line: &[u8]) -> Decoded {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259, section 8.1: a parser may ignore a leading byte order mark.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Nothing;
    }
    let probed = match refused::check(line) {
        Ok(probed) => probed,
        Err(refused) => return Decoded::Answer(answer_line(&refused.answer)),
    };
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Decoded::Message(Box::new(message)),
        // JSON-RPC answers no notification.
        Err(e) if probed.id.is_none() => {
            tracing::debug!(error = %e, "ignored a notification that is not an MCP one");
            Decoded::Nothing
        }
        Err(e) => {
            tracing::debug!(error = %e, "refused a message that is not a JSON-RPC request or response");
            let mut answer = refused::error_answer(
                -32600,
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
            );
            answer["id"] = refused::id_value(probed.id.as_ref());
            Decoded::Answer(answer_line(&answer))
        }
    }
}

/// `answer` as a line.
fn answer_line(answer: &Value) -> Vec<u8> {
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Writes the queued lines to `out` until the queue closes or `gone`
/// fires; a failed write (the host closed stdout) fires `gone`.
/// An answer's permit comes back once its line is written.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut lines: mpsc::Receiver<Outgoing>,
    owed: Arc<OwedAnswers>,
    gone: CancellationToken,
) {
    loop {
        let line = tokio::select! {
            biased;
            () = gone.cancelled() => return,
            line = lines.recv() => line,
        };
        let Some(Outgoing { line, answers }) = line else {
            let _ = out.flush().await;
            return;
        };
        let written = tokio::select! {
            biased;
            () = gone.cancelled() => return,
            written = async {
                out.write_all(&line).await?;
                out.flush().await
            } => written,
        };
        if let Err(e) = written {
            tracing::info!(error = %e, "cannot write to stdout (the host closed it): ending the session");
            gone.cancel();
            return;
        }
        if let Some(id) = answers {
            owed.settle(&id);
        }
    }
}

/// Fires `gone` as soon as the reader of stdout goes away (a pipe's write
/// end reports an error then, before anything is written). Where stdout
/// cannot be watched (a file, `/dev/null`), a failed write still does it.
fn watch_stdout(gone: CancellationToken) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::io::Interest;
        use tokio::io::unix::AsyncFd;

        let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else {
            return;
        };
        // SAFETY: `fd` is an OwnedFd the AsyncFd owns: open, the same
        // description, and the same number until it is dropped.
        let registered = unsafe { AsyncFd::register_with_interest(fd, Interest::ERROR) };
        let watched = match registered {
            Ok(watched) => watched,
            Err(e) => {
                tracing::debug!(error = %e, "stdout cannot be watched; a failed write ends the session");
                return;
            }
        };
        tokio::spawn(async move {
            tokio::select! {
                () = gone.cancelled() => {}
                ready = watched.ready(Interest::ERROR) => {
                    if ready.is_ok() {
                        tracing::info!("the host closed Herald's stdout: ending the session");
                        gone.cancel();
                    }
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = gone;
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, duplex};

    use super::*;

    /// A transport over in-memory pipes: what the host writes, what it reads.
    fn pipes() -> (
        StdioTransport<tokio::io::DuplexStream>,
        tokio::io::DuplexStream,
        tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
        CancellationToken,
    ) {
        pipes_owing(OWED_ANSWERS)
    }

    /// [`pipes`] owing at most `owed` answers.
    fn pipes_owing(
        owed: usize,
    ) -> (
        StdioTransport<tokio::io::DuplexStream>,
        tokio::io::DuplexStream,
        tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
        CancellationToken,
    ) {
        let (host_in, herald_in) = duplex(1 << 16);
        let (herald_out, host_out) = duplex(1 << 16);
        let gone = CancellationToken::new();
        let t = StdioTransport::bounded(herald_in, herald_out, gone.clone(), owed);
        (t, host_in, BufReader::new(host_out).lines(), gone)
    }

    async fn answer(lines: &mut tokio::io::Lines<BufReader<tokio::io::DuplexStream>>) -> Value {
        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap()
    }

    #[tokio::test]
    async fn lines_that_are_not_json_are_answered_and_the_next_message_read() {
        let (mut t, mut host, mut lines, _) = pipes();
        host.write_all(
            b"\xff\n{\"a\": \x00}\n\n[]\n{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"ping\"}\n",
        )
        .await
        .unwrap();
        let message = t.receive().await.expect("the ping");
        assert!(matches!(message, rmcp::model::JsonRpcMessage::Request(_)));
        for code in [-32700, -32700, -32600] {
            let a = answer(&mut lines).await;
            assert_eq!(a["error"]["code"], code, "{a}");
            assert_eq!(a["id"], Value::Null);
        }
    }

    #[tokio::test]
    async fn a_line_past_the_cap_is_skipped_and_answered() {
        let (mut t, mut host, mut lines, _) = pipes();
        let writing = tokio::spawn(async move {
            let chunk = vec![b'a'; 1 << 16];
            for _ in 0..(MAX_LINE_BYTES >> 16) + 1 {
                host.write_all(&chunk).await.unwrap();
            }
            host.write_all(
                b"\n{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n",
            )
            .await
            .unwrap();
            host
        });
        assert!(t.receive().await.is_some());
        assert!(t.line.capacity() <= KEPT_CAPACITY);
        let a = answer(&mut lines).await;
        assert_eq!(a["error"]["code"], -32600);
        drop(writing.await.unwrap());
        assert!(t.receive().await.is_none(), "stdin closed");
    }

    #[tokio::test]
    async fn a_message_rmcp_cannot_read_gets_invalid_request_with_its_id() {
        let (mut t, mut host, mut lines, _) = pipes();
        host.write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": 5}\n{\"jsonrpc\": \"2.0\", \"method\": 5}\n")
            .await
            .unwrap();
        drop(host);
        assert!(t.receive().await.is_none());
        let a = answer(&mut lines).await;
        assert_eq!(a["id"], 7, "{a}");
        assert_eq!(a["error"]["code"], -32600);
    }

    fn ping(id: i64) -> String {
        format!("{{\"jsonrpc\": \"2.0\", \"id\": {id}, \"method\": \"ping\"}}\n")
    }

    fn id_of(message: &RxJsonRpcMessage<RoleServer>) -> Value {
        match message {
            JsonRpcMessage::Request(r) => r.id.clone().into_json_value(),
            other => panic!("not a request: {other:?}"),
        }
    }

    fn result_for(id: i64) -> TxJsonRpcMessage<RoleServer> {
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": id, "result": {}})).unwrap()
    }

    #[tokio::test]
    async fn reading_waits_while_the_answers_owed_reach_the_bound() {
        let (mut t, mut host_in, mut lines, _) = pipes_owing(2);
        host_in
            .write_all(format!("{}{}{}", ping(1), ping(2), ping(3)).as_bytes())
            .await
            .unwrap();
        assert_eq!(id_of(&t.receive().await.unwrap()), 1);
        assert_eq!(id_of(&t.receive().await.unwrap()), 2);
        // Two owed: the third is read and held, nothing after it is read.
        host_in
            .write_all(b"{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n")
            .await
            .unwrap();
        let waited = tokio::time::timeout(Duration::from_millis(200), t.receive()).await;
        assert!(waited.is_err(), "a third request was passed on");
        assert!(t.held.is_some());
        // Answer 2 (sent, then written): the held request comes through.
        t.send(result_for(2)).await.unwrap();
        assert_eq!(answer(&mut lines).await["id"], 2);
        assert_eq!(id_of(&t.receive().await.unwrap()), 3);
        // Then the notification after it, in order.
        assert!(matches!(
            t.receive().await.unwrap(),
            JsonRpcMessage::Notification(_)
        ));
    }

    #[tokio::test]
    async fn a_cancelled_request_gives_its_place_back_and_an_owed_id_is_refused() {
        let (mut t, mut host_in, mut lines, _) = pipes_owing(1);
        host_in.write_all(ping(1).as_bytes()).await.unwrap();
        assert_eq!(id_of(&t.receive().await.unwrap()), 1);
        // Reusing id 1 while it is owed: refused with that id.
        host_in.write_all(ping(1).as_bytes()).await.unwrap();
        host_in
            .write_all(b"{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": {\"requestId\": 1}}\n")
            .await
            .unwrap();
        assert!(matches!(
            t.receive().await.unwrap(),
            JsonRpcMessage::Notification(_)
        ));
        let refused = answer(&mut lines).await;
        assert_eq!(refused["id"], 1, "{refused}");
        assert_eq!(refused["error"]["code"], -32600);
        // The cancel gave the permit back: the next request passes.
        host_in.write_all(ping(2).as_bytes()).await.unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), t.receive()).await;
        assert_eq!(id_of(&next.unwrap().unwrap()), 2);
    }

    #[tokio::test]
    async fn a_failed_write_fires_gone_and_ends_receiving() {
        let (host_in, herald_in) = duplex(64);
        let (herald_out, host_out) = duplex(64);
        drop(host_out);
        let gone = CancellationToken::new();
        let mut t = StdioTransport::new(herald_in, herald_out, gone.clone());
        let message: TxJsonRpcMessage<RoleServer> =
            serde_json::from_value(json!({"jsonrpc": "2.0", "id": 1, "result": {}})).unwrap();
        // Queued, then the write fails: nothing to report to rmcp.
        let _ = t.send(message).await;
        tokio::time::timeout(Duration::from_secs(5), gone.cancelled())
            .await
            .expect("gone fired");
        assert!(t.receive().await.is_none());
        drop(host_in);
    }
}
