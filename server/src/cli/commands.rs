//! The one-shot commands: `call TOOL [JSON]` and `tools [--format json | --tokens]`.

use std::io::{Read, Write};

use herald_core::keeper::Credential;
use herald_core::tool_interface::{ArgumentsError, arguments_from_json};
use herald_core::tools::{ToolCallError, ToolOrigin};
use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::app::Herald;
use crate::cli::ListFormat;
use crate::cli::tool_tokens;
use crate::error::ServerError;

/// Largest argument document read from stdin (`call TOOL -`).
pub(crate) const MAX_STDIN_BYTES: u64 = 16 * 1024 * 1024;

/// Prints the served tools (built-in, then the remote ones discovered): one
/// line each, or the JSON list of definitions a model sees (`tools/list`),
/// or (`None`) each one's cost in tokens.
pub(crate) fn print_tools(herald: &Herald, format: Option<ListFormat>) -> Result<(), ServerError> {
    let tools = all_tools(herald);
    let Some(format) = format else {
        return write_stdout(&tool_tokens::table(&tools));
    };
    let text = match format {
        ListFormat::Json => {
            let mut t = serde_json::to_string_pretty(&tools)
                .map_err(|e| ServerError::Transport(e.to_string()))?;
            t.push('\n');
            t
        }
        ListFormat::Text => tools_text(&tools, |name| source_of(herald, name)),
    };
    write_stdout(&text)
}

/// The built-in tools served, then the remote ones discovered (a built-in
/// name wins).
fn all_tools(herald: &Herald) -> Vec<Tool> {
    herald.tools.served(&herald.view())
}

/// Where a tool comes from: `lorebase` (Keeper), `kb` (the markdown
/// catalog), or `remote <server> <url>` (an MCP server of `mcp.servers`).
pub(crate) fn source_of(herald: &Herald, name: &str) -> String {
    if herald.view().serves(name) {
        match herald.toolbox.origin_of(name) {
            Some(ToolOrigin::Kb) => return "kb".into(),
            Some(ToolOrigin::Lorebase) => return "lorebase".into(),
            _ => {}
        }
    }
    let Some(tool) = herald.toolbox.remote().find(name) else {
        return "unknown".into();
    };
    let url = herald
        .toolbox
        .remote()
        .summaries()
        .into_iter()
        .find(|s| s.name == tool.server)
        .map(|s| s.url)
        .unwrap_or_default();
    format!("remote {} {url}", tool.server)
}

/// The text listing: name, read-only or writes, where it comes from
/// (`source`), title.
pub(crate) fn tools_text(tools: &[Tool], source: impl Fn(&str) -> String) -> String {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let sources: Vec<String> = tools.iter().map(|t| source(&t.name)).collect();
    let source_width = sources.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (tool, from) in tools.iter().zip(&sources) {
        let writes = tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .is_some_and(|ro| !ro);
        let title = tool
            .title
            .clone()
            .or_else(|| {
                tool.description
                    .as_ref()
                    .map(std::string::ToString::to_string)
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "{:width$}  {:9}  {:source_width$}  {}\n",
            tool.name,
            if writes { "writes" } else { "read-only" },
            from,
            title,
        ));
    }
    out
}

/// Parses `call`'s JSON argument (`-` reads stdin; none is `{}`).
pub(crate) fn parse_arguments(json: Option<&str>) -> Result<Map<String, Value>, ServerError> {
    let stdin;
    let text = match json {
        Some("-") => {
            let mut buf = String::new();
            std::io::stdin()
                .take(MAX_STDIN_BYTES)
                .read_to_string(&mut buf)?;
            stdin = buf;
            Some(stdin.as_str())
        }
        other => other,
    };
    arguments_from_json(text).map_err(|e| match e {
        ArgumentsError::NotAnObject(_) => ServerError::Usage(
            "the arguments must be a JSON object, for example '{\"ref\": \"Supplier/S-1001\"}'"
                .into(),
        ),
        ArgumentsError::NotJson(reason) => {
            ServerError::Usage(format!("the arguments are not valid JSON: {reason}"))
        }
    })
}

/// Runs one tool call with the configured credential and prints its text.
/// Exit code 0, or 1 on a tool error; an unknown tool is a usage error (2).
pub(crate) async fn call(
    herald: &Herald,
    tool: &str,
    json: Option<&str>,
) -> Result<i32, ServerError> {
    let arguments = parse_arguments(json)?;
    if !herald.view().serves(tool) {
        return Err(unknown(tool, herald));
    }
    let out = herald
        .toolbox
        .call(tool, arguments, &Credential::Configured)
        .await
        .map_err(|e| match e {
            ToolCallError::UnknownTool(_) => unknown(tool, herald),
            e @ (ToolCallError::BadArguments(_) | ToolCallError::EmptyApiKey) => {
                ServerError::Usage(e.to_string())
            }
        })?;
    let mut text = out.text;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_stdout(&text)?;
    Ok(if out.is_error { 1 } else { 0 })
}

fn unknown(tool: &str, herald: &Herald) -> ServerError {
    let shown: String = tool.chars().take(100).collect();
    ServerError::Usage(format!(
        "unknown tool {shown:?}; tools: {}",
        herald.tools.names(&herald.view()).join(", ")
    ))
}

/// Writes to stdout; a closed pipe (`| head`) is not an error.
fn write_stdout(text: &str) -> Result<(), ServerError> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(ServerError::Io),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse() {
        assert!(parse_arguments(None).unwrap().is_empty());
        assert!(parse_arguments(Some("  ")).unwrap().is_empty());
        let m = parse_arguments(Some(r#"{"ref": "Supplier/S-1001"}"#)).unwrap();
        assert_eq!(m["ref"], "Supplier/S-1001");
        for bad in ["[1]", "3", "{", "\"x\""] {
            let e = parse_arguments(Some(bad)).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}");
        }
    }
}
