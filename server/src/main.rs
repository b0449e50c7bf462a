//! The `lorebase-herald` binary: the command line of [`herald_server::run_cli`].

/// mimalloc serves the binary's allocations (the `mimalloc` feature, on by
/// default): glibc's malloc took a large share of a call's samples under
/// load (docs/benchmarks.md, "Herald against the floor of its own
/// architecture"). `herald_server`'s `http::connection::heap_trim` gives its
/// freed pages back after a surge of connections.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let code = herald_server::run_cli(std::env::args().collect());
    std::process::exit(code);
}
