//! Typed Python exceptions for the caller's programming errors.
//!
//! The exception classes live in `lorebase_herald.errors` (so that they are
//! plain, documented Python classes); this module builds them by their stable
//! `code` through `lorebase_herald.errors.error_from_code`. Tool failures are
//! never exceptions: they are results with `is_error`.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Code of a failure inside the module itself (a bug): a panic, a runtime
/// that cannot start.
pub const INTERNAL: &str = "internal";
/// Code of settings that do not load or do not validate.
pub const INVALID_SETTINGS: &str = "invalid-settings";
/// Code of arguments that are not a JSON object (same as `ToolCallError`).
pub const BAD_ARGUMENTS: &str = "bad-arguments";

/// The typed exception of `code`, carrying `message`.
pub fn typed(py: Python<'_>, code: &str, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let built = py
        .import("lorebase_herald.errors")
        .and_then(|module| module.getattr("error_from_code"))
        .and_then(|factory| factory.call1((code, message.as_str())));
    match built {
        Ok(exception) => PyErr::from_value(exception),
        // The module was imported without its Python package around it.
        Err(_) => PyRuntimeError::new_err(format!("[{code}] {message}")),
    }
}

/// Code of a call that was cancelled before it finished.
pub const CANCELLED: &str = "cancelled";
