//! `lorebase-herald`: the MCP server for Lorebase Domains, over stdio and
//! Streamable HTTP, built on rmcp.
//!
//! The binary, `npx lorebase-herald` and `uvx lorebase-herald` all run
//! [`run_cli`], so they behave the same:
//!
//! ```no_run
//! let code = herald_server::run_cli(std::env::args().collect());
//! std::process::exit(code);
//! ```
//!
//! Modules:
//! - [`cli`]: the command line and the settings overrides it makes;
//! - [`app`]: settings, the toolbox, the served tools, stdio serving;
//! - [`handler`]: the MCP handler (tools, resources, prompt, completion);
//! - [`served_tools`], [`credential`], [`resources`], [`completion`], [`prompt`];
//! - [`http`] and [`http_guard`]: Streamable HTTP, DNS-rebinding protection,
//!   body limit, `/healthz`, graceful shutdown ([`shutdown`]);
//!   [`http_conn`]: each connection's time limits, the connection limit and
//!   the drain; [`http_routing_headers`]: `Mcp-Method`/`Mcp-Name` checked
//!   against the body; [`readiness`]: `/readyz`;
//! - [`demo`] and [`commands`]: `demo`, `call`, `tools`;
//! - [`remote_refresh`]: re-discovery of the remote MCP servers' tools
//!   (SIGHUP, `mcp.refresh_interval_s`).

pub mod app;
pub mod cli;
pub mod commands;
pub mod completion;
pub mod credential;
#[cfg(feature = "demo")]
pub mod demo;
pub mod error;
pub mod handler;
pub mod http;
pub mod http_conn;
pub mod http_guard;
pub mod http_routing_headers;
pub mod logging;
pub mod prompt;
pub mod readiness;
pub mod remote_refresh;
pub mod resources;
pub mod served_tools;
pub mod shutdown;

use std::time::Duration;

pub use app::{Herald, Launcher};
pub use error::ServerError;
pub use handler::HeraldServer;

/// Runs the `lorebase-herald` command line and returns the process exit code
/// (0 success, 1 a tool error or a runtime failure, 2 a usage or settings
/// error). `args[0]` is the program as MCP hosts should start it (`demo`
/// prints it in the host configurations): a path, `lorebase-herald`, or a
/// launcher such as `npx lorebase-herald`.
///
/// It builds its own Tokio runtime, so call it from a thread that is not
/// inside one (bindings: a plain or blocking thread). Logs go to stderr.
pub fn run_cli(args: Vec<String>) -> i32 {
    let cli = match cli::Cli::parse_args(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    logging::init(cli.flags.log_level.as_deref());
    let launcher = Launcher::from_argv0(args.first().map(String::as_str).unwrap_or_default());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("lorebase-herald")
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("lorebase-herald: cannot start the async runtime: {e}");
            return 1;
        }
    };
    let code = runtime.block_on(app::run(cli, launcher));
    // A blocking read of stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    code
}

/// [`run_cli`] for callers already inside a Tokio runtime (logging is
/// initialized here too).
pub async fn run_cli_async(args: Vec<String>) -> i32 {
    let cli = match cli::Cli::parse_args(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    logging::init(cli.flags.log_level.as_deref());
    let launcher = Launcher::from_argv0(args.first().map(String::as_str).unwrap_or_default());
    app::run(cli, launcher).await
}
