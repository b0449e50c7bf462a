//! A call of a remote tool: the session it runs on (the server's shared
//! one, or one of its own carrying the caller's exchanged token), sent
//! once, and every outcome turned into what a model is shown.

use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value};

use super::caller::{self, OAuthCaller};
use super::client::{self, Failure, Session};
use super::discovery::RemoteTool;
use super::output;
use super::servers::{CLOSE_TIMEOUT, RemoteTools, Server};
use crate::config::RemoteCredential;
use crate::tool_interface::RenderedOutput;

impl RemoteTools {
    /// Calls the remote tool served as `name` (`None` when there is none)
    /// for `caller` (an OAuth caller, whose token a server with
    /// `credential: exchange` gets, exchanged; [`caller`]).
    /// Sent once, never retried; every failure (unreachable, HTTP error,
    /// timeout after `mcp.call_timeout_s`, protocol error) is a tool error.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        caller: Option<&OAuthCaller>,
    ) -> Option<RenderedOutput> {
        let (server, tool) = self.inner.servers.iter().find_map(|s| {
            let state = s.read();
            let tool = state
                .tools
                .iter()
                .find(|t| t.definition.name == name)?
                .clone();
            Some((s, tool))
        })?;
        Some(self.call_on(server, &tool, arguments, caller).await)
    }

    async fn call_on(
        &self,
        server: &Server,
        tool: &RemoteTool,
        arguments: Map<String, Value>,
        caller: Option<&OAuthCaller>,
    ) -> RenderedOutput {
        let settings = &server.settings;
        let (session, own_token) = match self.session_for(server, caller).await {
            Ok(CallSession::Shared(s)) => (s, None),
            Ok(CallSession::Caller(s, token)) => (Arc::new(s), Some(token)),
            Err(SessionError::Refused(out)) => return out,
            Err(SessionError::Failed(f)) => {
                let reason = self.inner.cleaner.line(&f.reason, 500);
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, error = %reason, "remote tool call: cannot connect");
                return output::failure(&settings.name, &tool.definition.name, &reason);
            }
        };
        let mut params = CallToolRequestParams::new(tool.remote_name.clone());
        params.arguments = Some(arguments);
        tracing::debug!(server = %settings.name, tool = %tool.definition.name, "remote tool call");
        let timeout = self.inner.call_timeout;
        // A call on the caller's own session also redacts its exchanged token.
        let own_cleaner = own_token
            .as_ref()
            .map(|t| self.inner.cleaner.with_secret(t.expose()));
        let cleaner = own_cleaner.as_ref().unwrap_or(&self.inner.cleaner);
        let origin = output::Origin {
            server: &settings.name,
            tool: &tool.definition.name,
            cleaner,
        };
        let answer = tokio::time::timeout(timeout, session.peer().call_tool(params)).await;
        let out = match answer {
            Ok(Ok(result)) => output::rendered(result, &self.inner.caps, &origin),
            Ok(Err(rmcp::ServiceError::McpError(e))) if self.inner.answer_bound.is_refusal(&e) => {
                let max_bytes = self.inner.answer_bound.max_bytes;
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, max_bytes, "remote tool call: the answer is larger than {} ({max_bytes} bytes); not read past it", crate::config::SettingKey::McpMaxAnswerBytes);
                output::too_large(&settings.name, &tool.definition.name, max_bytes)
            }
            Ok(Err(rmcp::ServiceError::McpError(e))) => {
                let reason = cleaner.line(&client::scrub(&e.message, settings), 500);
                tracing::info!(server = %settings.name, tool = %tool.definition.name, code = e.code.0, error = %reason, "remote tool call: protocol error");
                output::refusal(&e, &self.inner.caps, &origin)
            }
            Ok(Err(e)) => {
                let reason = cleaner.line(&Failure::from_error(&e, settings).reason, 500);
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, error = %reason, "remote tool call failed (not retried)");
                // The session may be broken: the next call opens a new one.
                self.forget_session(server, &session);
                output::failure(&settings.name, &tool.definition.name, &reason)
            }
            Err(_) => {
                let reason = format!(
                    "no answer within {} s ({})",
                    timeout.as_secs(),
                    crate::config::SettingKey::McpCallTimeoutS
                );
                tracing::warn!(server = %settings.name, tool = %tool.definition.name, "remote tool call: {reason}; abandoned");
                output::failure(&settings.name, &tool.definition.name, &reason)
            }
        };
        if own_token.is_some() {
            caller::close(session, CLOSE_TIMEOUT).await;
        }
        out
    }

    /// The session a call for `caller` uses: the server's shared one (with
    /// Herald's own token, or none), or, for `credential: exchange`, one of
    /// the call's own carrying the caller's token exchanged for the server's
    /// audience (never Herald's).
    async fn session_for(
        &self,
        server: &Server,
        caller: Option<&OAuthCaller>,
    ) -> Result<CallSession, SessionError> {
        let RemoteCredential::Exchange { audience } = &server.settings.grant.credential else {
            return self
                .session(server)
                .await
                .map(CallSession::Shared)
                .map_err(SessionError::Failed);
        };
        let token = caller::exchanged(&server.settings.name, audience, caller, &self.inner.caps)
            .await
            .map_err(SessionError::Refused)?;
        let timeout = self.inner.discovery_timeout;
        let session = tokio::time::timeout(
            timeout,
            client::connect_as(&server.settings, &server.http, Some(&token)),
        )
        .await
        .map_err(|_| {
            SessionError::Failed(Failure::new(
                format!("no answer within {} s", timeout.as_secs()),
                true,
            ))
        })?
        .map_err(SessionError::Failed)?;
        Ok(CallSession::Caller(session, token))
    }

    /// The server's open session, or a new one when it has none or it closed.
    async fn session(&self, server: &Server) -> Result<Arc<Session>, Failure> {
        if let Some(s) = server.read().session.clone()
            && !s.is_closed()
            && !s.peer().is_transport_closed()
        {
            return Ok(s);
        }
        let timeout = self.inner.discovery_timeout;
        let session =
            tokio::time::timeout(timeout, client::connect(&server.settings, &server.http))
                .await
                .map_err(|_| {
                    Failure::new(format!("no answer within {} s", timeout.as_secs()), true)
                })??;
        let session = Arc::new(session);
        server.write().session = Some(session.clone());
        Ok(session)
    }

    fn forget_session(&self, server: &Server, broken: &Arc<Session>) {
        let mut state = server.write();
        if state
            .session
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, broken))
        {
            state.session = None;
        }
    }
}

/// The session of one call.
enum CallSession {
    /// The server's, shared by every call.
    Shared(Arc<Session>),
    /// The call's own, carrying the caller's exchanged token (closed after it).
    Caller(Session, crate::config::Secret),
}

/// Why a call has no session.
enum SessionError {
    /// The caller's token cannot be used for this server (a tool error).
    Refused(RenderedOutput),
    /// The server cannot be reached.
    Failed(Failure),
}
