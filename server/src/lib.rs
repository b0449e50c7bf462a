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
//! Five rooms (docs/architecture.md, "Inside `server`") and the shutdown
//! they share, each using only those before it (`scripts/module-cycles.py`
//! checks the order, `LAYERS`):
//! - [`shutdown`]: SIGTERM/SIGINT (stdio and HTTP), a second signal
//!   exiting now, SIGHUP passed on;
//! - [`logging`]: the stderr log layer; [`logging::buffer`]: its writer,
//!   lines written together off the calls' path, dropped and counted while
//!   nobody reads stderr; [`logging::audit_file`]: `log.audit_file`;
//! - [`mcp`], the MCP side: the handler (tools, resources, prompt,
//!   completion) and what it serves, on either transport;
//! - [`http`], Streamable HTTP: the router and its policy (guard, OAuth,
//!   routing and tool-set headers, `/readyz`, `/metrics`), and
//!   [`http::connection`], the connection machinery (accept loop, limits,
//!   table, open-file limit, heap trims);
//! - [`app`]: settings, the toolbox, the served tools, serving them;
//!   [`app::remote_refresh`]: re-discovery of the remote MCP servers' tools;
//! - [`cli`]: the command line ([`cli::args`]) and the settings overrides it
//!   makes ([`cli::overrides`], handed to [`app`] as plain values), and the
//!   one-shot commands ([`cli::commands`]: `call`, `tools`; [`cli::demo`];
//!   [`cli::health`]: the container health check; [`cli::tool_tokens`]).
//!
//! Public: [`run_cli`] (what the bindings call), [`run_cli_async`], the types
//! re-exported here, and what the integration tests and the fuzz target
//! reach ([`http`]'s `bind`/`serve`/`router`, [`http::readiness`],
//! [`mcp::tool_forms`], [`mcp::credential`], [`shutdown`]); everything
//! else is `pub(crate)`, and the workspace's `unreachable_pub` lint keeps it so.

// The list above names the crate-private modules too, for `cargo doc
// --document-private-items` and whoever reads the source.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod app;
pub(crate) mod cli;
pub(crate) mod error;
pub mod http;
pub(crate) mod logging;
pub mod mcp;
pub mod shutdown;

use std::sync::Arc;
use std::time::Duration;

pub use app::{Herald, Launcher};
pub use error::ServerError;
pub use mcp::handler::HeraldServer;

use app::load_settings;
use cli::{Cli, Command};
use herald_core::config::{Settings, Transport};
use shutdown::Shutdown;

/// Runs the `lorebase-herald` command line and returns the process exit code
/// (0 success, 1 a tool error or a runtime failure, 2 a usage or settings
/// error). `args[0]` is the program as MCP hosts should start it (`demo`
/// prints it in the host configurations): a path, `lorebase-herald`, or a
/// launcher such as `npx lorebase-herald`.
///
/// It builds its own Tokio runtime, so call it from a thread that is not
/// inside one (bindings: a plain or blocking thread). Serving stdio, that
/// runtime is the calling thread alone: one agent's calls, and a call's
/// hand-offs between tasks stay on one thread (docs/benchmarks.md,
/// "Herald against the floor of its own architecture");
/// anything else gets a worker per core. Logs go to stderr.
pub fn run_cli(args: Vec<String>) -> i32 {
    let (cli, launcher) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    // The settings of a serving command are read once, here: they choose the runtime.
    let settings = serves(&cli).then(|| load_settings(&cli.launch_options()));
    let stdio = matches!(&settings, Some(Ok(s)) if s.transport == Transport::Stdio);
    // The heap trims of this runtime: its workers collect their heaps as they park.
    let trims = Arc::new(http::connection::heap_trim::HeapTrims::default());
    let runtime = if stdio {
        herald_core::runtime::current_thread("lorebase-herald")
    } else {
        let parked = trims.clone();
        herald_core::runtime::builder("lorebase-herald", None)
            .on_thread_park(move || parked.on_worker_park())
            .build()
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("lorebase-herald: cannot start the async runtime: {e}");
            return 1;
        }
    };
    // Log lines are written together, off the calls' path (log_buffer),
    // until the guard is dropped on the way out, which writes what waits.
    let log_flush = logging::batch();
    let code = finish(runtime.block_on(dispatch(cli, launcher, settings, trims)));
    // A blocking read of stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    drop(log_flush);
    code
}

