//! The handle behind `LorebaseHerald *`: a [`Toolbox`] and the async runtime
//! its calls run on. One handle serves many threads at once: every call
//! blocks only its own thread, and all of them share one Keeper connection
//! pool. Freeing it cancels the calls still running and waits for them
//! ([`InFlight`]) before the runtime goes.

use std::future::Future;

use herald_core::keeper::Credential;
use herald_core::tool_interface::arguments_from_json;
use herald_core::tools::Toolbox;
use serde_json::{Value, json};

use crate::error::CApiError;
use crate::in_flight::InFlight;

/// Worker threads of a handle's runtime: they drive the sockets and timers
/// while the calling threads wait for their answers.
const WORKER_THREADS: usize = 2;

/// A Herald toolbox for C callers. Opaque in C.
pub struct LorebaseHerald {
    toolbox: Toolbox,
    runtime: Option<tokio::runtime::Runtime>,
    calls: InFlight,
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
        let runtime =
            herald_core::runtime::multi_thread("lorebase-herald-capi", Some(WORKER_THREADS))
                .map_err(|error| CApiError::Startup(format!("the async runtime: {error}")))?;
        // The Keeper client's pool belongs to this runtime; remote MCP servers
        // (`mcp.servers`) are asked now (an unreachable one is skipped).
        let toolbox = runtime.block_on(Toolbox::start(settings))?;
        Ok(Self {
            toolbox,
            runtime: Some(runtime),
            calls: InFlight::default(),
        })
    }

    /// The definitions of the tools served, as a JSON array in table order
    /// (MCP shape: `name`, `title`, `description`, `inputSchema`,
    /// `outputSchema`, `annotations`).
    pub fn tools_json(&self) -> Result<String, CApiError> {
        let _inside = self.calls.enter()?;
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
        let arguments = arguments_from_json(arguments_json)?;
        let credential = Credential::per_call(api_key)?;
        let mut ticket = self.calls.enter()?;
        let call = self.toolbox.call(name, arguments, &credential);
        let output = self.block_on(ticket.or_cancelled(call))??;
        // Nothing of the handle is touched once the ticket is dropped.
        drop(ticket);
        let result = json!({
            "text": output.text,
            "is_error": output.is_error,
            "structured": output.structured.unwrap_or(Value::Null),
        });
        Ok(result.to_string())
    }

    /// Cancels the calls running on other threads and waits until they have
    /// returned; calls made afterwards fail with `Cancelled`. Freeing the
    /// handle does it first.
    pub fn close_calls(&self) {
        self.calls.close();
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
        // The calls still running on other threads return `Cancelled` first.
        self.calls.close();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert!(arguments_from_json(None).unwrap().is_empty());
        let e = CApiError::from(arguments_from_json(Some("[1]")).unwrap_err());
        assert_eq!(
            e,
            CApiError::BadArguments("tool arguments must be a JSON object: got an array".into())
        );
        assert!(matches!(
            CApiError::from(arguments_from_json(Some("{nope")).unwrap_err()),
            CApiError::InvalidJson {
                what: "arguments_json",
                ..
            }
        ));
    }
}
