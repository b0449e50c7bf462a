//! Who a remote call is made for, when Herald is an OAuth resource server:
//! the scopes the caller's token holds (which remote servers' tools it is
//! served: the tool view's rule) and a way to trade that token for one
//! meant for a remote server (RFC 8693, for servers with
//! `credential: exchange`). The exchange itself is the HTTP front end's
//! (it holds the authorization server's client); core only asks for it.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::client::Session;
use crate::config::{OutputSettings, Secret};
use crate::error::ToolError;
use crate::keeper::model::ProblemCode;
use crate::tool_interface::RenderedOutput;

/// Why the caller's token could not be exchanged for a remote server's
/// audience (the text names no token).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExchangeFailure(pub String);

/// Trades the caller's token for one whose audience is a remote server.
pub trait CallerExchange: Send + Sync + fmt::Debug {
    /// The caller's token exchanged for one meant for `audience`.
    fn token_for<'a>(
        &'a self,
        audience: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<Secret, ExchangeFailure>> + Send + 'a>>;
}

/// One OAuth caller of a shared Herald.
#[derive(Debug, Clone)]
pub struct OAuthCaller {
    /// The scopes its token holds.
    pub scopes: Vec<String>,
    /// Its token, exchanged on demand for a remote server's audience.
    pub exchange: Arc<dyn CallerExchange>,
}

impl OAuthCaller {
    /// Whether its token holds `scope`.
    pub fn holds(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// The token a call to the server `server` (`credential: exchange`, for
/// `audience`) carries: `caller`'s, exchanged. No OAuth caller (stdio, API
/// keys), or an exchange refused: the tool error the model sees.
pub(crate) async fn exchanged(
    server: &str,
    audience: &str,
    caller: Option<&OAuthCaller>,
    caps: &OutputSettings,
) -> Result<Secret, RenderedOutput> {
    let Some(caller) = caller else {
        let error = ToolError {
            next: Some(format!(
                "do not retry: this server's tools are served to OAuth callers only ({})",
                crate::config::SettingKey::HttpAuthorizationServers
            )),
            ..ToolError::new(
                ProblemCode::Forbidden,
                format!(
                    "the remote server {server:?} is called with the caller's own token, and this call has none"
                ),
            )
        };
        return Err(error.to_output(caps));
    };
    caller.exchange.token_for(audience).await.map_err(|e| {
        tracing::info!(server, error = %e, "remote tool call: the caller's token was not exchanged");
        let error = ToolError {
            next: Some(
                "do not retry: sign in again, or ask an administrator to let your client use this server"
                    .into(),
            ),
            ..ToolError::new(
                ProblemCode::Unauthorized,
                format!("your token could not be exchanged for one meant for the remote server {server:?}: {e}"),
            )
        };
        error.to_output(caps)
    })
}

/// Closes a call's own session, within `timeout`.
pub(crate) async fn close(session: Arc<Session>, timeout: Duration) {
    if let Ok(mut session) = Arc::try_unwrap(session)
        && let Ok(None) = session.close_with_timeout(timeout).await
    {
        tracing::debug!("a remote MCP session of one call did not close in time");
    }
}
