//! The `lorebase-herald` binary: the command line of [`herald_server::run_cli`].

fn main() {
    let code = herald_server::run_cli(std::env::args().collect());
    std::process::exit(code);
}
