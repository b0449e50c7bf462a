//! `lorebase_herald._native`: the pyo3 module inside the `lorebase-herald` wheel.
//!
//! - [`run_cli`] runs the exact command line of the `lorebase-herald` binary
//!   (`herald_server::run_cli`): the console script and `python -m lorebase_herald`.
//! - [`herald::NativeHerald`] serves the tools in process through
//!   `herald_core::tools::Toolbox`, for the Python API and the framework adapters.
//!
//! The typed Python around it lives in `python/lorebase_herald`.

mod errors;
mod exit_gate;
mod herald;
mod runtime;

use pyo3::prelude::*;

/// Runs the `lorebase-herald` command line with `argv` (program name first)
/// and returns its exit code. The program name is how MCP hosts should start
/// the server (`lorebase-herald`, `uvx lorebase-herald`): `demo` prints it. The GIL is released for the whole run; the
/// server handles SIGINT and SIGTERM itself.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| herald_server::run_cli(argv))
}

/// The version of the Rust crates inside the wheel.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The Python keywords that stand for a settings key (`url` for
/// `keeper.base_url`), as `(keyword, key)`: the settings table's
/// (`herald_core::config::aliases`), so the Python package spells no key.
#[pyfunction]
fn setting_keywords() -> Vec<(&'static str, &'static str)> {
    herald_core::config::aliases::python_keywords()
        .map(|(keyword, key)| (keyword, key.name()))
        .collect()
}

/// The native half of `lorebase_herald`.
#[pymodule(name = "_native")]
mod native {
    #[pymodule_export]
    use super::exit_gate::close_for_exit;
    #[pymodule_export]
    use super::herald::{NativeCall, NativeHerald};
    #[pymodule_export]
    use super::{run_cli, setting_keywords, version};
}
