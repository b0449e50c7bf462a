//! `NativeHerald`: the tools of one Herald, in process. The Python class
//! `lorebase_herald.Herald` wraps it; everything goes through
//! `herald_core::tools::Toolbox` (no tool is re-implemented here).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::tool_interface::{ErrorCode, arguments_from_json};
use herald_core::tools::{RenderedOutput, ToolCallError, Toolbox};
use pyo3::prelude::*;
use serde_json::{Map, Value};
use tokio::task::{AbortHandle, JoinError};

use crate::errors;
use crate::runtime;

/// How often a blocking call looks for a pending signal (Ctrl-C) while it waits.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// One tool result as Python receives it: text, is_error, structured content as JSON text.
type OutputTuple = (String, bool, Option<String>);

/// The toolbox of the process that built it (rebuilt in a child after a fork,
/// since the parent's connection pool belongs to the parent's runtime).
struct ProcessToolbox {
    pid: u32,
    toolbox: Toolbox,
}

/// The tools of one Herald, with its settings resolved.
#[pyclass(module = "lorebase_herald._native", frozen)]
pub(crate) struct NativeHerald {
    settings: Settings,
    toolbox: Mutex<ProcessToolbox>,
}

impl NativeHerald {
    /// The toolbox for this process.
    fn toolbox(&self, py: Python<'_>) -> PyResult<Toolbox> {
        let pid = std::process::id();
        let mut slot = self.toolbox.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.pid != pid {
            slot.toolbox = build_toolbox(py, self.settings.clone())?;
            slot.pid = pid;
        }
        Ok(slot.toolbox.clone())
    }

    /// Everything a call needs, checked before anything is sent.
    fn prepare(
        &self,
        py: Python<'_>,
        arguments_json: &str,
        api_key: Option<String>,
    ) -> PyResult<(Toolbox, Map<String, Value>, Credential)> {
        let refused = |e: ToolCallError| errors::typed(py, e.code(), e.to_string());
        let arguments = arguments_from_json(Some(arguments_json)).map_err(|e| refused(e.into()))?;
        let credential = Credential::per_call(api_key.as_deref()).map_err(refused)?;
        Ok((self.toolbox(py)?, arguments, credential))
    }
}

#[pymethods]
impl NativeHerald {
    /// Resolves the settings (environment and `LOREBASE_CONFIG` file, then
    /// `options_json`, a JSON object shaped like the YAML `herald` section),
    /// and builds the toolbox (indexing the KB catalog when `kb.dir` is set)
    /// without holding the GIL.
    #[new]
    fn new(py: Python<'_>, options_json: &str) -> PyResult<Self> {
        let settings = py
            .detach(|| Settings::from_json_str(options_json))
            .map_err(|e| errors::typed(py, ErrorCode::InvalidSettings, e.to_string()))?;
        let toolbox = build_toolbox(py, settings.clone())?;
        Ok(Self {
            settings,
            toolbox: Mutex::new(ProcessToolbox {
                pid: std::process::id(),
                toolbox,
            }),
        })
    }

    /// Keeper's origin.
    #[getter]
    fn base_url(&self) -> &str {
        &self.settings.keeper.base_url
    }

    /// The Domain used when a call names none.
    #[getter]
    fn domain(&self) -> Option<&str> {
        self.settings.domain.as_deref()
    }

    /// The branch used when a call names none.
    #[getter]
    fn branch(&self) -> Option<&str> {
        self.settings.branch.as_deref()
    }

    /// Whether a key is configured (the key itself is never readable).
    #[getter]
    fn has_api_key(&self) -> bool {
        self.settings.keeper.api_key.is_some()
    }

    /// The tool definitions, in table order, as a JSON array.
    fn definitions_json(&self, py: Python<'_>) -> PyResult<String> {
        let definitions = self.toolbox(py)?.definitions();
        serde_json::to_string(&definitions)
            .map_err(|e| errors::typed(py, ErrorCode::Internal, e.to_string()))
    }

    /// Calls one tool and waits, without holding the GIL; Ctrl-C (a pending
    /// signal on the main thread) cancels the call and raises.
    #[pyo3(signature = (name, arguments_json, api_key=None))]
    fn call(
        &self,
        py: Python<'_>,
        name: String,
        arguments_json: &str,
        api_key: Option<String>,
    ) -> PyResult<OutputTuple> {
        let (toolbox, arguments, credential) = self.prepare(py, arguments_json, api_key)?;
        let runtime = shared_runtime(py)?;
        let mut task =
            runtime.spawn(async move { toolbox.call(&name, arguments, &credential).await });
        loop {
            let waited = py.detach(|| {
                runtime.block_on(async { tokio::time::timeout(SIGNAL_POLL, &mut task).await })
            });
            match waited {
                Ok(joined) => return finish(py, joined),
                Err(_still_running) => {
                    if let Err(signal) = py.check_signals() {
                        task.abort();
                        return Err(signal);
                    }
                }
            }
        }
    }

