//! The one shape of a built-in tool, whatever it is served from: a
//! [`ToolEntry`] holds a tool's facts (name, group, whether it writes, the
//! Keeper routes it calls, the Domain words its search hint carries, its
//! line in the server instructions' task map), how to define it and how to
//! call it. A Lorebase tool (`tools::lorebase`, a `LorebaseTool` impl over
//! Keeper) and a KB tool (`tools::kb`, a `KbTool` impl over the catalog) each
//! become one entry of the one table (`tools::table::TOOLS`); the tools of
//! remote MCP servers are the same facts built at run time
//! ([`crate::remote::RemoteTool`]'s definition), served through the same
//! [`super::source::ToolSource`] interface.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use super::search_hint::{DomainWord, with_common_words};
use super::source::ToolOrigin;
use crate::config::Settings;
use crate::kb::KbCatalog;
use crate::keeper::{Credential, KeeperClient};
use crate::render::caps::Identifiers;
use crate::tool_interface::{RenderedOutput, SEARCH_HINT_META, ToolAnnotations, ToolDefinition};

/// What every handler works with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// The Keeper client.
    pub keeper: &'a KeeperClient,
    /// The KB catalog, when `kb.dir` is set.
    pub kb: Option<&'a KbCatalog>,
    /// The settings (defaults, caps, paging bound).
    pub settings: &'a Settings,
    /// The caller's credential.
    pub cred: &'a Credential,
    /// The argument names the tool takes (every other one is refused).
    pub names: &'a [String],
    /// The answer's identifiers, never cut (collected once per toolbox).
    pub ids: &'a Identifiers,
}

/// A call of one tool, under way.
pub(crate) type Running<'a> = Pin<Box<dyn Future<Output = RenderedOutput> + Send + 'a>>;

/// A tool's line in the task map of the server instructions: `- {what}:
/// {tool}{more}`. The map lists the tools that read in table order, then the
/// ones that write (the instructions' first line already names the write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskMention {
    /// The kind of task the tool is for (`read one Record by ref (Kind/key)`).
    pub what: &'static str,
    /// What the line says after the tool's name (`, then lorebase_query`),
    /// often nothing.
    pub more: &'static str,
}

/// One row of the table: a tool's facts, how to define it and how to call it.
#[derive(Clone, Copy)]
pub(crate) struct ToolEntry {
    /// Unique name.
    pub name: &'static str,
    /// Which family it belongs to (Lorebase or KB).
    pub origin: ToolOrigin,
    /// Its group, as `X-MCP-Toolsets` names it (`reads`, `kb`).
    pub group: &'static str,
    /// Whether it writes.
    pub writes: bool,
    /// The Keeper routes it calls, in order (none for a KB tool).
    pub keeper: &'static [&'static str],
    /// The kinds of the Domain's words its search hint carries.
    pub domain_words: &'static [DomainWord],
    /// Its line in the instructions' task map, if it has one.
    pub task: Option<TaskMention>,
    /// Its definition and its answer's identifiers, derived from its types
    /// (one schema generation for both).
    pub definition: fn() -> Defined,
    /// Runs it: the argument names, the shared arguments and its own, the
    /// handler, the rendering; a failure is a tool error.
    pub call: for<'a> fn(Ctx<'a>, Map<String, Value>) -> Running<'a>,
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// What a built-in tool's types give, derived once per toolbox.
#[derive(Debug)]
pub(crate) struct Defined {
    /// The definition a model sees.
    pub definition: ToolDefinition,
    /// The answer's identifiers (the fields its type marks never cut).
    pub identifiers: Identifiers,
}

/// What a built-in tool's definition is made of.
pub(crate) struct DefinitionParts {
    /// Unique name.
    pub name: &'static str,
    /// A human title.
    pub title: &'static str,
    /// What it is for, one example.
    pub description: &'static str,
    /// Its phrases for hosts' tool search ([`with_common_words`] adds the rest).
    pub search_hint: &'static str,
    /// Whether it writes.
    pub writes: bool,
    /// The input schema.
    pub input_schema: Value,
    /// The output schema.
    pub output_schema: Value,
}

impl DefinitionParts {
    /// The definition a model sees: the search hint in `_meta`.
    pub(crate) fn build(self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.to_string(),
            title: self.title.to_string(),
            description: self.description.to_string(),
            input_schema: self.input_schema,
            output_schema: Some(self.output_schema),
            annotations: ToolAnnotations::reads_or_writes(self.writes),
            meta: Some(Map::from_iter([(
                SEARCH_HINT_META.to_string(),
                Value::String(with_common_words(self.search_hint)),
            )])),
        }
    }
}
