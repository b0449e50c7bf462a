//! A C ABI for Lorebase Herald's tools, for hosts that can call C (Go through
//! cgo, Swift, C#, Ruby FFI, Python ctypes): the same tools as the MCP server,
//! in-process, without the MCP protocol.
//!
//! The header `include/lorebase_herald.h` is generated from this crate by
//! cbindgen (`tests/header.rs` fails when the checked-in copy is stale). The
//! crate builds `liblorebase_herald.so` and `liblorebase_herald.a`.
//!
//! Rules of the API:
//! - Strings in and out are NUL-terminated UTF-8. Every `char *` returned is
//!   owned by the caller and freed with [`lorebase_herald_string_free`];
//!   handles are freed with [`lorebase_herald_free`].
//! - A function that fails returns `NULL` and sets the calling thread's last
//!   error ([`lorebase_herald_last_error_code`],
//!   [`lorebase_herald_last_error_message`]). Errors are programming errors
//!   only: a tool that fails against Keeper returns a result with
//!   `"is_error": true`.
//! - One handle may be used from many threads at once. No panic crosses the
//!   boundary: it becomes `LOREBASE_HERALD_ERROR_CODE_INTERNAL`.

#![warn(missing_docs)]

mod boundary;
mod error;
mod handle;
mod in_flight;
mod settings;

use std::ffi::c_char;

use boundary::{guard, guard_infallible, into_c_string, optional_str, required_str};
pub use error::LorebaseHeraldErrorCode;
pub use handle::LorebaseHerald;

/// The library version, with a NUL (for [`lorebase_herald_version`]).
const VERSION: &std::ffi::CStr = match std::ffi::CStr::from_bytes_with_nul(
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
) {
    Ok(version) => version,
    Err(_) => panic!("the version holds a NUL"),
};

/// Creates a handle: settings, the Keeper client and the tools table.
///
/// `settings_json` is `NULL` (settings from the YAML file named by
/// `LOREBASE_CONFIG` and the `LOREBASE_...` environment variables) or a JSON
/// object with the nested keys of the `herald` settings section, which
/// overrides those layers, for example
/// `{"keeper": {"base_url": "http://127.0.0.1:8080", "api_key": "secret://env/KEY"}, "domain": "supply"}`.
///
/// When the settings declare remote MCP servers (`mcp.servers`), their tools
/// are discovered here and join the handle's tools as `<server>__<tool>`; an
/// unreachable server is skipped, within `mcp.discovery_timeout_s`.
///
/// Returns `NULL` on error (invalid JSON, refused settings, a `tools.allow`
/// naming a tool that is not served, startup failure) and sets the last
/// error. Free the handle with `lorebase_herald_free`.
///
/// # Safety
/// `settings_json` is `NULL` or a valid NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_new(settings_json: *const c_char) -> *mut LorebaseHerald {
    guard(std::ptr::null_mut(), || {
        // SAFETY: forwarded from the caller.
        let settings_json = unsafe { optional_str(settings_json, "settings_json") }?;
        let handle = LorebaseHerald::new(settings_json)?;
        Ok(Box::into_raw(Box::new(handle)))
    })
}

/// Frees a handle. `NULL` is ignored. Calls still running on other threads
/// are cancelled first: each returns `NULL` with
/// `LOREBASE_HERALD_ERROR_CODE_CANCELLED`, and this function returns once
/// they all have (so the handle is never freed under them).
///
/// # Safety
/// `handle` is `NULL` or was returned by `lorebase_herald_new` and is freed
/// only once; no call on it starts after this function was called (calls
/// already running are fine).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_free(handle: *mut LorebaseHerald) {
    if handle.is_null() {
        return;
    }
    guard_infallible(|| {
        // SAFETY: a live handle from `lorebase_herald_new`; other threads may
        // still be inside calls on it, which only share it.
        unsafe { &*handle }.close_calls();
        // SAFETY: the caller hands back ownership of a handle from
        // `lorebase_herald_new`, and no call is inside it any more.
        drop(unsafe { Box::from_raw(handle) });
    });
}