    /// Starts one tool call and returns at once; `on_done(outcome)` is called
    /// later from another thread with either a tuple `(text, is_error,
    /// structured_json)` or an exception instance, unless the interpreter
    /// exits first (`exit_gate`: then never).
    #[pyo3(signature = (name, arguments_json, api_key, on_done))]
    fn call_async(
        &self,
        py: Python<'_>,
        name: String,
        arguments_json: &str,
        api_key: Option<String>,
        on_done: Py<PyAny>,
    ) -> PyResult<NativeCall> {
        if !crate::exit_gate::is_open() {
            return Err(errors::typed(
                py,
                ErrorCode::Cancelled,
                "the interpreter is exiting: no new asynchronous tool call",
            ));
        }
        let (toolbox, arguments, credential) = self.prepare(py, arguments_json, api_key)?;
        let runtime = shared_runtime(py)?;
        let task = runtime.spawn(async move { toolbox.call(&name, arguments, &credential).await });
        let abort = task.abort_handle();
        runtime.spawn(async move {
            let joined = task.await;
            // Never once the interpreter exits (exit_gate): nobody waits then,
            // and a thread taking the GIL while it finalizes aborts the process.
            crate::exit_gate::with_python(|py| {
                let outcome = match finish(py, joined) {
                    Ok(output) => output.into_pyobject(py).map(|t| t.into_any().unbind()),
                    Err(error) => Ok(error.into_value(py).into_any()),
                };
                let delivered = outcome.and_then(|outcome| on_done.call1(py, (outcome,)));
                if let Err(error) = delivered {
                    error.write_unraisable(py, None);
                }
            });
        });
        Ok(NativeCall { abort })
    }

    fn __repr__(&self) -> String {
        format!(
            "NativeHerald(base_url={:?}, domain={:?})",
            self.settings.keeper.base_url, self.settings.domain
        )
    }
}

/// A tool call started by `call_async`.
#[pyclass(module = "lorebase_herald._native", frozen)]
pub(crate) struct NativeCall {
    abort: AbortHandle,
}

#[pymethods]
impl NativeCall {
    /// Stops the call (its request is dropped); `on_done` then reports a
    /// cancellation nobody needs to read.
    fn cancel(&self) {
        self.abort.abort();
    }

    /// Whether the call has finished (or was cancelled).
    fn done(&self) -> bool {
        self.abort.is_finished()
    }
}

/// Starts the toolbox (`Toolbox::start`, as every front end does): when the
/// settings declare remote MCP servers (`mcp.servers`), their tools are
/// discovered now (without the GIL, bounded by `mcp.discovery_timeout_s`; an
/// unreachable server is skipped).
fn build_toolbox(py: Python<'_>, settings: Settings) -> PyResult<Toolbox> {
    let runtime = shared_runtime(py)?;
    py.detach(|| runtime.block_on(Toolbox::start(settings)))
        .map_err(|e| errors::typed(py, e.code(), e.to_string()))
}

fn shared_runtime(py: Python<'_>) -> PyResult<Arc<tokio::runtime::Runtime>> {
    runtime::shared().map_err(|e| {
        errors::typed(
            py,
            ErrorCode::Internal,
            format!("cannot start the async runtime: {e}"),
        )
    })
}

/// The Python view of a finished call.
fn finish(
    py: Python<'_>,
    joined: Result<Result<RenderedOutput, ToolCallError>, JoinError>,
) -> PyResult<OutputTuple> {
    match joined {
        Ok(Ok(output)) => {
            let structured = match &output.structured {
                Some(value) => Some(
                    serde_json::to_string(value)
                        .map_err(|e| errors::typed(py, ErrorCode::Internal, e.to_string()))?,
                ),
                None => None,
            };
            Ok((output.text, output.is_error, structured))
        }
        Ok(Err(error)) => Err(errors::typed(py, error.code(), error.to_string())),
        Err(join) if join.is_cancelled() => Err(errors::typed(
            py,
            ErrorCode::Cancelled,
            "the tool call was cancelled",
        )),
        Err(_panic) => Err(errors::typed(
            py,
            ErrorCode::Internal,
            "the tool call failed inside lorebase_herald (a bug: please report it)",
        )),
    }
}
