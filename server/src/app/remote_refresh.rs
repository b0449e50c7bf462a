//! Re-discovery of the remote MCP servers' tools (`mcp.servers`) while
//! serving: on SIGHUP, and every `mcp.refresh_interval_s` seconds when set.
//! A server that came up after startup joins without a restart; one that
//! went away leaves. When the tools changed and a host session is known
//! (stdio), the host gets `notifications/tools/list_changed`; over stateless
//! Streamable HTTP every `tools/list` already reads the current tools.
//! Without remote servers nothing listens for SIGHUP, and
//! [`crate::shutdown`] logs that there is nothing to reload.

use std::time::Duration;

use herald_core::config::SettingKey;
use herald_core::remote::ServerStatus;
use herald_core::tools::Toolbox;
use rmcp::{Peer, RoleServer};
use tokio::sync::watch;

use crate::shutdown::Shutdown;

/// Starts re-discovery in the background (nothing when no remote server is
/// configured), on each of `shutdown`'s hangups and every interval. Must be
/// called inside a Tokio runtime. It stops with `shutdown`.
pub(crate) fn spawn(toolbox: Toolbox, shutdown: Shutdown, host: Option<Peer<RoleServer>>) {
    if toolbox.remote().is_empty() {
        return;
    }
    let interval = toolbox.settings().mcp.refresh_interval_s;
    let mut hangups = shutdown.hangups();
    tokio::spawn(async move {
        let mut generation = toolbox.remote().generation();
        loop {
            let reason = tokio::select! {
                _ = shutdown.wait() => return,
                r = next_tick(interval) => r,
                r = next_hangup(&mut hangups) => r,
            };
            tracing::info!(reason, "re-discovering the remote MCP servers' tools");
            let summaries = toolbox.discover_remote().await;
            let ready = summaries
                .iter()
                .filter(|s| matches!(s.status, ServerStatus::Ready { .. }))
                .count();
            tracing::info!(
                servers = summaries.len(),
                ready,
                tools = toolbox.remote_definitions().len(),
                "remote MCP discovery done"
            );
            let now = toolbox.remote().generation();
            if now != generation {
                generation = now;
                if let Some(peer) = &host
                    && let Err(e) = peer.notify_tool_list_changed().await
                {
                    tracing::debug!(error = %e, "cannot tell the host the tools changed");
                }
            }
        }
    });
}

/// Waits for the next interval, or forever when there is none.
async fn next_tick(interval_s: u64) -> &'static str {
    if interval_s == 0 {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep(Duration::from_secs(interval_s)).await;
    SettingKey::McpRefreshIntervalS.name()
}

/// Waits for the next SIGHUP (forever once its sender is gone).
async fn next_hangup(hangups: &mut watch::Receiver<u64>) -> &'static str {
    if hangups.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
    "SIGHUP"
}
