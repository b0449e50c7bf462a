//! Errors thrown to JavaScript with a stable `code` property
//! (`err.code === 'unknown-tool'`, `herald_core::tool_interface::ErrorCode`), for the
//! caller's programming errors.

use napi::{Env, JsError, JsValue, Status};

/// Builds a JS `Error` whose `message` is `message` and whose `code` is `code`,
/// ready to be thrown or to reject a promise with. Must run on the JS thread.
pub(crate) fn coded_error(env: &Env, code: &str, message: &str) -> napi::Error {
    let error = napi::Error::new(code.to_string(), message.to_string());
    let value = JsError::from(error).into_unknown(*env);
    if value.raw().is_null() {
        // The environment could not build the object (it is shutting down):
        // keep the code in the message.
        return napi::Error::new(Status::GenericFailure, format!("[{code}] {message}"));
    }
    napi::Error::from(value)
}
