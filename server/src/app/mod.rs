//! Putting it together: the settings, the toolbox and the tools' MCP form of one
//! Herald ([`Herald`]), and serving it on the configured transport.

mod launch;
pub(crate) mod remote_refresh;

#[cfg(feature = "demo")]
pub(crate) use launch::load_settings_with;
pub(crate) use launch::{LaunchOptions, load_settings};
use std::path::Path;
use std::sync::Arc;

use herald_core::config::SettingKey;
use herald_core::config::{Settings, Transport};
use herald_core::tools::{Audience, ToolOrigin, ToolView, Toolbox};
use rmcp::ServiceExt;

use crate::error::ServerError;
use crate::http;
use crate::http::connection::heap_trim::HeapTrims;
use crate::http::metrics::{self, MetricsEndpoint};
use crate::http::readiness::Readiness;
use crate::mcp::credential::CallerAuth;
use crate::mcp::handler::HeraldServer;
use crate::mcp::stdio::StdioTransport;
use crate::mcp::tool_forms::ToolForms;
use crate::shutdown::Shutdown;

/// How MCP hosts start this Herald (for the host configurations `demo`
/// prints): the program, then its leading arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    /// The program (`lorebase-herald`, `/abs/path/lorebase-herald`, `npx`).
    pub command: String,
    /// Arguments before Herald's own (`["lorebase-herald"]` for `npx`).
    pub args: Vec<String>,
}

impl Launcher {
    /// From the first argument of [`crate::run_cli`]: split on whitespace
    /// (bindings pass `npx lorebase-herald` or `uvx lorebase-herald`); a
    /// relative path to a file is made absolute (hosts start servers from
    /// another directory).
    pub fn from_argv0(argv0: &str) -> Self {
        let mut words = argv0.split_whitespace().map(str::to_string);
        let command = words.next().unwrap_or_else(|| "lorebase-herald".into());
        let command = if command.contains('/') && Path::new(&command).is_relative() {
            std::fs::canonicalize(&command)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or(command)
        } else {
            command
        };
        Self {
            command,
            args: words.collect(),
        }
    }
}

/// A Herald ready to serve: its settings, toolbox and its tools' MCP form.
#[derive(Debug, Clone)]
pub struct Herald {
    /// The resolved settings.
    pub settings: Settings,
    /// The toolbox.
    pub toolbox: Toolbox,
    /// The MCP form of the built-in tools (which are served: the toolbox's
    /// view, [`Toolbox::view`]).
    pub tools: ToolForms,
}

impl Herald {
    /// Builds the toolbox and its tools' MCP form (no Keeper call). A name in
    /// `tools.allow` that is not served is a settings error.
    pub fn build(settings: Settings) -> Result<Self, ServerError> {
        let toolbox = Toolbox::new(settings.clone())?;
        // The remote tools (`mcp.servers`) are added by the handler as they
        // are discovered; these are the built-in ones.
        let tools = ToolForms::new(toolbox.built_in_definitions());
        Ok(Self {
            settings,
            toolbox,
            tools,
        })
    }

    /// Asks the remote MCP servers (`mcp.servers`) for their tools, bounded
    /// by `mcp.discovery_timeout_s`; a server that fails is logged and
    /// skipped, never fatal.
    pub async fn discover_remote(&self) {
        self.toolbox.discover_remote().await;
    }

    /// The tools one agent is served (stdio, the one-shot commands).
    pub fn view(&self) -> ToolView<'_> {
        self.toolbox.view(None, Audience::OneAgent)
    }

    /// Whether any Lorebase tool is served, so calls reach Keeper (not in
    /// `kb DIR` mode, nor with `tools.allow` naming only KB or remote tools).
    pub fn calls_keeper(&self) -> bool {
        self.view().serves_origin(ToolOrigin::Lorebase)
    }

    /// The MCP handler for `auth`.
    pub fn handler(&self, auth: CallerAuth) -> HeraldServer {
        HeraldServer::new(self.toolbox.clone(), self.tools.clone(), auth)
    }
}

/// Serves `herald` on the configured transport until the host goes away
/// (stdio) or `shutdown` fires, discovering the remote MCP servers' tools
/// first when `discover`. Over HTTP the listener is bound first: `/healthz` answers
/// at once and `/readyz` turns ready once discovery is over; `trims` are the
/// heap trims of the runtime serving it.
pub(crate) async fn serve_discovering(
    herald: &Herald,
    shutdown: Shutdown,
    discover: bool,
    trims: Arc<HeapTrims>,
) -> Result<(), ServerError> {
    let served = match herald.settings.transport {
        Transport::Stdio => {
            if discover {
                herald.discover_remote().await;
            }
            serve_stdio(herald, shutdown).await
        }
        Transport::StreamableHttp => {
            let bound = http::bind(&herald.settings.http).await?;
            let handler =
                herald.handler(if herald.settings.http.authorization_servers.is_empty() {
                    CallerAuth::HttpBearer {
                        allow_anonymous: herald.settings.http.allow_anonymous,
                    }
                } else {
                    CallerAuth::OAuth
                });
            let readiness = Readiness::new(shutdown.clone(), herald.toolbox.keeper().clone());
            let (addr, url) = (bound.addr, http::url(&bound, &herald.settings.http));
            // Every setting checked and every listener bound before the READY
            // line: a supervisor never sees a ready Herald that then exits.
            let prepared = http::prepare(
                bound,
                handler,
                &herald.settings.http,
                &shutdown,
                readiness.clone(),
                trims,
            )
            .await?;
            let starting = async {
                if discover {
                    herald.discover_remote().await;
                }
                announce_http(herald, addr, &url);
                readiness.mark_started();
                remote_refresh::spawn(herald.toolbox.clone(), shutdown.clone(), None);
            };
            let serving = prepared.serve(&herald.settings.http, shutdown.clone());
            let (_, served) = tokio::join!(starting, serving);
            tracing::debug!(%addr, "stopped serving");
            served
        }
    };
    flush_spans(&herald.toolbox).await;
    served
}

