//! The boundary between C and Rust: every exported function runs its body
//! through [`guard`], so no panic unwinds into C and every failure becomes the
//! thread's last error; and C strings are read and handed out here.

use std::any::Any;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{CApiError, clear_last_error, set_last_error};

/// Runs `body` for an exported function: clears the thread's last error,
/// catches a panic, and on failure stores the error and returns `on_error`.
pub(crate) fn guard<T>(on_error: T, body: impl FnOnce() -> Result<T, CApiError>) -> T {
    clear_last_error();
    let outcome = catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(CApiError::Internal(panic_message(payload.as_ref()))));
    match outcome {
        Ok(value) => value,
        Err(error) => {
            set_last_error(&error);
            on_error
        }
    }
}

/// Runs `body` for an exported function that cannot fail (the free
/// functions): only keeps a panic from crossing into C.
pub(crate) fn guard_infallible(body: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(body)) {
        set_last_error(&CApiError::Internal(panic_message(payload.as_ref())));
    }
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        format!("panic: {text}")
    } else if let Some(text) = payload.downcast_ref::<String>() {
        format!("panic: {text}")
    } else {
        "panic".to_owned()
    }
}

/// Reads a required C string argument named `what`.
///
/// # Safety
/// `ptr` is `NULL` or points to a NUL-terminated string that stays valid and
/// unchanged for `'a`.
pub(crate) unsafe fn required_str<'a>(
    ptr: *const c_char,
    what: &'static str,
) -> Result<&'a str, CApiError> {
    // SAFETY: forwarded from the caller.
    unsafe { optional_str(ptr, what) }?.ok_or(CApiError::NullArgument(what))
}

/// Reads an optional C string argument named `what` (`NULL` is `None`).
///
/// # Safety
/// As [`required_str`].
pub(crate) unsafe fn optional_str<'a>(
    ptr: *const c_char,
    what: &'static str,
) -> Result<Option<&'a str>, CApiError> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: not NULL, and the caller promises a valid NUL-terminated string.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map(Some)
        .map_err(|_| CApiError::InvalidUtf8(what))
}

/// Hands a string to C: the caller frees it with `lorebase_herald_string_free`.
pub(crate) fn into_c_string(text: String) -> Result<*mut c_char, CApiError> {
    // The strings handed out are JSON, which escapes NUL, so this only fails
    // on a bug.
    CString::new(text)
        .map(CString::into_raw)
        .map_err(|_| CApiError::Internal("a result held a NUL byte".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{LorebaseHeraldErrorCode, last_error_code};

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let value: i32 = guard(-1, || panic!("the body broke"));
        assert_eq!(value, -1);
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::Internal);
        let message = unsafe { CStr::from_ptr(crate::error::last_error_message()) };
        assert_eq!(
            message.to_str().unwrap(),
            "internal error: panic: the body broke"
        );
    }

    #[test]
    fn a_formatted_panic_keeps_its_message() {
        let value = guard(0u8, || panic!("code {}", 7));
        assert_eq!(value, 0);
        let message = unsafe { CStr::from_ptr(crate::error::last_error_message()) };
        assert_eq!(message.to_str().unwrap(), "internal error: panic: code 7");
    }

    #[test]
    fn success_clears_an_earlier_error() {
        let _ = guard(0, || Err(CApiError::NullArgument("x")));
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::NullArgument);
        assert_eq!(guard(0, || Ok(5)), 5);
        assert_eq!(last_error_code(), LorebaseHeraldErrorCode::Ok);
    }

    #[test]
    fn strings_are_checked() {
        assert_eq!(
            unsafe { required_str(std::ptr::null(), "name") },
            Err(CApiError::NullArgument("name"))
        );
        let bad = c"\xff\xfe";
        assert_eq!(
            unsafe { required_str(bad.as_ptr(), "name") },
            Err(CApiError::InvalidUtf8("name"))
        );
        assert_eq!(unsafe { optional_str(std::ptr::null(), "key") }, Ok(None));
        assert_eq!(unsafe { required_str(c"ok".as_ptr(), "name") }, Ok("ok"));
    }
}
