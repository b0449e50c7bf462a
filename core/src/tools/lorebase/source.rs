//! The Lorebase tools as a [`ToolSource`]: their definitions (built once per
//! toolbox, on first use), the argument-name check every built-in tool
//! shares ([`crate::tools::args::check_names`]), and the call through the
//! tool's row.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use super::table::{ALWAYS_LOADED, TOOLS};
use super::tool::{Ctx, ToolEntry};
use crate::config::Settings;
use crate::keeper::{Credential, KeeperClient};
use crate::render::caps::Identifiers;
use crate::tool::{ALWAYS_LOAD_META, RenderedOutput, ToolDefinition};
use crate::tools::args::{argument_names, check_names};
use crate::tools::source::ToolSource;

/// The Lorebase tools of one toolbox. Cheap to clone (shared).
#[derive(Debug, Clone)]
pub(crate) struct LorebaseTools {
    keeper: KeeperClient,
    settings: Arc<Settings>,
    built: Arc<OnceLock<Built>>,
}

/// What is derived once from the table: the definitions, and the argument
/// names each tool takes (every call is checked against them).
#[derive(Debug)]
struct Built {
    definitions: Vec<ToolDefinition>,
    argument_names: Vec<Vec<String>>,
    identifiers: Vec<Identifiers>,
}

impl LorebaseTools {
    /// The tools, calling `keeper` with `settings`.
    pub(crate) fn new(keeper: KeeperClient, settings: Arc<Settings>) -> Self {
        Self {
            keeper,
            settings,
            built: Arc::default(),
        }
    }

    fn built(&self) -> &Built {
        self.built.get_or_init(|| {
            let mut definitions: Vec<ToolDefinition> =
                TOOLS.iter().map(|t| (t.definition)()).collect();
            if self.settings.tools.always_load_context {
                for d in definitions.iter_mut().filter(|d| d.name == ALWAYS_LOADED) {
                    d.meta
                        .get_or_insert_with(Map::new)
                        .insert(ALWAYS_LOAD_META.into(), Value::Bool(true));
                }
            }
            let argument_names = definitions
                .iter()
                .map(|d| argument_names(&d.input_schema))
                .collect();
            Built {
                definitions,
                argument_names,
                identifiers: TOOLS.iter().map(|t| (t.identifiers)()).collect(),
            }
        })
    }

    fn row(name: &str) -> Option<(usize, &'static ToolEntry)> {
        TOOLS.iter().enumerate().find(|(_, t)| t.name == name)
    }
}

impl ToolSource for LorebaseTools {
    fn owns(&self, name: &str) -> bool {
        Self::row(name).is_some()
    }

    fn offers(&self, name: &str) -> Option<bool> {
        Self::row(name).map(|(_, t)| t.writes)
    }

    fn definitions(&self) -> Vec<ToolDefinition> {
        self.built().definitions.clone()
    }

    async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        credential: &Credential,
    ) -> Option<RenderedOutput> {
        let (index, row) = Self::row(name)?;
        if let Err(e) = check_names(&self.built().argument_names[index], &arguments) {
            return Some(e.to_output(&self.settings.output));
        }
        let ctx = Ctx {
            keeper: &self.keeper,
            settings: &self.settings,
            cred: credential,
            ids: &self.built().identifiers[index],
        };
        Some((row.call)(ctx, arguments).await)
    }
}
