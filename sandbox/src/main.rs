//! `lorebase-sandbox`: the sandbox Keeper as a program. It prints one line on
//! stdout when ready (`LOREBASE_SANDBOX_READY {"url", "auth", "domains", "keys"}`)
//! and logs on stderr.

use std::process::ExitCode;

use clap::Parser;
use lorebase_sandbox::{AuthMode, Sandbox, SandboxOptions};

/// An in-memory Keeper with the sample Domains `supply` and `retail`.
#[derive(Debug, Parser)]
#[command(name = "lorebase-sandbox", version, about)]
struct Cli {
    /// Interface to listen on.
    #[arg(long, default_value = "127.0.0.1", env = "LOREBASE_SANDBOX_HOST")]
    host: String,
    /// Port (0 picks a free one; the READY line says which).
    #[arg(long, default_value_t = 8080, env = "LOREBASE_SANDBOX_PORT")]
    port: u16,
    /// `none`: every request is the anonymous administrator; `api_key`: keys
    /// are minted for the sample principals and printed on the READY line;
    /// `jwt`: bearer JWTs of --oauth-issuer, signed by a key of
    /// --oauth-jwks, whose aud holds the sandbox's URL and whose sub is a
    /// sample principal (agt_reader, ...); a token for another audience is
    /// refused.
    #[arg(long, default_value = "none", env = "LOREBASE_SANDBOX_AUTH")]
    auth: AuthMode,
    /// Auth mode jwt: the issuer (`iss`) accepted.
    #[arg(long)]
    oauth_issuer: Option<String>,
    /// Auth mode jwt: a JWKS file with the issuer's keys (read again when a
    /// token names a key it lacks).
    #[arg(long)]
    oauth_jwks: Option<std::path::PathBuf>,
    /// Mint the same keys on every start (tests); random keys without it.
    #[arg(long, env = "LOREBASE_SANDBOX_SEED")]
    seed: Option<u64>,
    /// Add the Domain `synthetic` with this many Records (benchmarks).
    #[arg(long)]
    synthetic: Option<usize>,
    /// Answer as a Keeper one release ahead of the contract: extra fields,
    /// enum values and problem codes it does not list (the READY line's
    /// `newer_keeper` says which).
    #[arg(long, env = "LOREBASE_SANDBOX_NEWER_KEEPER")]
    newer_keeper: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("LOREBASE_SANDBOX_LOG").unwrap_or_else(
                |_| tracing_subscriber::EnvFilter::new("info,lorebase_sandbox::http=debug"),
            ),
        )
        .init();
    let cli = Cli::parse();
    let options = SandboxOptions {
        host: cli.host,
        port: cli.port,
        auth: cli.auth,
        oauth_issuer: cli.oauth_issuer,
        oauth_jwks: cli.oauth_jwks,
        seed: cli.seed,
        synthetic: cli.synthetic,
        newer_keeper: cli.newer_keeper,
        ..Default::default()
    };
    let sandbox = match Sandbox::start(options).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("lorebase-sandbox: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", sandbox.ready_line());
    tracing::info!(url = %sandbox.url(), auth = %sandbox.auth(), "the sandbox Keeper is ready");
    for k in sandbox.keys() {
        eprintln!(
            "  principal {} (roles {}): key printed on the READY line",
            k.principal,
            k.roles.join(", ")
        );
    }
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("stopping");
    ExitCode::SUCCESS
}
