//! The tools: one table of definitions (name, description, input and output
//! schemas, annotations) and one handler each, served by the MCP server, the
//! Node addon, the Python module and the C API alike through [`Toolbox`].
//!
//! - `table`: the 14 Lorebase tools as data (name, title, description,
//!   input schema, output schema, annotations);
//! - `handlers`: one handler per tool (typed arguments, one Keeper call, a
//!   rendering);
//! - `args`: the shared arguments and the `[validation-failed]` errors;
//! - the KB tools (`kb_search`, `kb_get`) join the table when `kb.dir` is set;
//! - the tools of remote MCP servers (`mcp.servers`, [`crate::remote`]) join
//!   after discovery ([`Toolbox::discover_remote`]) as `<server>__<tool>`; a
//!   built-in tool wins a name collision.
//!
//! What the tools take and answer is documented in `docs/tools.md`.

mod args;
mod handlers;
mod outputs;
mod schemas;
mod table;

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::error::{KeeperError, ToolError};
use crate::kb::{KbCatalog, KbError};
use crate::keeper::model::{Issue, ProblemCode};
use crate::keeper::{Credential, KeeperClient};
use crate::remote::{RemoteError, RemoteTools, ServerSummary};

/// MCP tool annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    pub read_only_hint: bool,
    /// The tool may perform destructive updates.
    pub destructive_hint: bool,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent_hint: bool,
    /// The tool reaches an open world of external entities.
    pub open_world_hint: bool,
}

/// What a model sees of one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// Unique name (`lorebase_get`).
    pub name: String,
    /// A human title.
    pub title: String,
    /// What it is for, when to use it instead of another tool, one example.
    pub description: String,
    /// JSON Schema 2020-12 of the arguments.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent` (the `json` format).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints for the host.
    pub annotations: ToolAnnotations,
}

/// The rendered answer of one tool call: the text block, whether it is a tool
/// error, and the structured content of the `json` format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderedOutput {
    /// The text block.
    pub text: String,
    /// A tool error (`[code] message ... next: ...`).
    pub is_error: bool,
    /// `structuredContent` (every successful answer, in both formats; never on errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
}

/// A programming error of a caller: not a tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallError {
    /// No tool has that name.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments are not a JSON object.
    #[error("tool arguments must be a JSON object: {0}")]
    BadArguments(String),
}

impl ToolCallError {
    /// A stable code for bindings (`unknown-tool`, `bad-arguments`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool(_) => "unknown-tool",
            Self::BadArguments(_) => "bad-arguments",
        }
    }
}