/// Sends the spans still queued (traces.otlp_endpoint), waiting at most two
/// seconds.
async fn flush_spans(toolbox: &herald_core::tools::Toolbox) {
    if let Some(sink) = toolbox.span_sink().cloned() {
        let _ = tokio::task::spawn_blocking(move || {
            sink.flush(std::time::Duration::from_secs(2));
        })
        .await;
    }
}

/// stdio: protocol messages on stdin/stdout, logs on stderr.
pub(crate) async fn serve_stdio(herald: &Herald, shutdown: Shutdown) -> Result<(), ServerError> {
    // Keeper is named only when a Lorebase tool is served: `kb DIR` never calls it.
    let calls_keeper = herald.calls_keeper();
    if calls_keeper && herald.settings.keeper.api_key.is_none() {
        tracing::info!(
            "no {} (LOREBASE_API_KEY): calls go to Keeper without a credential",
            SettingKey::KeeperApiKey
        );
    }
    // The metrics port is bound before Herald says it serves.
    let metrics = &herald.settings.metrics;
    if metrics.enabled
        && let Some(listener) = metrics::bind(metrics).await?
    {
        let endpoint = MetricsEndpoint::new(&herald.toolbox, None)?;
        let limits = crate::http::connection::state::ConnectionLimits::of(&herald.settings.http);
        tokio::spawn(metrics::serve(listener, endpoint, limits, shutdown.clone()));
    }
    let tools = herald.tools.names(&herald.view()).len();
    if calls_keeper {
        tracing::info!(keeper = %herald.settings.keeper.base_url, tools, "serving MCP over stdio");
    } else {
        tracing::info!(tools, "serving MCP over stdio");
    }
    let handler = herald.handler(CallerAuth::Configured);
    handler.prefetch_hints();
    let running = match handler
        .serve_with_ct(StdioTransport::over_stdio(&shutdown), shutdown.token())
        .await
    {
        Ok(running) => running,
        Err(e) if shutdown.is_triggered() => {
            tracing::debug!(error = %e, "stopped before the host initialized");
            return Ok(());
        }
        Err(e) => {
            // The host closed stdin before initializing: nothing to serve.
            tracing::info!(error = %e, "the host ended the session before it started");
            return Ok(());
        }
    };
    remote_refresh::spawn(
        herald.toolbox.clone(),
        shutdown.clone(),
        Some(running.peer().clone()),
    );
    let reason = running
        .waiting()
        .await
        .map_err(|e| ServerError::Transport(e.to_string()))?;
    tracing::info!(?reason, "stdio session ended");
    Ok(())
}

/// Prints the ready line on stdout (machine-readable) and a note on stderr.
fn announce_http(herald: &Herald, addr: std::net::SocketAddr, url: &str) {
    let mut ready = serde_json::json!({
        "url": url,
        "healthz": format!("http://{addr}/healthz"),
        "readyz": format!("http://{addr}/readyz"),
        "transport": "streamable_http",
        "stateless": herald.settings.http.stateless,
    });
    let metrics = &herald.settings.metrics;
    if metrics.enabled && metrics.port.is_none() {
        ready["metrics"] = format!("http://{addr}{}", metrics::METRICS_PATH).into();
    }
    println!("LOREBASE_HERALD_READY {ready}");
    crate::logging::notice(&if herald.calls_keeper() {
        format!(
            "serving MCP on {url} (Keeper {})",
            herald.settings.keeper.base_url
        )
    } else {
        format!("serving MCP on {url}")
    });
    if herald.settings.http.allow_anonymous {
        tracing::warn!(
            "{} is on: calls without a credential reach Keeper as its anonymous user; keep this for local stacks only",
            SettingKey::HttpAllowAnonymous
        );
    }
    if !addr.ip().is_loopback() && herald.settings.http.allowed_hosts.is_empty() {
        tracing::warn!(
            "listening on {addr} but only loopback Host values are accepted; list the names callers use in {}",
            SettingKey::HttpAllowedHosts
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_from_argv0() {
        assert_eq!(
            Launcher::from_argv0("npx lorebase-herald"),
            Launcher {
                command: "npx".into(),
                args: vec!["lorebase-herald".into()]
            }
        );
        assert_eq!(
            Launcher::from_argv0("lorebase-herald").command,
            "lorebase-herald"
        );
        assert_eq!(Launcher::from_argv0("").command, "lorebase-herald");
        assert_eq!(
            Launcher::from_argv0("/usr/bin/lorebase-herald").command,
            "/usr/bin/lorebase-herald"
        );
    }
}
