//! The built-in tools as one [`ToolSource`]: the rows of the one table
//! (`tools::table::TOOLS`), the Lorebase tools always, the KB tools when a
//! catalog is open; what is derived once from the table (definitions,
//! argument names, identifiers), and the call through the tool's row.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::args::declared_names;
use super::entry::Ctx;
use super::source::{ToolOrigin, ToolSource};
use super::table::{ALWAYS_LOADED, TOOLS, row};
use crate::config::Settings;
use crate::kb::KbCatalog;
use crate::keeper::{Credential, KeeperClient};
use crate::remote::OAuthCaller;
use crate::render::caps::Identifiers;
use crate::tool_interface::{ALWAYS_LOAD_META, RenderedOutput, ToolDefinition};

/// The built-in tools of one toolbox. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub(crate) struct BuiltInTools {
    keeper: KeeperClient,
    catalog: Option<KbCatalog>,
    settings: Arc<Settings>,
    built: Arc<OnceLock<Built>>,
}

/// What is derived once from the table, row by row: the definitions, the
/// argument names each tool takes (every call is checked against them),
/// the identifiers of each answer.
#[derive(Debug)]
struct Built {
    definitions: Vec<ToolDefinition>,
    argument_names: Vec<Vec<String>>,
    identifiers: Vec<Identifiers>,
}

impl BuiltInTools {
    /// The tools, calling `keeper` (and reading `catalog`, when open) with
    /// `settings`.
    pub(crate) fn new(
        keeper: KeeperClient,
        catalog: Option<KbCatalog>,
        settings: Arc<Settings>,
    ) -> Self {
        Self {
            keeper,
            catalog,
            settings,
            built: Arc::default(),
        }
    }

    /// The open KB catalog.
    pub(crate) fn catalog(&self) -> Option<&KbCatalog> {
        self.catalog.as_ref()
    }

    fn built(&self) -> &Built {
        self.built.get_or_init(|| {
            let (mut definitions, identifiers): (Vec<ToolDefinition>, Vec<Identifiers>) = TOOLS
                .iter()
                .map(|t| {
                    let defined = (t.definition)();
                    (defined.definition, defined.identifiers)
                })
                .unzip();
            if self.settings.tools.always_load_context {
                for d in definitions.iter_mut().filter(|d| d.name == ALWAYS_LOADED) {
                    d.meta
                        .get_or_insert_with(Map::new)
                        .insert(ALWAYS_LOAD_META.into(), Value::Bool(true));
                }
            }
            let argument_names = definitions
                .iter()
                .map(|d| declared_names(&d.input_schema))
                .collect();
            Built {
                definitions,
                argument_names,
                identifiers,
            }
        })
    }

    /// Whether the tools of `origin` are served: the KB tools only with a
    /// catalog.
    fn serves_origin(&self, origin: ToolOrigin) -> bool {
        origin != ToolOrigin::Kb || self.catalog.is_some()
    }
}

impl ToolSource for BuiltInTools {
    fn defines(&self, name: &str) -> bool {
        row(name).is_some()
    }

    fn serves(&self, name: &str) -> Option<bool> {
        row(name)
            .filter(|(_, t)| self.serves_origin(t.origin))
            .map(|(_, t)| t.writes)
    }

    fn definitions(&self) -> Vec<ToolDefinition> {
        TOOLS
            .iter()
            .zip(&self.built().definitions)
            .filter(|(t, _)| self.serves_origin(t.origin))
            .map(|(_, d)| d.clone())
            .collect()
    }

    async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
        _caller: Option<&OAuthCaller>,
    ) -> Option<RenderedOutput> {
        let (index, row) = row(name).filter(|(_, t)| self.serves_origin(t.origin))?;
        let built = self.built();
        let ctx = Ctx {
            keeper: &self.keeper,
            kb: self.catalog.as_ref(),
            settings: &self.settings,
            cred: credential,
            names: &built.argument_names[index],
            ids: &built.identifiers[index],
        };
        Some((row.call)(ctx, arguments).await)
    }
}