/// Why a [`Toolbox`] cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    /// The Keeper client cannot be built from the settings.
    #[error("cannot build the Keeper client: {0}")]
    Keeper(#[from] KeeperError),
    /// The KB catalog (`kb.dir`) cannot be opened.
    #[error(transparent)]
    Kb(#[from] KbError),
    /// The client of the remote MCP servers (`mcp.servers`) cannot be built.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

/// The tools of one Herald, ready to list and call.
#[derive(Clone)]
pub struct Toolbox {
    settings: Arc<Settings>,
    keeper: KeeperClient,
    kb: Option<KbCatalog>,
    remote: RemoteTools,
    argument_names: Arc<table::ArgumentNames>,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("settings", &self.settings)
            .field("keeper", &self.keeper)
            .field("kb", &self.kb.as_ref().map(|c| c.dir().to_path_buf()))
            .field("remote", &self.remote)
            .finish()
    }
}

impl Toolbox {
    /// Builds the toolbox from resolved settings: the Keeper client, and the KB
    /// catalog when `kb.dir` is set (indexed now, then watched). Remote MCP
    /// servers are not asked yet: call [`Toolbox::discover_remote`].
    pub fn new(settings: Settings) -> Result<Self, ToolboxError> {
        let keeper = KeeperClient::new(&settings.keeper)?;
        Self::with_keeper(settings, keeper)
    }

    /// A toolbox with other settings that shares this one's Keeper client
    /// (one connection pool, one load of the system's root certificates) when
    /// their Keeper settings are the same; otherwise the same as
    /// [`Toolbox::new`].
    pub fn sibling(&self, settings: Settings) -> Result<Self, ToolboxError> {
        if settings.keeper != self.settings.keeper {
            return Self::new(settings);
        }
        Self::with_keeper(settings, self.keeper.clone())
    }

    fn with_keeper(settings: Settings, keeper: KeeperClient) -> Result<Self, ToolboxError> {
        let kb = match &settings.kb.dir {
            Some(dir) => Some(KbCatalog::open(dir)?),
            None => None,
        };
        let remote = RemoteTools::new(&settings.mcp, &settings.output)?;
        Ok(Self {
            settings: Arc::new(settings),
            keeper,
            kb,
            remote,
            argument_names: Arc::default(),
        })
    }

    /// Asks the remote MCP servers (`mcp.servers`) for their tools, all at
    /// once and bounded by `mcp.discovery_timeout_s`; a server that fails is
    /// logged and skipped. Call it again to re-discover (a server that came
    /// up later joins). Shared by every clone of this toolbox.
    pub async fn discover_remote(&self) -> Vec<ServerSummary> {
        if self.remote.is_empty() {
            return Vec::new();
        }
        self.remote.discover().await
    }

    /// The remote MCP servers and their discovered tools.
    pub fn remote(&self) -> &RemoteTools {
        &self.remote
    }

    /// The built-in definitions served (the Lorebase tools, the KB tools),
    /// without the remote ones.
    pub fn local_definitions(&self) -> Vec<ToolDefinition> {
        let mut defs: Vec<ToolDefinition> = table::TOOLS.iter().map(definition).collect();
        if self.kb.is_some() {
            defs.extend(crate::kb::tools::definitions());
        }
        defs.retain(|d| self.serves(&d.name, !d.annotations.read_only_hint));
        if !self.settings.output.schemas {
            for d in &mut defs {
                d.output_schema = None;
            }
        }
        defs
    }

    /// The discovered remote definitions served: those whose name no built-in
    /// tool takes, narrowed by the tool selection (`tools.read_only` drops
    /// every remote tool the server does not declare read-only).
    pub fn remote_definitions(&self) -> Vec<ToolDefinition> {
        self.remote
            .definitions()
            .into_iter()
            .filter(|d| !self.is_builtin(&d.name))
            .filter(|d| self.serves(&d.name, !d.annotations.read_only_hint))
            .collect()
    }

    /// Whether `name` is a built-in tool (Lorebase or KB), served or not.
    fn is_builtin(&self, name: &str) -> bool {
        table::spec(name).is_some()
            || crate::kb::tools::definitions()
                .iter()
                .any(|d| d.name == name)
    }

    /// The settings it serves with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The Keeper client (for resources and completions).
    pub fn keeper(&self) -> &KeeperClient {
        &self.keeper
    }

    /// The KB catalog, when `kb.dir` is set.
    pub fn kb(&self) -> Option<&KbCatalog> {
        self.kb.as_ref()
    }

    /// The definitions of the tools served, in table order: the Lorebase tools,
    /// then the KB tools when a catalog is open, then the discovered remote
    /// tools; `tools.read_only` drops `lorebase_execute` (and remote tools not
    /// declared read-only), then the allow and deny lists apply.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let mut defs = self.local_definitions();
        defs.extend(self.remote_definitions());
        defs
    }

    /// Whether a tool of that name (writing or not) is served.
    fn serves(&self, name: &str, writes: bool) -> bool {
        let sel = &self.settings.tools;
        if sel.read_only && writes {
            return false;
        }
        if sel.deny.iter().any(|d| d == name) {
            return false;
        }
        sel.allow
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|a| a == name))
    }

    /// Calls one tool. Tool failures are `Ok` with `is_error: true`; only a
    /// caller's programming error (a tool not served) is `Err`.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Result<RenderedOutput, ToolCallError> {
        if let Some(spec) = table::spec(name) {
            if !self.serves(name, spec.writes) {
                return Err(ToolCallError::UnknownTool(name.to_string()));
            }
            if let Err(e) = check_argument_names(self.argument_names.of(spec), &arguments) {
                return Ok(e.to_output());
            }
            let ctx = handlers::Ctx {
                keeper: &self.keeper,
                settings: &self.settings,
                cred: credential,
            };
            let out = handlers::run(spec, ctx, arguments).await;
            return Ok(out.unwrap_or_else(|e| e.to_output()));
        }
        if let Some(catalog) = &self.kb
            && self.serves(name, false)
            && let Some(out) =
                crate::kb::tools::call(catalog, name, &arguments, &self.settings.output)
        {
            return Ok(out);
        }
        if !self.is_builtin(name)
            && let Some(tool) = self.remote.find(name)
            && self.serves(name, !tool.definition.annotations.read_only_hint)
            && let Some(out) = self.remote.call(name, arguments).await
        {
            return Ok(out);
        }
        Err(ToolCallError::UnknownTool(name.to_string()))
    }
}

/// The definition of one row of the table.
fn definition(spec: &table::ToolSpec) -> ToolDefinition {
    ToolDefinition {
        name: spec.name.to_string(),
        title: spec.title.to_string(),
        description: spec.description.to_string(),
        input_schema: spec.input_schema(),
        output_schema: Some((spec.output)()),
        annotations: ToolAnnotations {
            read_only_hint: !spec.writes,
            destructive_hint: spec.writes,
            idempotent_hint: !spec.writes,
            open_world_hint: false,
        },
    }
}

/// Rejects arguments the tool does not take, naming them and the ones it does.
fn check_argument_names(
    accepted: &[String],
    arguments: &Map<String, Value>,
) -> Result<(), ToolError> {
    let unknown: Vec<&String> = arguments.keys().filter(|k| !accepted.contains(k)).collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
    Err(ToolError {
        code: ProblemCode::ValidationFailed,
        message: format!(
            "unknown argument {}; this tool takes: {}",
            names.join(", "),
            accepted.join(", ")
        ),
        issues: unknown
            .iter()
            .map(|k| Issue {
                path: (*k).clone(),
                message: "unknown argument".into(),
            })
            .collect(),
        head: None,
        retry_after: None,
        next: None,
    })
}
