//! `lorebase-herald demo`: starts the sandbox Keeper in-process (the sample
//! Domains `supply` and `retail`, no authentication) and serves Herald on it,
//! printing the ready-to-paste host configurations, what to try and where it
//! serves to stderr, whether or not stdin is a terminal. When a person runs it
//! in a terminal, it also shows a short tour: a few real tool calls and their
//! outputs.

use std::io::IsTerminal;

use herald_core::config::{SettingKey, Transport};
use herald_core::keeper::Credential;
use lorebase_sandbox::{AuthMode, Sandbox, SandboxOptions};
use serde_json::{Value, json};

use crate::app::{Herald, Launcher, load_settings_with};
use crate::cli::Cli;
use crate::error::ServerError;
use crate::mcp::credential::CallerAuth;
use crate::shutdown::Shutdown;
use crate::{app, http};

/// The server name the host configurations use.
pub(crate) const DEMO_SERVER_NAME: &str = "lorebase-demo";

/// The tour: (tool, arguments) pairs run against the sandbox.
pub(crate) fn tour_calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "lorebase_history",
            json!({"domain": "supply", "ref": "Supplier/S-1001", "values": true, "limit": 2}),
        ),
        (
            "lorebase_lineage",
            json!({"domain": "supply", "ref": "Supplier/S-1001"}),
        ),
        (
            "lorebase_resolve",
            json!({"domain": "retail", "text": "red shoes per brand", "kinds": ["Product"]}),
        ),
    ]
}

/// Runs the demo until the host goes away or a signal arrives.
pub(crate) async fn run(cli: &Cli, launcher: &Launcher) -> Result<i32, ServerError> {
    let sandbox = Sandbox::start(SandboxOptions {
        auth: AuthMode::None,
        ..Default::default()
    })
    .await
    .map_err(|e| ServerError::Sandbox(e.to_string()))?;
    let mut extra = vec![
        (SettingKey::KeeperBaseUrl, json!(sandbox.url()), "demo"),
        (SettingKey::KeeperApiKey, Value::Null, "demo"),
        (SettingKey::HttpAllowAnonymous, json!(true), "demo"),
    ];
    if cli.flags.domain.is_none() {
        extra.push((SettingKey::Domain, json!("supply"), "demo"));
    }
    let herald = Herald::build(load_settings_with(&cli.launch_options(), &extra)?)?;
    tracing::info!(keeper = %sandbox.url(), "demo: sandbox Keeper started (Domains supply and retail, no authentication)");
    let shutdown = Shutdown::on_signals();
    let signals = shutdown.clone();
    let serving = async {
        match herald.settings.transport {
            Transport::Stdio => {
                eprint!("{}", stdio_configs(launcher));
                if std::io::stdin().is_terminal() {
                    eprint!("{}", tour(&herald).await);
                }
                eprint!("{}", stdio_next_steps());
                app::serve_stdio(&herald, shutdown).await?;
            }
            Transport::StreamableHttp => {
                let bound = http::bind(&herald.settings.http).await?;
                let url = http::url(&bound, &herald.settings.http);
                println!(
                    "LOREBASE_HERALD_READY {}",
                    json!({"url": url, "healthz": format!("http://{}/healthz", bound.addr), "transport": "streamable_http", "keeper": sandbox.url()})
                );
                eprint!("{}", http_configs(&url));
                if std::io::stdin().is_terminal() {
                    eprint!("{}", tour(&herald).await);
                }
                eprint!("{}", http_next_steps(&url));
                let handler = herald.handler(CallerAuth::HttpBearer {
                    allow_anonymous: true,
                });
                http::serve(bound, handler, &herald.settings.http, shutdown).await?;
            }
        }
        Ok::<(), ServerError>(())
    };
    let Some(served) = signals.unless_exit_now(serving).await else {
        return Ok(crate::shutdown::SECOND_SIGNAL_EXIT_CODE);
    };
    served?;
    drop(sandbox);
    Ok(0)
}

/// The stdio host configurations: the host starts `<launcher> demo`.
pub(crate) fn stdio_configs(launcher: &Launcher) -> String {
    let mut args = launcher.args.clone();
    args.push("demo".into());
    let command_line = std::iter::once(launcher.command.as_str())
        .chain(args.iter().map(String::as_str))
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join(" ");
    let cursor =
        json!({"mcpServers": {DEMO_SERVER_NAME: {"command": launcher.command, "args": args}}});
    let vscode = json!({"name": DEMO_SERVER_NAME, "type": "stdio", "command": launcher.command, "args": args});
    format!(
        "\nLorebase Herald demo: a sample Keeper with the Domains supply and retail.\n\
         Add it to your MCP host (the host starts this command itself):\n\n\
         Claude Code:\n  claude mcp add {DEMO_SERVER_NAME} -- {command_line}\n\n\
         Cursor (.cursor/mcp.json):\n{}\n\n\
         VS Code:\n  code --add-mcp {}\n\n",
        indent(&serde_json::to_string_pretty(&cursor).unwrap_or_default()),
        shell_quote(&vscode.to_string()),
    )
}

