//! `Herald`: the tools in-process, for Node agents.

use herald_core::config::{CONFIG_FILE_VAR, Secret, Settings, process_env};
use herald_core::keeper::Credential;
use herald_core::tools::{RenderedOutput, ToolCallError, Toolbox};
use napi::bindgen_prelude::{FromNapiValue, Object, PromiseRaw, Unknown};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::coded_error::{INVALID_SETTINGS, coded_error};

/// The `code` of a call whose arguments or options are unusable (as
/// `ToolCallError::BadArguments`).
const BAD_ARGUMENTS: &str = "bad-arguments";
use crate::options::{CallOptions, HeraldOptions, OPTION_NAMES, OptionsError, to_overrides};
use crate::tool_types::{ToolDefinition, ToolResult};

/// Lorebase Herald's tools, in-process: the same tools, settings and outputs
/// as the MCP server, without a server.
///
/// ```js
/// const { Herald } = require('lorebase-herald')
/// const herald = new Herald({ domain: 'supply' })
/// const tools = herald.listTools()
/// const { text, isError } = await herald.callTool('lorebase_get', { ref: 'Supplier/S-1001' })
/// ```
#[napi]
pub struct Herald {
    toolbox: Toolbox,
}

#[napi]
impl Herald {
    /// Loads the settings (file, environment, then `options`) and builds the
    /// tools. Throws an `Error` with `code: 'invalid-settings'` naming the
    /// option or setting at fault.
    #[napi(
        constructor,
        ts_args_type = "options?: HeraldOptions | undefined | null"
    )]
    pub fn new(env: Env, options: Option<Unknown>) -> napi::Result<Self> {
        let options = read_options(&env, options)?;
        let invalid = |message: String| coded_error(&env, INVALID_SETTINGS, &message);
        let overrides = to_overrides(&options).map_err(|e| invalid(e.to_string()))?;
        let settings = match &options.config_file {
            None => Settings::load(overrides),
            Some(path) => {
                let mut env = process_env();
                env.insert(CONFIG_FILE_VAR.to_string(), path.clone());
                Settings::load_with_env(&env, &overrides)
            }
        }
        .map_err(|e| invalid(e.to_string()))?;
        let toolbox = Toolbox::new(settings)
            .map_err(|e| invalid(format!("cannot build the Keeper client: {e}")))?;
        Ok(Self { toolbox })
    }

    /// The tools served, in table order: name, title, description, input and
    /// output schemas, annotations. Ready to hand to a function-calling model.
    #[napi]
    pub fn list_tools(&self) -> Vec<ToolDefinition> {
        self.toolbox
            .definitions()
            .into_iter()
            .map(ToolDefinition::from)
            .collect()
    }

    /// The Domain used when a call names none, if set.
    #[napi(getter)]
    pub fn domain(&self) -> Option<String> {
        self.toolbox.settings().domain.clone()
    }

    /// Keeper's origin.
    #[napi(getter)]
    pub fn base_url(&self) -> String {
        self.toolbox.settings().keeper.base_url.clone()
    }

    /// Asks the remote MCP servers of the `mcp.servers` setting for their
    /// tools, which then join `listTools()` and `callTool()` as
    /// `<server>__<tool>`. Call it once after `new Herald()` (and again to
    /// pick up servers that came up later); an unreachable server is skipped,
    /// within `mcp.discovery_timeout_s`. Resolves with the number of remote
    /// tools served.
    #[napi]
    pub async fn discover_remote_tools(&self) -> u32 {
        self.toolbox.discover_remote().await;
        u32::try_from(self.toolbox.remote_definitions().len()).unwrap_or(u32::MAX)
    }

    /// Calls one tool without blocking the event loop. `args` is an object or
    /// its JSON text (as function-calling models send it); `options.apiKey`
    /// sends this call with its own Keeper key.
    ///
    /// Resolves with `{ text, isError, structured? }`: tool failures are
    /// results with `isError: true`. Rejects only on a programming error, with
    /// an `Error` whose `code` is `unknown-tool` or `bad-arguments`.
    #[napi(
        ts_args_type = "name: string, args?: Record<string, unknown> | string | null, options?: CallOptions | undefined | null",
        ts_return_type = "Promise<ToolResult>"
    )]
    pub fn call_tool<'env>(
        &self,
        env: &'env Env,
        name: String,
        args: Option<Unknown>,
        options: Option<CallOptions>,
    ) -> napi::Result<PromiseRaw<'env, ToolResult>> {
        let prepared = read_arguments(args)
            .map_err(|e| (e.code(), e.to_string()))
            .and_then(|arguments| Ok((arguments, credential(options.unwrap_or_default())?)));
        let toolbox = self.toolbox.clone();
        let call = async move {
            Ok(match prepared {
                Ok((arguments, credential)) => toolbox
                    .call(&name, arguments, &credential)
                    .await
                    .map_err(|e| (e.code(), e.to_string())),
                Err(refused) => Err(refused),
            })
        };
        env.spawn_future_with_callback(call, settle)
    }
}

