//! The handle behind `LorebaseHerald *`: a [`Toolbox`] and the async runtime
//! its calls run on. One handle serves many threads at once: every call
//! blocks only its own thread, and all of them share one Keeper connection
//! pool.

use std::future::Future;

use herald_core::config::Secret;
use herald_core::keeper::Credential;
use herald_core::tools::Toolbox;
use serde_json::{Map, Value, json};

use crate::error::CApiError;

/// Worker threads of a handle's runtime: they drive the sockets and timers
/// while the calling threads wait for their answers.
const WORKER_THREADS: usize = 2;

/// A Herald toolbox for C callers. Opaque in C.
pub struct LorebaseHerald {
    toolbox: Toolbox,
    runtime: Option<tokio::runtime::Runtime>,
}

// One handle is shared by many threads at once.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<LorebaseHerald>();
};

impl LorebaseHerald {
    /// Builds a handle from a JSON object of settings overrides (the keys of
    /// the YAML `herald` section), layered over the file and the environment;
    /// `None` reads the file and the environment only.
    pub fn new(settings_json: Option<&str>) -> Result<Self, CApiError> {
        let settings = crate::settings::load(settings_json)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name("lorebase-herald-capi")
            .enable_all()
            .build()
            .map_err(|error| CApiError::Startup(format!("the async runtime: {error}")))?;
        // The Keeper client's pool belongs to this runtime.
        let toolbox = {
            let _entered = runtime.enter();
            Toolbox::new(settings).map_err(|error| CApiError::Startup(error.to_string()))?
        };
        // Remote MCP servers (`mcp.servers`) join the toolbox now; an
        // unreachable one is logged and skipped, bounded by the discovery timeout.
        runtime.block_on(toolbox.discover_remote());
        Ok(Self {
            toolbox,
            runtime: Some(runtime),
        })
    }

    /// The definitions of the tools served, as a JSON array in table order
    /// (MCP shape: `name`, `title`, `description`, `inputSchema`,
    /// `outputSchema`, `annotations`).
    pub fn tools_json(&self) -> Result<String, CApiError> {
        serde_json::to_string(&self.toolbox.definitions())
            .map_err(|error| CApiError::Internal(format!("cannot encode the tools: {error}")))
    }

    /// Calls one tool with JSON arguments (`None` = no arguments) and the
    /// configured key, or `api_key` when given. Returns the JSON result
    /// `{"text", "is_error", "structured"}`; a tool failure is a result with
    /// `"is_error": true`, not an error.
    pub fn call_json(
        &self,
        name: &str,
        arguments_json: Option<&str>,
        api_key: Option<&str>,
    ) -> Result<String, CApiError> {
        let arguments = parse_arguments(arguments_json)?;
        let credential = match api_key {
            Some(key) => Credential::Bearer(Secret::new(key)),
            None => Credential::Configured,
        };
        let output = self.block_on(self.toolbox.call(name, arguments, &credential))?;
        let result = json!({
            "text": output.text,
            "is_error": output.is_error,
            "structured": output.structured.unwrap_or(Value::Null),
        });
        Ok(result.to_string())
    }

    /// Runs `future` on the handle's runtime, blocking the calling thread.
    fn block_on<F: Future + Send>(&self, future: F) -> F::Output
    where
        F::Output: Send,
    {
        let runtime = self.runtime.as_ref().expect("the runtime lives until drop");
        if tokio::runtime::Handle::try_current().is_ok() {
            // The caller is itself inside a Tokio runtime (a Rust host), where
            // blocking on another runtime is refused: wait on a plain thread.
            std::thread::scope(|scope| {
                scope
                    .spawn(|| runtime.block_on(future))
                    .join()
                    .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
            })
        } else {
            runtime.block_on(future)
        }
    }
}

impl Drop for LorebaseHerald {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                // Dropping a runtime inside another one is refused.
                runtime.shutdown_background();
            } else {
                drop(runtime);
            }
        }
    }
}

/// Parses the tool arguments: a JSON object, or none at all.
fn parse_arguments(arguments_json: Option<&str>) -> Result<Map<String, Value>, CApiError> {
    let Some(text) = arguments_json else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(arguments)) => Ok(arguments),
        Ok(other) => Err(CApiError::BadArguments(format!(
            "got {}",
            json_type_name(&other)
        ))),
        Err(error) => Err(CApiError::InvalidJson {
            what: "arguments_json",
            reason: error.to_string(),
        }),
    }
}

/// The JSON type of a value, for messages that must not quote the value.
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(parse_arguments(None), Ok(Map::new()));
        assert_eq!(
            parse_arguments(Some(r#"{"ref":"Supplier/S-1001"}"#))
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            parse_arguments(Some("[1]")),
            Err(CApiError::BadArguments("got an array".into()))
        );
        assert!(matches!(
            parse_arguments(Some("{nope")),
            Err(CApiError::InvalidJson {
                what: "arguments_json",
                ..
            })
        ));
    }
}