/// [`run_cli`] for callers already inside a Tokio runtime (logging is
/// initialized here too).
pub async fn run_cli_async(args: Vec<String>) -> i32 {
    match parse(&args) {
        Ok((cli, launcher)) => run(cli, launcher).await,
        Err(code) => code,
    }
}

/// Parses the command line and starts the logs; a usage error is printed and
/// becomes its exit code.
fn parse(args: &[String]) -> Result<(Cli, Launcher), i32> {
    let cli = match Cli::parse_args(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return Err(e.exit_code());
        }
    };
    let default_filter = match cli.command {
        Some(Command::Call { .. } | Command::Tools { .. } | Command::Health { .. }) => {
            logging::ONE_SHOT_FILTER
        }
        _ => logging::DEFAULT_FILTER,
    };
    logging::init(
        cli.flags.log_level.as_deref(),
        cli.flags.log_format.map(cli::LogFormatArg::format),
        default_filter,
    );
    let launcher = Launcher::from_argv0(args.first().map(String::as_str).unwrap_or_default());
    Ok((cli, launcher))
}

/// Runs the parsed command line; returns the exit code.
pub(crate) async fn run(cli: Cli, launcher: Launcher) -> i32 {
    // The caller's runtime has no park hook: a trim collects the calling
    // thread's heap and glibc's only.
    let trims = Arc::new(http::connection::heap_trim::HeapTrims::default());
    finish(dispatch(cli, launcher, None, trims).await)
}

/// The exit code of a dispatched command; a failure is logged first.
fn finish(dispatched: Result<i32, ServerError>) -> i32 {
    match dispatched {
        Ok(code) => code,
        Err(e) => {
            logging::fatal(&e.to_string());
            e.exit_code()
        }
    }
}

/// Whether the command serves (stdio or HTTP) rather than running once.
fn serves(cli: &Cli) -> bool {
    matches!(
        cli.command,
        None | Some(Command::Serve) | Some(Command::Kb { .. })
    )
}

/// Runs `cli`'s command; a serving command uses `settings` when they were
/// already read, and trims the heap through `trims` (the runtime's).
async fn dispatch(
    cli: Cli,
    launcher: Launcher,
    settings: Option<Result<Settings, ServerError>>,
    trims: Arc<http::connection::heap_trim::HeapTrims>,
) -> Result<i32, ServerError> {
    match &cli.command {
        #[cfg(feature = "demo")]
        Some(Command::Demo) => cli::demo::run(&cli, &launcher).await,
        #[cfg(not(feature = "demo"))]
        Some(Command::Demo) => {
            let _ = &launcher;
            Err(ServerError::Usage(
                "this build has no demo (it was built without the `demo` feature)".into(),
            ))
        }
        Some(Command::Tools { format, tokens }) => {
            let herald = Herald::build(load_settings(&cli.launch_options())?)?;
            herald.discover_remote().await;
            let format = if *tokens { None } else { Some(*format) };
            let printed = cli::commands::print_tools(&herald, format);
            herald.toolbox.close_remote().await;
            printed.map(|()| 0)
        }
        Some(Command::Call { tool, json }) => {
            let herald = Herald::build(load_settings(&cli.launch_options())?)?;
            herald.discover_remote().await;
            let called = cli::commands::call(&herald, tool, json.as_deref()).await;
            // Before the runtime stops: a session task cancelled while it
            // closes its transport logs an error after a successful call.
            herald.toolbox.close_remote().await;
            called
        }
        Some(Command::Health { url }) => {
            let target = match url {
                Some(_) => cli::health::target(url.as_deref(), &Settings::default())?,
                None => cli::health::target(None, &load_settings(&cli.launch_options())?)?,
            };
            cli::health::check(&target).await
        }
        None | Some(Command::Serve) | Some(Command::Kb { .. }) => {
            let settings = settings.unwrap_or_else(|| load_settings(&cli.launch_options()))?;
            let herald = Herald::build(settings)?;
            let shutdown = Shutdown::on_signals();
            let serving = app::serve_discovering(&herald, shutdown.clone(), !cli.kb_only(), trims);
            let Some(served) = shutdown.unless_exit_now(serving).await else {
                return Ok(shutdown::SECOND_SIGNAL_EXIT_CODE);
            };
            herald.toolbox.close_remote().await;
            served.map(|()| 0)
        }
    }
}