/// The Streamable HTTP host configurations for `url`.
pub(crate) fn http_configs(url: &str) -> String {
    let cursor = json!({"mcpServers": {DEMO_SERVER_NAME: {"url": url}}});
    let vscode = json!({"name": DEMO_SERVER_NAME, "type": "http", "url": url});
    format!(
        "\nLorebase Herald demo: a sample Keeper with the Domains supply and retail, served on {url}.\n\
         Add it to your MCP host:\n\n\
         Claude Code:\n  claude mcp add --transport http {DEMO_SERVER_NAME} {url}\n\n\
         Cursor (.cursor/mcp.json):\n{}\n\n\
         VS Code:\n  code --add-mcp {}\n\n",
        indent(&serde_json::to_string_pretty(&cursor).unwrap_or_default()),
        shell_quote(&vscode.to_string()),
    )
}

/// Questions to ask an agent connected to the demo (one per tour call).
const QUESTIONS: [&str; 3] = [
    "Who changed Supplier S-1001's risk score, and when?",
    "Where does Supplier S-1001's risk score come from?",
    "In retail, how many red shoes are there per brand?",
];

/// What to try and where it serves, over stdio: printed on stderr whether or
/// not stdin is a terminal (a host or a script starting the demo sees it too).
pub(crate) fn stdio_next_steps() -> String {
    format!(
        "What to try: once your host has started it, ask your agent\n{}\n\
         Serving MCP over stdio now (an MCP host sends JSON-RPC on stdin). Ctrl-C to stop.\n",
        questions()
    )
}

/// What to try and where it serves, over Streamable HTTP: the questions, and
/// two `curl` calls (the `Accept` header is required: without it the answer
/// is 406).
pub(crate) fn http_next_steps(url: &str) -> String {
    let curl = |body: Value| {
        format!(
            "  curl -s {url} -H 'Content-Type: application/json' \\\n    \
             -H 'Accept: application/json, text/event-stream' \\\n    -d {}\n",
            shell_quote(&body.to_string())
        )
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"}}});
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "lorebase_get", "arguments": {"ref": "Supplier/S-1001"}}});
    format!(
        "What to try: connect your host (above) and ask your agent\n{}\n\
         or call it with curl:\n{}{}\n\
         Serving MCP on {url}. Ctrl-C to stop.\n",
        questions(),
        curl(initialize),
        curl(get),
    )
}

fn questions() -> String {
    QUESTIONS.iter().map(|q| format!("  - {q}\n")).collect()
}

/// Runs the tour calls and renders them as a terminal session.
pub(crate) async fn tour(herald: &Herald) -> String {
    let mut out = String::from("A short tour (real calls on the sample Keeper):\n\n");
    for (tool, args) in tour_calls() {
        let Value::Object(map) = args.clone() else {
            continue;
        };
        out.push_str(&format!(
            "$ lorebase-herald call {tool} {}\n",
            shell_quote(&args.to_string())
        ));
        match herald
            .toolbox
            .call(tool, map, &Credential::Configured)
            .await
        {
            Ok(o) => out.push_str(&o.text),
            Err(e) => out.push_str(&format!("(cannot run {tool}: {e})")),
        }
        out.push_str("\n\n");
    }
    out
}

/// Single-quotes a word for a POSIX shell when it needs it.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@,+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_configs_name_the_launcher() {
        let text = stdio_configs(&Launcher {
            command: "npx".into(),
            args: vec!["lorebase-herald".into()],
        });
        assert!(text.contains("claude mcp add lorebase-demo -- npx lorebase-herald demo"));
        assert!(text.contains("\"command\": \"npx\""));
        assert!(text.contains(r#"code --add-mcp '{"name":"lorebase-demo","type":"stdio","command":"npx","args":["lorebase-herald","demo"]}'"#));
    }

    #[test]
    fn http_configs_name_the_url() {
        let text = http_configs("http://127.0.0.1:8090/mcp");
        assert!(
            text.contains(
                "claude mcp add --transport http lorebase-demo http://127.0.0.1:8090/mcp"
            )
        );
        assert!(text.contains(r#""url": "http://127.0.0.1:8090/mcp""#));
        assert!(text.contains(r#""type":"http""#));
    }

    #[test]
    fn next_steps_say_where_it_serves_and_what_to_try() {
        let stdio = stdio_next_steps();
        assert!(stdio.contains("Serving MCP over stdio now"));
        assert!(stdio.contains("risk score"));
        let http = http_next_steps("http://127.0.0.1:8090/mcp");
        assert!(http.contains("Serving MCP on http://127.0.0.1:8090/mcp."));
        assert!(http.contains("curl -s http://127.0.0.1:8090/mcp"));
        assert!(http.contains("-H 'Accept: application/json, text/event-stream'"));
        assert!(http.contains(r#""method":"tools/call""#));
        assert_eq!(QUESTIONS.len(), tour_calls().len());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("lorebase-herald"), "lorebase-herald");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
