//! The exported functions, called as C would call them, against the sandbox
//! Keeper over real HTTP on a loopback port.

use std::ffi::{CStr, CString, c_char};
use std::ptr;

use lorebase_herald::*;
use lorebase_sandbox::{AuthMode, Sandbox, SandboxOptions};
use serde_json::Value;

/// A sandbox in `api_key` mode, served by its own runtime.
struct Keeper {
    sandbox: Sandbox,
    runtime: tokio::runtime::Runtime,
}

impl Keeper {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let sandbox = runtime
            .block_on(Sandbox::start(SandboxOptions {
                auth: AuthMode::ApiKey,
                ..Default::default()
            }))
            .unwrap();
        Self { sandbox, runtime }
    }

    fn reader_key(&self) -> &str {
        self.sandbox
            .key_of("agt_reader")
            .expect("the sandbox mints agt_reader")
    }

    /// A handle on this sandbox with the reader's key.
    fn handle(&self) -> Handle {
        let settings = serde_json::json!({
            "keeper": {"base_url": self.sandbox.url(), "api_key": self.reader_key(), "max_retries": 0},
            "domain": "supply",
        });
        Handle::new(Some(&settings.to_string())).unwrap_or_else(|(code, message)| {
            panic!("lorebase_herald_new failed: {code:?} {message}")
        })
    }
}

/// A handle freed on drop.
struct Handle(*mut LorebaseHerald);

// The C API promises that one handle serves many threads.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

impl Handle {
    fn new(settings: Option<&str>) -> Result<Self, (LorebaseHeraldErrorCode, String)> {
        let settings = settings.map(|s| CString::new(s).unwrap());
        let handle =
            unsafe { lorebase_herald_new(settings.as_ref().map_or(ptr::null(), |s| s.as_ptr())) };
        if handle.is_null() {
            Err(last_error())
        } else {
            assert_eq!(
                lorebase_herald_last_error_code(),
                LorebaseHeraldErrorCode::Ok
            );
            Ok(Self(handle))
        }
    }

    fn tools(&self) -> Value {
        let tools = unsafe { lorebase_herald_tools(self.0) };
        serde_json::from_str(&take(tools).expect("tools")).unwrap()
    }

    /// Calls a tool: the parsed result, or the last error.
    fn call(
        &self,
        name: &str,
        arguments: &str,
    ) -> Result<Value, (LorebaseHeraldErrorCode, String)> {
        self.call_with_key(name, arguments, None)
    }

    fn call_with_key(
        &self,
        name: &str,
        arguments: &str,
        key: Option<&str>,
    ) -> Result<Value, (LorebaseHeraldErrorCode, String)> {
        let name = CString::new(name).unwrap();
        let arguments = CString::new(arguments).unwrap();
        let key = key.map(|k| CString::new(k).unwrap());
        let result = unsafe {
            lorebase_herald_call_with_key(
                self.0,
                name.as_ptr(),
                arguments.as_ptr(),
                key.as_ref().map_or(ptr::null(), |k| k.as_ptr()),
            )
        };
        match take(result) {
            Some(text) => Ok(serde_json::from_str(&text).unwrap()),
            None => Err(last_error()),
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { lorebase_herald_free(self.0) };
    }
}

/// Copies and frees a string returned by the library.
fn take(string: *mut c_char) -> Option<String> {
    if string.is_null() {
        return None;
    }
    let text = unsafe { CStr::from_ptr(string) }
        .to_str()
        .unwrap()
        .to_owned();
    unsafe { lorebase_herald_string_free(string) };
    Some(text)
}

fn last_error() -> (LorebaseHeraldErrorCode, String) {
    let message = lorebase_herald_last_error_message();
    assert!(!message.is_null(), "an error without a message");
    let message = unsafe { CStr::from_ptr(message) }
        .to_str()
        .unwrap()
        .to_owned();
    (lorebase_herald_last_error_code(), message)
}

fn text(result: &Value) -> &str {
    result["text"].as_str().expect("text")
}

#[test]
fn lists_the_fourteen_tools_in_table_order() {
    let keeper = Keeper::start();
    let tools = keeper.handle().tools();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 14, "{names:?}");
    assert_eq!(names[0], "lorebase_context");
    assert!(names.contains(&"lorebase_get") && names.contains(&"lorebase_query"));
    for tool in tools.as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
    }
}

