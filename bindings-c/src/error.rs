//! The errors of the C API, their stable codes, and the thread-local last
//! error that C callers read after a function returned `NULL`.
//!
//! Only programming errors of the caller (a `NULL` argument, invalid UTF-8 or
//! JSON, an unknown tool, arguments that are not an object, settings that do
//! not load) and internal failures (a caught panic) are errors here. A tool
//! that fails against Keeper is a successful call whose result has
//! `"is_error": true`.

use std::cell::RefCell;
use std::ffi::{CString, c_char};

use herald_core::tool_interface::{ArgumentsError, ErrorCode, ToolCallError};
use herald_core::tools::ToolboxError;

/// The kind of the last error on the calling thread, as returned by
/// `lorebase_herald_last_error_code()`. The numeric values are stable.
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LorebaseHeraldErrorCode {
    /// The last fallible call on this thread succeeded.
    Ok = 0,
    /// A required pointer argument was `NULL`.
    NullArgument = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument (settings or tool arguments) did not parse.
    InvalidJson = 3,
    /// The settings were refused (unknown key, wrong type, impossible value,
    /// missing secret); the message names the key and where it came from.
    InvalidSettings = 4,
    /// No tool has that name (or it is not served with these settings).
    UnknownTool = 5,
    /// The tool arguments are not a JSON object, or the per-call key is empty.
    BadArguments = 6,
    /// The async runtime or the HTTP client of the remote MCP servers could
    /// not be started.
    Startup = 7,
    /// An internal error (a panic inside the library, caught at the boundary).
    Internal = 8,
    /// The handle was freed (`lorebase_herald_free`) while the call was in
    /// flight: the call was cancelled.
    Cancelled = 9,
}

/// An error of the C API, before it is stored as the thread's last error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CApiError {
    /// A required pointer argument was `NULL`.
    #[error("{0} must not be NULL")]
    NullArgument(&'static str),
    /// A string argument was not valid UTF-8.
    #[error("{0} is not valid UTF-8")]
    InvalidUtf8(&'static str),
    /// A JSON argument did not parse (the reason gives line and column only,
    /// never the text, which may hold a secret).
    #[error("{what} is not valid JSON: {reason}")]
    InvalidJson {
        /// Which argument.
        what: &'static str,
        /// The parser's reason.
        reason: String,
    },
    /// The settings were refused.
    #[error("invalid settings: {0}")]
    InvalidSettings(String),
    /// No tool has that name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The tool arguments are not a JSON object, or the per-call key is empty
    /// (the message says which).
    #[error("{0}")]
    BadArguments(String),
    /// The runtime or the Keeper client could not be started.
    #[error("cannot start: {0}")]
    Startup(String),
    /// A panic inside the library, caught at the boundary.
    #[error("internal error: {0}")]
    Internal(String),
    /// The handle was freed while the call was in flight.
    #[error("cancelled: the handle was freed (lorebase_herald_free) during the call")]
    Cancelled,
}

impl CApiError {
    /// The stable code of this error.
    pub fn code(&self) -> LorebaseHeraldErrorCode {
        match self {
            Self::NullArgument(_) => LorebaseHeraldErrorCode::NullArgument,
            Self::InvalidUtf8(_) => LorebaseHeraldErrorCode::InvalidUtf8,
            Self::InvalidJson { .. } => LorebaseHeraldErrorCode::InvalidJson,
            Self::InvalidSettings(_) => LorebaseHeraldErrorCode::InvalidSettings,
            Self::UnknownTool(_) => LorebaseHeraldErrorCode::UnknownTool,
            Self::BadArguments(_) => LorebaseHeraldErrorCode::BadArguments,
            Self::Startup(_) => LorebaseHeraldErrorCode::Startup,
            Self::Internal(_) => LorebaseHeraldErrorCode::Internal,
            Self::Cancelled => LorebaseHeraldErrorCode::Cancelled,
        }
    }
}

impl From<ToolCallError> for CApiError {
    fn from(error: ToolCallError) -> Self {
        match error {
            ToolCallError::UnknownTool(name) => Self::UnknownTool(name),
            other => Self::BadArguments(other.to_string()),
        }
    }
}

impl From<ArgumentsError> for CApiError {
    fn from(error: ArgumentsError) -> Self {
        match error {
            ArgumentsError::NotJson(reason) => Self::InvalidJson {
                what: "arguments_json",
                reason,
            },
            not_an_object => ToolCallError::from(not_an_object).into(),
        }
    }
}

impl From<ToolboxError> for CApiError {
    fn from(error: ToolboxError) -> Self {
        match error.code() {
            ErrorCode::InvalidSettings => Self::InvalidSettings(error.to_string()),
            _ => Self::Startup(error.to_string()),
        }
    }
}

/// The last error of one thread: its code and its message as a C string.
struct LastError {
    code: LorebaseHeraldErrorCode,
    message: CString,
}

thread_local! {
    static LAST_ERROR: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

/// Stores `error` as the calling thread's last error.
pub(crate) fn set_last_error(error: &CApiError) {
    // A C string cannot hold NUL: a message quoting a caller's string with
    // one would otherwise be lost.
    let text = error.to_string().replace('\0', "\u{FFFD}");
    let message = CString::new(text).unwrap_or_default();
    let code = error.code();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = Some(LastError { code, message }));
}

/// Clears the calling thread's last error (a fallible call starts).
pub(crate) fn clear_last_error() {
    LAST_ERROR.with(|slot| *slot.borrow_mut() = None);
}

/// The code of the calling thread's last error (`Ok` when none).
pub(crate) fn last_error_code() -> LorebaseHeraldErrorCode {
    LAST_ERROR.with(|slot| {
        slot.borrow()
            .as_ref()
            .map_or(LorebaseHeraldErrorCode::Ok, |last| last.code)
    })
}

/// The message of the calling thread's last error, or `NULL` when none. The
/// pointer stays valid until the next fallible call on this thread.
pub(crate) fn last_error_message() -> *const c_char {
    LAST_ERROR.with(|slot| {
        slot.borrow()
            .as_ref()
            .map_or(std::ptr::null(), |last| last.message.as_ptr())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_error_is_read_back_then_cleared() {
        set_last_error(&CApiError::NullArgument("name"));
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::NullArgument);
        let message = unsafe { std::ffi::CStr::from_ptr(last_error_message()) };
        assert_eq!(message.to_str().unwrap(), "name must not be NULL");
        clear_last_error();
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::Ok);
        assert!(last_error_message().is_null());
    }

    #[test]
    fn a_message_with_nul_is_kept() {
        set_last_error(&CApiError::UnknownTool("a\0b".into()));
        let message = unsafe { std::ffi::CStr::from_ptr(last_error_message()) };
        assert!(message.to_str().unwrap().starts_with("unknown tool"));
        clear_last_error();
    }

    #[test]
    fn last_errors_are_per_thread() {
        set_last_error(&CApiError::Internal("boom".into()));
        std::thread::spawn(|| assert_eq!(last_error_code(), LorebaseHeraldErrorCode::Ok))
            .join()
            .unwrap();
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::Internal);
        clear_last_error();
    }
}
