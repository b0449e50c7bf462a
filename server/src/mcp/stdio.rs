//! The stdio transport: one JSON-RPC message a line on stdin and stdout, over
//! rmcp's pipes ([`rmcp::transport::stdio_pipes`]), with what rmcp's own
//! line transport does not do:
//!
//! - each line is bounded before rmcp builds a tree of it: at most
//!   [`MAX_LINE_BYTES`] (the rest of a longer line is skipped as it
//!   arrives, never kept), then the bounds of every message
//!   ([`crate::mcp::bounds`]: JSON values, nesting), as over HTTP;
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

use std::io;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::app::shutdown::Shutdown;
use crate::mcp::bounds;

/// The longest line taken (rmcp's own cap, 16 MiB): one message, whatever
/// its values; past it, `-32600`.
pub(crate) const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Lines waiting for the writer (answers are small; the bound is the
/// back-pressure on a host that does not read).
const OUTBOX_LINES: usize = 64;

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
    outbox: Option<mpsc::Sender<Vec<u8>>>,
    /// A refusal's answer not yet handed to the writer (`receive` may be
    /// dropped while it waits).
    pending: Option<Vec<u8>>,
    gone: CancellationToken,
    writer: Option<JoinHandle<()>>,
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
        let (outbox, lines) = mpsc::channel(OUTBOX_LINES);
        let writer = tokio::spawn(write_lines(writer, lines, gone.clone()));
        Self {
            input: BufReader::new(reader),
            line: Vec::new(),
            skipping: false,
            outbox: Some(outbox),
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
                    permit.send(line);
                }
                true
            }
            Err(_) => false,
        }
    }
}

impl<R: AsyncRead + Send + Unpin> Transport<RoleServer> for StdioTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let outbox = self.outbox.clone();
        let gone = self.gone.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
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
                    self.pending = Some(answer_line(&bounds::error_answer(
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
                Decoded::Message(message) => return Some(*message),
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
    let probed = match bounds::check(line) {
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
            let mut answer = bounds::error_answer(
                -32600,
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
            );
            answer["id"] = bounds::id_value(probed.id.as_ref());
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
async fn write_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
    gone: CancellationToken,
) {
    loop {
        let line = tokio::select! {
            biased;
            () = gone.cancelled() => return,
            line = lines.recv() => line,
        };
        let Some(line) = line else {
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
        let (host_in, herald_in) = duplex(1 << 16);
        let (herald_out, host_out) = duplex(1 << 16);
        let gone = CancellationToken::new();
        let t = StdioTransport::new(herald_in, herald_out, gone.clone());
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
