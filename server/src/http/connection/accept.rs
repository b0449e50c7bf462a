//! The accept loop of a listener (the MCP port's and the metrics port's):
//! each connection counted in its [`ConnectionTable`] before the next accept,
//! so `http.max_connections` is a hard limit; over it, the table closes one
//! to make room or answers 503.

use herald_core::config::SettingKey;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use tokio::net::TcpListener;

use crate::app::shutdown::Shutdown;
use crate::http::connection::serve_connection;
use crate::http::connection::state::ConnectionLimits;
use crate::http::connection::table::ConnectionTable;

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
    tokio::pin!(closing);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut closing => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors (or memory): wait, do not spin.
                if last_warning.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    tracing::warn!(error = %e, "cannot accept connections; keep {} below the open-file limit (ulimit -n)", SettingKey::HttpMaxConnections);
                    last_warning = Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let full = table.len() >= max_connections;
        let Some(admission) = table.admit(Some(peer.ip()), max_connections) else {
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
            // before the next accept, or a burst of reconnecting clients
            // (the accept queue holds 4,096) outruns the closes and the
            // descriptors run out (EMFILE) even below the limit.
            tokio::task::yield_now().await;
        }
    }
}
