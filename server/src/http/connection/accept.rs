//! The accept loop of a listener (the MCP port's and the metrics port's):
//! each connection counted in its [`ConnectionTable`] before the next accept,
//! so `http.max_connections` is a hard limit; over it, the table closes one
//! to make room or answers 503. When every open connection is merely too
//! young to close, the new one waits for that (at most [`ADMISSION_WAIT`]).
//!
//! `accept` never runs out of descriptors (issue 36, item 9): when fewer
//! than [`HEADROOM`](fd_limit::HEADROOM) are free ([`DescriptorGauge`]),
//! the loop waits for connections to close (evicted ones, refusals; at most
//! [`FULL_WAIT`]) before it takes another, then accepts one and closes it at
//! once, so the accept queue keeps moving and clients learn at once. Should
//! `accept` meet EMFILE anyway (something else took the descriptors), the
//! spare descriptor is given up to accept the waiting connection and close
//! it, then taken again.

use herald_core::config::SettingKey;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use tokio::net::TcpListener;

use crate::app::shutdown::Shutdown;
use crate::http::connection::fd_limit::{self, DescriptorGauge, SpareDescriptor};
use crate::http::connection::serve_connection;
use crate::http::connection::state::ConnectionLimits;
use crate::http::connection::table::ConnectionTable;

/// How long the loop waits for descriptors to be freed when fewer than the
/// headroom are left, before it accepts a connection to close it at once.
pub(crate) const FULL_WAIT: Duration = Duration::from_millis(50);

/// How often it looks again while it waits.
const FULL_POLL: Duration = Duration::from_millis(5);

/// At the connection limit, how long a new connection may wait for one to
/// become closable (see [`ConnectionTable::room_within`]) before it is
/// answered 503: a little more than
/// [`EVICTION_MIN_AGE`](crate::http::connection::table::EVICTION_MIN_AGE).
const ADMISSION_WAIT: Duration = Duration::from_millis(150);

/// Accepts connections until `closing` is over, then drops the listener.
/// Each is counted in `table` before the next accept (the limit is hard);
/// each drains when `drain` fires.
pub(crate) async fn accept_until(
    listener: TcpListener,
    closing: impl Future<Output = ()>,
    app: &Router,
    table: &Arc<ConnectionTable>,
    limits: ConnectionLimits,
    max_connections: usize,
    drain: &Shutdown,
) {
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
        let full = table.len() >= max_connections;
        let mut admitted = table.admit(Some(peer.ip()), max_connections);
        if admitted.is_none()
            && let Some(wait) = table.room_within(ADMISSION_WAIT)
        {
            // Every open connection is too young (or stalled too briefly) to
            // close yet: the new one waits for that instead of a 503, and
            // so do those behind it in the accept queue.
            tokio::select! {
                biased;
                () = &mut closing => return,
                () = tokio::time::sleep(wait) => {}
            }
            admitted = table.admit(Some(peer.ip()), max_connections);
        }
        let Some(admission) = admitted else {
            let table = table.clone();
            tokio::spawn(async move { table.refuse(stream).await });
            continue;
        };
        tokio::spawn(serve_connection(
            stream,
            admission,
            app.clone(),
            table.clone(),
            limits,
            drain.clone(),
        ));
        if full {
            // The evicted connection's task closes its socket: let it run
            // before the next accept.
            tokio::task::yield_now().await;
        }
    }
}
