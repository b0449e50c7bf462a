//! The accept loop of a listener (the MCP port's and the metrics port's):
//! each connection counted in its [`ConnectionTable`] before the next accept,
//! so `http.max_connections` is a hard limit; over it (or over its client's
//! share, [`PeerRules`]), the table closes one to make room or answers 503.
//! The loop itself never waits for a connection: one that cannot be placed
//! because every open one is merely too young to close waits for that on a
//! task of its own (at most [`ADMISSION_WAIT`], and at most
//! [`MAX_WAITING`] of them; past that, 503), while the loop goes on
//! accepting, so a flood of new connections does not hold the ones behind
//! it in the accept queue.
//!
//! `accept` never runs out of descriptors: when fewer
//! than [`HEADROOM`](fd_limit::HEADROOM) are free ([`DescriptorGauge`]),
//! the loop waits for connections to close (evicted ones, refusals; at most
//! [`FULL_WAIT`]) before it takes another, then accepts one and closes it at
//! once, so the accept queue keeps moving and clients learn at once. Should
//! `accept` meet EMFILE anyway (something else took the descriptors), the
//! spare descriptor is given up to accept the waiting connection and close
//! it, then taken again.

use herald_core::config::SettingKey;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use tokio::net::{TcpListener, TcpStream};

use crate::http::connection::fd_limit::{self, DescriptorGauge, SpareDescriptor};
use crate::http::connection::peer::PeerRules;
use crate::http::connection::serve_connection;
use crate::http::connection::state::ConnectionLimits;
use crate::http::connection::table::{ConnectionTable, NoRoom};
use crate::shutdown::Shutdown;

/// How long the loop waits for descriptors to be freed when fewer than the
/// headroom are left, before it accepts a connection to close it at once.
pub(crate) const FULL_WAIT: Duration = Duration::from_millis(50);

/// How often it looks again while it waits.
const FULL_POLL: Duration = Duration::from_millis(5);

/// At the connection limit, how long a new connection may wait for one to
/// become closable (see [`NoRoom`]) before it is answered 503: a little more than
/// [`EVICTION_MIN_AGE`](crate::http::connection::table::EVICTION_MIN_AGE).
const ADMISSION_WAIT: Duration = Duration::from_millis(150);

/// How often a waiting connection asks the table for room.
const MAX_TRIES: u32 = 2;

/// Connections waiting for room at once (each holds a descriptor for at
/// most [`ADMISSION_WAIT`]); past this many, a new one is answered 503.
const MAX_WAITING: usize = 256;