/// Lists the tools the handle serves, as a JSON array in table order; each
/// element has `name`, `title`, `description`, `inputSchema`, `outputSchema`
/// (when the tool has one) and `annotations`, as MCP's `tools/list` does.
///
/// Returns `NULL` on error and sets the last error. Free the string with
/// `lorebase_herald_string_free`.
///
/// # Safety
/// `handle` is `NULL` or a live handle from `lorebase_herald_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_tools(handle: *const LorebaseHerald) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: the caller promises a live handle or NULL.
        let handle = unsafe { handle.as_ref() }.ok_or(error::CApiError::NullArgument("handle"))?;
        into_c_string(handle.tools_json()?)
    })
}

/// Calls the tool `name` with `arguments_json` (a JSON object; `NULL` or a
/// blank string means `{}`), with the configured `keeper.api_key`.
///
/// Returns the JSON result `{"text": string, "is_error": bool, "structured":
/// object or null}`: `text` is what a model would see; `is_error` marks a tool
/// failure (`[code] message`, issue lines, a `next:` line); `structured` is
/// the answer as JSON (MCP's `structuredContent`, shaped by the tool's
/// `outputSchema`), or null when there is none, as on tool failures.
///
/// Returns `NULL` on a programming error (unknown tool, arguments that are not
/// a JSON object, invalid UTF-8) and sets the last error. Blocks the calling
/// thread until Keeper answers (including retries). Free the string with
/// `lorebase_herald_string_free`.
///
/// # Safety
/// `handle` is `NULL` or a live handle; `name` and `arguments_json` are `NULL`
/// or valid NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_call(
    handle: *const LorebaseHerald,
    name: *const c_char,
    arguments_json: *const c_char,
) -> *mut c_char {
    // SAFETY: forwarded from the caller.
    unsafe { lorebase_herald_call_with_key(handle, name, arguments_json, std::ptr::null()) }
}

/// Like `lorebase_herald_call`, with the caller's own Keeper API key
/// `api_key` for this call instead of the configured one (`NULL` = the
/// configured one; an empty key is refused with
/// `LOREBASE_HERALD_ERROR_CODE_BAD_ARGUMENTS`). For hosts that serve several
/// agents, each with its grants.
///
/// # Safety
/// As `lorebase_herald_call`; `api_key` is `NULL` or a valid NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_call_with_key(
    handle: *const LorebaseHerald,
    name: *const c_char,
    arguments_json: *const c_char,
    api_key: *const c_char,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: the caller promises a live handle or NULL.
        let handle = unsafe { handle.as_ref() }.ok_or(error::CApiError::NullArgument("handle"))?;
        // SAFETY: forwarded from the caller.
        let name = unsafe { required_str(name, "name") }?;
        // SAFETY: forwarded from the caller.
        let arguments_json = unsafe { optional_str(arguments_json, "arguments_json") }?;
        // SAFETY: forwarded from the caller.
        let api_key = unsafe { optional_str(api_key, "api_key") }?;
        into_c_string(handle.call_json(name, arguments_json, api_key)?)
    })
}

/// Frees a string returned by this library. `NULL` is ignored.
///
/// # Safety
/// `string` is `NULL` or was returned by `lorebase_herald_tools`,
/// `lorebase_herald_call` or `lorebase_herald_call_with_key`, and is freed
/// only once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lorebase_herald_string_free(string: *mut c_char) {
    if string.is_null() {
        return;
    }
    guard_infallible(|| {
        // SAFETY: the caller hands back ownership of a string from
        // `CString::into_raw`.
        drop(unsafe { std::ffi::CString::from_raw(string) });
    });
}

/// The code of the calling thread's last error:
/// `LOREBASE_HERALD_ERROR_CODE_OK` when the last call of
/// `lorebase_herald_new`, `lorebase_herald_tools`, `lorebase_herald_call` or
/// `lorebase_herald_call_with_key` on this thread succeeded.
#[unsafe(no_mangle)]
pub extern "C" fn lorebase_herald_last_error_code() -> LorebaseHeraldErrorCode {
    error::last_error_code()
}

/// The message of the calling thread's last error, or `NULL` when the last
/// call succeeded. The string belongs to the library: do not free it; it
/// stays valid until the next call of a fallible function on this thread.
/// Messages never contain secrets.
#[unsafe(no_mangle)]
pub extern "C" fn lorebase_herald_last_error_message() -> *const c_char {
    error::last_error_message()
}

/// The library version, such as `"0.1.0"`: a static string, do not free it.
#[unsafe(no_mangle)]
pub extern "C" fn lorebase_herald_version() -> *const c_char {
    VERSION.as_ptr()
}
