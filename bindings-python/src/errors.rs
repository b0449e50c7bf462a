//! Typed Python exceptions for the caller's programming errors.
//!
//! The exception classes live in `lorebase_herald.errors` (so that they are
//! plain, documented Python classes); this module builds them by their stable
//! code (`herald_core::tool_interface::ErrorCode`, the same in every front end) through
//! `lorebase_herald.errors.error_from_code`. Tool failures are never
//! exceptions: they are results with `is_error`.

use herald_core::tool_interface::ErrorCode;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The typed exception of `code`, carrying `message`.
pub(crate) fn typed(py: Python<'_>, code: ErrorCode, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let code = code.as_str();
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
