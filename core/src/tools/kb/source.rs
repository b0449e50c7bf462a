//! The KB tools as a [`ToolSource`]: what is derived once from the table
//! (definitions, argument names, identifiers), the argument-name check every
//! built-in tool shares ([`crate::tools::args::check_names`]), and the call
//! through the tool's row.

use std::sync::LazyLock;
use std::time::Duration;

use serde_json::{Map, Value};

use super::errors::not_ready;
use super::get::KbGet;
use super::search::KbSearch;
use super::tool::{ToolEntry, entry};
use crate::config::OutputSettings;
use crate::kb::{KbCatalog, KbError};
use crate::keeper::Credential;
use crate::render::caps::Identifiers;
use crate::tool::{RenderedOutput, ToolDefinition};
use crate::tools::args::{argument_names, check_names};
use crate::tools::source::ToolSource;

/// The KB tools, in the order models see them.
pub(crate) static TOOLS: [ToolEntry; 2] = [entry::<KbSearch>(), entry::<KbGet>()];

/// What is derived once from the table: the definitions, the argument names
/// each tool takes, the identifiers of each answer.
struct Built {
    definitions: Vec<ToolDefinition>,
    argument_names: Vec<Vec<String>>,
    identifiers: Vec<Identifiers>,
}

static BUILT: LazyLock<Built> = LazyLock::new(|| {
    let definitions: Vec<ToolDefinition> = TOOLS.iter().map(|t| (t.definition)()).collect();
    Built {
        argument_names: definitions
            .iter()
            .map(|d| argument_names(&d.input_schema))
            .collect(),
        identifiers: TOOLS
            .iter()
            .map(|t| Identifiers::from_schema(&(t.output)()))
            .collect(),
        definitions,
    }
});

/// The definitions of `kb_search` and `kb_get`.
pub fn definitions() -> Vec<ToolDefinition> {
    BUILT.definitions.clone()
}

/// The KB tools of one toolbox: offered when a catalog is open.
#[derive(Debug, Clone)]
pub(crate) struct KbTools {
    catalog: Option<KbCatalog>,
    caps: OutputSettings,
    /// How long a call waits for the first index (`kb.index_wait_s`).
    index_wait: Duration,
}

impl KbTools {
    /// The tools over `catalog` (none without one), under `caps`; a call
    /// waits at most `index_wait` for the catalog's first index.
    pub(crate) fn new(
        catalog: Option<KbCatalog>,
        caps: OutputSettings,
        index_wait: Duration,
    ) -> Self {
        Self {
            catalog,
            caps,
            index_wait,
        }
    }

    /// The open catalog.
    pub(crate) fn catalog(&self) -> Option<&KbCatalog> {
        self.catalog.as_ref()
    }
}

impl ToolSource for KbTools {
    fn owns(&self, name: &str) -> bool {
        TOOLS.iter().any(|t| t.name == name)
    }

    fn offers(&self, name: &str) -> Option<bool> {
        (self.catalog.is_some() && self.owns(name)).then_some(false)
    }

    fn definitions(&self) -> Vec<ToolDefinition> {
        if self.catalog.is_some() {
            definitions()
        } else {
            Vec::new()
        }
    }

    async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        _credential: &Credential,
    ) -> Option<RenderedOutput> {
        let catalog = self.catalog.as_ref()?;
        if !self.owns(name) {
            return None;
        }
        if let Err(e) = catalog.ready(self.index_wait).await {
            return Some(not_ready(&e).to_output(&self.caps));
        }
        call(catalog, name, &arguments, &self.caps)
    }
}

/// Runs `name` when it is a KB tool (`None` otherwise). Before the
/// catalog's first index is built (see [`KbCatalog::start`]), the call is
/// a tool error saying to retry. Arguments the tool does not take are
/// refused as every built-in tool refuses them.
pub fn call(
    catalog: &KbCatalog,
    name: &str,
    arguments: &Map<String, Value>,
    caps: &OutputSettings,
) -> Option<RenderedOutput> {
    let index = TOOLS.iter().position(|t| t.name == name)?;
    if !catalog.is_ready() {
        let e = KbError::Indexing { seconds: 0 };
        return Some(not_ready(&e).to_output(caps));
    }
    let built = &*BUILT;
    if let Err(e) = check_names(&built.argument_names[index], arguments) {
        return Some(e.to_output(caps));
    }
    Some((TOOLS[index].call)(
        catalog,
        arguments,
        &built.identifiers[index],
        caps,
    ))
}
