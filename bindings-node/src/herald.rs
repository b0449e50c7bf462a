//! `Herald`: the tools in-process, for Node agents.

use herald_core::config::{CONFIG_FILE_VAR, Settings, process_env};
use herald_core::keeper::Credential;
use herald_core::tool_interface::{ErrorCode, arguments_from_json, arguments_from_value};
use herald_core::tools::{RenderedOutput, ToolCallError, Toolbox};
use napi::bindgen_prelude::{FromNapiValue, Object, PromiseRaw, Unknown};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::coded_error::coded_error;
use crate::options::{CallOptions, HeraldOptions, OptionsError, option_names, to_overrides};
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
    /// Loads the settings (file, environment, then `options`), builds the
    /// tools and asks the remote MCP servers of `mcp.servers` for theirs
    /// (bounded by `mcp.discovery_timeout_s`; an unreachable server is
    /// skipped). Throws an `Error` with `code: 'invalid-settings'` naming the
    /// option or setting at fault (a name in `tools` that is no tool, too).
    #[napi(
        constructor,
        ts_args_type = "options?: HeraldOptions | undefined | null"
    )]
    pub fn new(env: Env, options: Option<Unknown>) -> napi::Result<Self> {
        let options = read_options(&env, options)?;
        let invalid =
            |message: String| coded_error(&env, ErrorCode::InvalidSettings.as_str(), &message);
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
        let toolbox = napi::bindgen_prelude::block_on(Toolbox::start(settings))
            .map_err(|e| coded_error(&env, e.code().as_str(), &e.to_string()))?;
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

    /// Asks the remote MCP servers of the `mcp.servers` setting again for
    /// their tools (`new Herald()` asked them already), which then join
    /// `listTools()` and `callTool()` as `<server>__<tool>`: servers that came
    /// up later join. An unreachable server is skipped, within
    /// `mcp.discovery_timeout_s`. Resolves with the number of remote tools
    /// served.
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
    /// an `Error` whose `code` is `unknown-tool` or `bad-arguments` (arguments
    /// that are not an object, an empty `options.apiKey`).
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
        let api_key = options.unwrap_or_default().api_key;
        let prepared = read_arguments(args)
            .and_then(|arguments| Ok((arguments, Credential::per_call(api_key.as_deref())?)))
            .map_err(|e| (e.code(), e.to_string()));
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
type Refusal = (ErrorCode, String);

/// Turns the outcome into the promise's value, or its rejection with a coded
/// `Error` (on the JS thread).
fn settle(env: &Env, outcome: Result<RenderedOutput, Refusal>) -> napi::Result<ToolResult> {
    outcome
        .map(ToolResult::from)
        .map_err(|(code, message)| coded_error(env, code.as_str(), &message))
}

/// Reads the options object, refusing properties that are not options.
fn read_options(env: &Env, options: Option<Unknown>) -> napi::Result<HeraldOptions> {
    let invalid = |message: String| coded_error(env, ErrorCode::InvalidSettings.as_str(), &message);
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
        if !option_names().contains(&key.as_str()) {
            return Err(invalid(OptionsError::Unknown(key).to_string()));
        }
    }
    // SAFETY: as above.
    unsafe { HeraldOptions::from_napi_value(env.raw(), raw) }
        .map_err(|e| invalid(format!("invalid options of new Herald(): {}", e.reason)))
}

/// The call's arguments: an object, its JSON text, or nothing (`{}`); the
/// text and the value are read by core's parser, as in every front end.
fn read_arguments(args: Option<Unknown>) -> Result<Map<String, Value>, ToolCallError> {
    let bad = |reason: String| ToolCallError::BadArguments(reason);
    let Some(args) = args else {
        return Ok(Map::new());
    };
    let kind = args.get_type().map_err(|e| bad(e.reason.clone()))?;
    match kind {
        ValueType::Undefined | ValueType::Null => Ok(Map::new()),
        ValueType::String => {
            // SAFETY: the value is a string.
            let text: String = unsafe { args.cast() }.map_err(|e| bad(e.reason.clone()))?;
            Ok(arguments_from_json(Some(&text))?)
        }
        ValueType::Object => {
            // SAFETY: any JS value converts or fails cleanly.
            let value = unsafe { args.cast::<Value>() }.map_err(|e| bad(e.reason.clone()))?;
            Ok(arguments_from_value(value)?)
        }
        other => Err(bad(format!("got a {}", other.to_string().to_lowercase()))),
    }
}
