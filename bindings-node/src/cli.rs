//! `runCli(args, program)`: the whole `lorebase-herald` command line, for
//! `npx lorebase-herald`.

use napi::bindgen_prelude::Object;
use napi::{Env, Status};
use napi_derive::napi;

/// Runs the `lorebase-herald` command line with `args` (without the program
/// name: `process.argv.slice(2)`) exactly as the native binary does: serve
/// (stdio or Streamable HTTP), `demo`, `call`, `tools`, `kb`, with the same
/// settings, output and exit codes. Resolves with the exit code.
///
/// `program` is how MCP hosts should start this Herald, as `demo` prints it
/// in the host configurations (default `npx -y lorebase-herald`).
///
/// The server runs on its own thread with its own runtime, so the event loop
/// stays free; stdout carries only what the command prints (the protocol, in
/// stdio mode), logs go to stderr. SIGINT and SIGTERM stop it gracefully
/// (a second one exits at once).
#[napi(ts_return_type = "Promise<number>")]
pub fn run_cli<'env>(
    env: &'env Env,
    args: Vec<String>,
    program: Option<String>,
) -> napi::Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred()?;
    let program = program
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "npx -y lorebase-herald".to_string());
    let mut argv = Vec::with_capacity(args.len() + 1);
    argv.push(program);
    argv.extend(args);
    std::thread::Builder::new()
        .name("lorebase-herald-cli".into())
        .spawn(move || {
            // `run_cli` builds its own runtime: this thread is in none.
            let outcome = std::panic::catch_unwind(|| herald_server::run_cli(argv));
            match outcome {
                Ok(code) => deferred.resolve(move |_| Ok(code)),
                Err(_) => deferred.reject(napi::Error::new(
                    Status::GenericFailure,
                    "lorebase-herald stopped on an internal error (see stderr)",
                )),
            }
        })
        .map_err(|e| {
            napi::Error::new(
                Status::GenericFailure,
                format!("cannot start the lorebase-herald thread: {e}"),
            )
        })?;
    Ok(promise)
}