/// Accepts connections until `closing` is over, then drops the listener.
/// Each is counted in `table` under `rules` before the next accept (the
/// limit is hard); each drains when `drain` fires.
pub(crate) async fn accept_until(
    listener: TcpListener,
    closing: impl Future<Output = ()>,
    app: &Router,
    table: &Arc<ConnectionTable>,
    limits: ConnectionLimits,
    rules: &PeerRules,
    drain: &Shutdown,
) {
    let waiting = Arc::new(AtomicUsize::new(0));
    let mut last_warning: Option<Instant> = None;
    let mut gauge = DescriptorGauge::new();
    let mut spare = SpareDescriptor::take();
    tokio::pin!(closing);
    loop {
        let mut room = gauge.has_room();
        let waiting_since = Instant::now();
        while !room && waiting_since.elapsed() < FULL_WAIT {
            tokio::select! {
                biased;
                () = &mut closing => return,
                () = tokio::time::sleep(FULL_POLL) => {}
            }
            room = gauge.has_room();
        }
        let accepted = tokio::select! {
            biased;
            () = &mut closing => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if fd_limit::is_out_of_descriptors(&e) && spare.is_held() => {
                // The spare makes room for the waiting connection, closed at
                // once; then it is taken again.
                spare.release();
                if let Ok(Ok((stream, _))) =
                    tokio::time::timeout(FULL_POLL, listener.accept()).await
                {
                    drop(stream);
                }
                spare = SpareDescriptor::take();
                if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    tracing::warn!(
                        error = %e,
                        "out of file descriptors: closed a new connection at once; keep {} below the open-file limit (ulimit -n)",
                        herald_core::config::SettingKey::HttpMaxConnections
                    );
                    last_warning = Some(Instant::now());
                }
                continue;
            }
            Err(e) => {
                // Out of memory, or of descriptors without a spare: wait, do not spin.
                if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    tracing::warn!(error = %e, "cannot accept connections; keep {} below the open-file limit (ulimit -n)", SettingKey::HttpMaxConnections);
                    last_warning = Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if !room {
            tracing::debug!("too few file descriptors left: closed a new connection at once");
            drop(stream);
            continue;
        }
        let full = table.len() >= rules.max;
        let peer = Some(peer.ip());
        let fd = descriptor(&stream);
        let admission = match table.admit(peer, fd, rules) {
            Ok(admission) => admission,
            Err(no_room) => {
                let may_wait = no_room
                    .closable_in
                    .is_some_and(|wait| wait <= ADMISSION_WAIT)
                    && waiting
                        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                            (n < MAX_WAITING).then_some(n + 1)
                        })
                        .is_ok();
                if may_wait {
                    // Every connection that could make room is too young (or
                    // stalled too briefly) to close yet: this one waits for that
                    // on its own task instead of a 503, and the loop goes on.
                    let connection = WaitingConnection {
                        stream,
                        peer,
                        fd,
                        app: app.clone(),
                        table: table.clone(),
                        limits,
                        rules: rules.clone(),
                        drain: drain.clone(),
                    };
                    tokio::spawn(connection.wait_for_room(no_room, waiting.clone()));
                } else {
                    let table = table.clone();
                    tokio::spawn(async move { table.refuse(stream).await });
                }
                continue;
            }
        };
        tokio::spawn(serve_connection(
            stream,
            admission,
            app.clone(),
            table.clone(),
            limits,
            rules.clone(),
            drain.clone(),
        ));
        if full {
            // The evicted connection's task closes its socket: let it run
            // before the next accept.
            tokio::task::yield_now().await;
        }
    }
}

/// The socket's descriptor, for the table to ask whether a request waits
/// unread in it (-1 where there is none to ask).
fn descriptor(stream: &TcpStream) -> i32 {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        stream.as_raw_fd()
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        -1
    }
}

/// A connection the table had no room for yet, waiting on a task of its own.
struct WaitingConnection {
    stream: TcpStream,
    peer: Option<std::net::IpAddr>,
    fd: i32,
    app: Router,
    table: Arc<ConnectionTable>,
    limits: ConnectionLimits,
    rules: PeerRules,
    drain: Shutdown,
}

impl WaitingConnection {
    /// Waits until a connection may be closed to make room for it (at most
    /// [`ADMISSION_WAIT`] from now), then is served, or answered 503; it
    /// leaves the `waiting` count as it stops waiting.
    async fn wait_for_room(self, mut no_room: NoRoom, waiting: Arc<AtomicUsize>) {
        let until = Instant::now() + ADMISSION_WAIT;
        let mut tries = 0;
        let admission = loop {
            // Two tries at most: a flood's waiting connections wake together,
            // and all but a few find the room taken again.
            tries += 1;
            let Some(wait) = no_room.closable_in.filter(|_| tries <= MAX_TRIES) else {
                break None;
            };
            let at = Instant::now() + wait.max(Duration::from_millis(1));
            if at > until {
                break None;
            }
            tokio::select! {
                biased;
                () = self.drain.wait() => break None,
                () = tokio::time::sleep_until(at.into()) => {}
            }
            match self.table.admit(self.peer, self.fd, &self.rules) {
                Ok(admission) => break Some(admission),
                Err(again) => no_room = again,
            }
        };
        waiting.fetch_sub(1, Ordering::AcqRel);
        match admission {
            Some(admission) => {
                serve_connection(
                    self.stream,
                    admission,
                    self.app,
                    self.table,
                    self.limits,
                    self.rules,
                    self.drain,
                )
                .await;
            }
            None if self.drain.is_triggered() => {}
            None => self.table.refuse(self.stream).await,
        }
    }
}