#[test]
fn gets_and_queries_records() {
    let keeper = Keeper::start();
    let herald = keeper.handle();

    let got = herald
        .call("lorebase_get", r#"{"ref": "Supplier/S-1001"}"#)
        .unwrap();
    assert_eq!(got["is_error"], false, "{got}");
    assert!(text(&got).contains("Supplier/S-1001"), "{got}");

    let json = herald
        .call(
            "lorebase_get",
            r#"{"ref": "Supplier/S-1001", "format": "json"}"#,
        )
        .unwrap();
    assert_eq!(json["is_error"], false, "{json}");
    assert!(json["structured"].is_object(), "{json}");

    let rows = herald
        .call(
            "lorebase_query",
            r#"{"query": {"kind": "Supplier", "limit": 3}}"#,
        )
        .unwrap();
    assert_eq!(rows["is_error"], false, "{rows}");
    assert!(text(&rows).contains("Supplier/"), "{rows}");
}

#[test]
fn tool_failures_are_results_not_errors() {
    let keeper = Keeper::start();
    let herald = keeper.handle();

    let missing = herald
        .call("lorebase_get", r#"{"ref": "Supplier/NOPE-404"}"#)
        .unwrap();
    assert_eq!(missing["is_error"], true, "{missing}");
    assert!(text(&missing).starts_with("[not-found]"), "{missing}");
    assert_eq!(missing["structured"], Value::Null);
    assert_eq!(
        lorebase_herald_last_error_code(),
        LorebaseHeraldErrorCode::Ok
    );

    let wrong_key = "lbk_abcdefghij_klmnopqr";
    let refused = herald
        .call_with_key(
            "lorebase_get",
            r#"{"ref": "Supplier/S-1001"}"#,
            Some(wrong_key),
        )
        .unwrap();
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(text(&refused).starts_with("[unauthorized]"), "{refused}");
    assert!(!refused.to_string().contains(wrong_key));

    let per_call = herald
        .call_with_key(
            "lorebase_get",
            r#"{"ref": "Supplier/S-1001"}"#,
            Some(keeper.reader_key()),
        )
        .unwrap();
    assert_eq!(per_call["is_error"], false, "{per_call}");

    // An empty key would reach Keeper as no credential: refused, as in every front end.
    let Err((code, message)) =
        herald.call_with_key("lorebase_get", r#"{"ref": "Supplier/S-1001"}"#, Some(""))
    else {
        panic!("an empty per-call key was accepted");
    };
    assert_eq!(code, LorebaseHeraldErrorCode::BadArguments, "{message}");
    assert!(message.contains("API key"), "{message}");
}

#[test]
fn programming_errors_set_the_last_error() {
    let keeper = Keeper::start();
    let herald = keeper.handle();
    let cases = [
        (
            "lorebase_nope",
            "{}",
            LorebaseHeraldErrorCode::UnknownTool,
            "lorebase_nope",
        ),
        (
            "lorebase_get",
            "[]",
            LorebaseHeraldErrorCode::BadArguments,
            "JSON object",
        ),
        (
            "lorebase_get",
            "{\"ref\": ",
            LorebaseHeraldErrorCode::InvalidJson,
            "arguments_json",
        ),
    ];
    for (name, arguments, code, needle) in cases {
        let (got, message) = herald.call(name, arguments).unwrap_err();
        assert_eq!(got, code, "{name} {arguments}: {message}");
        assert!(message.contains(needle), "{message}");
    }

    let name = c"lorebase_get";
    let result = unsafe { lorebase_herald_call(ptr::null(), name.as_ptr(), ptr::null()) };
    assert!(result.is_null());
    assert_eq!(
        last_error(),
        (
            LorebaseHeraldErrorCode::NullArgument,
            "handle must not be NULL".into()
        )
    );

    let result = unsafe { lorebase_herald_call(herald.0, ptr::null(), ptr::null()) };
    assert!(result.is_null());
    assert_eq!(last_error().0, LorebaseHeraldErrorCode::NullArgument);

    let bad_utf8 = c"lorebase_\xff";
    let result = unsafe { lorebase_herald_call(herald.0, bad_utf8.as_ptr(), ptr::null()) };
    assert!(result.is_null());
    assert_eq!(
        last_error(),
        (
            LorebaseHeraldErrorCode::InvalidUtf8,
            "name is not valid UTF-8".into()
        )
    );

    // NULL arguments are `{}`, and a success clears the last error.
    let branches =
        unsafe { lorebase_herald_call(herald.0, c"lorebase_branches".as_ptr(), ptr::null()) };
    let branches: Value = serde_json::from_str(&take(branches).unwrap()).unwrap();
    assert_eq!(branches["is_error"], false, "{branches}");
    assert_eq!(
        lorebase_herald_last_error_code(),
        LorebaseHeraldErrorCode::Ok
    );
    assert!(lorebase_herald_last_error_message().is_null());

    // Freeing NULL does nothing.
    unsafe {
        lorebase_herald_free(ptr::null_mut());
        lorebase_herald_string_free(ptr::null_mut());
    }
}

#[test]
fn refused_settings_name_the_key_and_never_the_secret() {
    let secret = "lbk_supersecre_t0000000";
    let cases = [
        (
            "{\"keeper\": ".to_owned(),
            LorebaseHeraldErrorCode::InvalidJson,
            "settings_json",
        ),
        (
            r#"{"http": {"prot": 1}}"#.to_owned(),
            LorebaseHeraldErrorCode::InvalidSettings,
            "http.prot",
        ),
        (
            "42".to_owned(),
            LorebaseHeraldErrorCode::InvalidSettings,
            "JSON object",
        ),
        (
            format!(r#"{{"keeper": {{"api_key": "{secret}", "max_retries": "many"}}}}"#),
            LorebaseHeraldErrorCode::InvalidSettings,
            "max_retries",
        ),
        (
            r#"{"keeper": {"api_key": "secret://env/LOREBASE_CAPI_TEST_UNSET"}}"#.to_owned(),
            LorebaseHeraldErrorCode::InvalidSettings,
            "LOREBASE_CAPI_TEST_UNSET",
        ),
        (
            r#"{"tools": {"allow": ["lorebase_gte"]}}"#.to_owned(),
            LorebaseHeraldErrorCode::InvalidSettings,
            "lorebase_gte",
        ),
    ];
    for (settings, code, needle) in cases {
        let Err((got, message)) = Handle::new(Some(&settings)) else {
            panic!("{settings} was accepted");
        };
        assert_eq!(got, code, "{settings}: {message}");
        assert!(message.contains(needle), "{settings}: {message}");
        assert!(!message.contains(secret), "{message}");
    }
}

#[test]
fn one_handle_serves_many_threads_at_once() {
    let keeper = Keeper::start();
    let herald = keeper.handle();
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let herald = &herald;
            scope.spawn(move || {
                for call in 0..5 {
                    let result = if (thread + call) % 2 == 0 {
                        herald.call("lorebase_get", r#"{"ref": "Supplier/S-1001"}"#)
                    } else {
                        herald.call(
                            "lorebase_query",
                            r#"{"query": {"kind": "Supplier", "limit": 2}}"#,
                        )
                    };
                    let result = result.unwrap();
                    assert_eq!(result["is_error"], false, "{result}");
                }
                // Each thread's last error is its own.
                if thread == 0 {
                    assert!(herald.call("lorebase_nope", "{}").is_err());
                    assert_eq!(
                        lorebase_herald_last_error_code(),
                        LorebaseHeraldErrorCode::UnknownTool
                    );
                } else {
                    assert_eq!(
                        lorebase_herald_last_error_code(),
                        LorebaseHeraldErrorCode::Ok
                    );
                }
            });
        }
    });
}

#[test]
fn works_when_called_from_inside_a_tokio_runtime() {
    let keeper = Keeper::start();
    let herald = keeper.handle();
    let result = keeper
        .runtime
        .block_on(async { herald.call("lorebase_get", r#"{"ref": "Supplier/S-1001"}"#) });
    assert_eq!(result.unwrap()["is_error"], false);
    // Freeing it there too.
    keeper.runtime.block_on(async move { drop(herald) });
}

#[test]
fn reports_its_version() {
    let version = unsafe { CStr::from_ptr(lorebase_herald_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}