/// A refused call: the `code` of the thrown `Error` and its message.
type Refusal = (&'static str, String);

/// Turns the outcome into the promise's value, or its rejection with a coded
/// `Error` (on the JS thread).
fn settle(env: &Env, outcome: Result<RenderedOutput, Refusal>) -> napi::Result<ToolResult> {
    outcome
        .map(ToolResult::from)
        .map_err(|(code, message)| coded_error(env, code, &message))
}

/// Reads the options object, refusing properties that are not options.
fn read_options(env: &Env, options: Option<Unknown>) -> napi::Result<HeraldOptions> {
    let invalid = |message: String| coded_error(env, INVALID_SETTINGS, &message);
    let Some(options) = options else {
        return Ok(HeraldOptions::default());
    };
    match options.get_type()? {
        ValueType::Undefined | ValueType::Null => return Ok(HeraldOptions::default()),
        ValueType::Object => {}
        other => {
            return Err(invalid(format!(
                "the options of new Herald() must be an object, not a {}",
                other.to_string().to_lowercase()
            )));
        }
    }
    let raw = options.raw();
    // SAFETY: `raw` is a live object value of this call's environment.
    let object = unsafe { Object::from_napi_value(env.raw(), raw)? };
    for key in Object::keys(&object)? {
        if !OPTION_NAMES.contains(&key.as_str()) {
            return Err(invalid(OptionsError::Unknown(key).to_string()));
        }
    }
    // SAFETY: as above.
    unsafe { HeraldOptions::from_napi_value(env.raw(), raw) }
        .map_err(|e| invalid(format!("invalid options of new Herald(): {}", e.reason)))
}

/// The call's arguments: an object, its JSON text, or nothing (`{}`).
fn read_arguments(args: Option<Unknown>) -> Result<Map<String, Value>, ToolCallError> {
    let bad = |reason: String| ToolCallError::BadArguments(reason);
    let Some(args) = args else {
        return Ok(Map::new());
    };
    let kind = args.get_type().map_err(|e| bad(e.reason.clone()))?;
    let value = match kind {
        ValueType::Undefined | ValueType::Null => return Ok(Map::new()),
        ValueType::String => {
            // SAFETY: the value is a string.
            let text: String = unsafe { args.cast() }.map_err(|e| bad(e.reason.clone()))?;
            if text.trim().is_empty() {
                return Ok(Map::new());
            }
            serde_json::from_str::<Value>(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?
        }
        ValueType::Object => {
            // SAFETY: any JS value converts or fails cleanly.
            unsafe { args.cast::<Value>() }.map_err(|e| bad(e.reason.clone()))?
        }
        other => return Err(bad(format!("got a {}", other.to_string().to_lowercase()))),
    };
    match value {
        Value::Object(map) => Ok(map),
        Value::Array(_) => Err(bad("got an array".into())),
        other => Err(bad(format!("got {other}"))),
    }
}

/// The credential of one call: its own key, else the configured one.
fn credential(options: CallOptions) -> Result<Credential, Refusal> {
    match options.api_key {
        None => Ok(Credential::Configured),
        Some(key) if key.trim().is_empty() => Err((
            BAD_ARGUMENTS,
            "options.apiKey must not be empty (leave it out to use the configured key)".into(),
        )),
        Some(key) => Ok(Credential::Bearer(Secret::new(key))),
    }
}
