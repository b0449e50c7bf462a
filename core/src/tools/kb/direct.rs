//! The KB tools called directly over a catalog, without a toolbox (no Keeper,
//! no settings file): their definitions and a call, each through the tool's
//! row of the one table, as the toolbox lists and calls them.

use serde_json::{Map, Value};

use super::get::{KB_GET, KbGet};
use super::search::{KB_SEARCH, KbSearch};
use super::tool::call_ready;
use crate::config::OutputSettings;
use crate::kb::KbCatalog;
use crate::tool_interface::{RenderedOutput, ToolDefinition};
use crate::tools::args::declared_names;
use crate::tools::source::ToolOrigin;
use crate::tools::table::TOOLS;

/// The KB tools' names, in table order (a test holds them to the table).
pub const NAMES: [&str; 2] = [KB_SEARCH, KB_GET];

/// The definitions of `kb_search` and `kb_get`, in table order.
pub fn definitions() -> Vec<ToolDefinition> {
    TOOLS
        .iter()
        .filter(|t| t.origin == ToolOrigin::Kb)
        .map(|t| (t.definition)().definition)
        .collect()
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
    let entry = TOOLS
        .iter()
        .find(|t| t.origin == ToolOrigin::Kb && t.name == name)?;
    let defined = (entry.definition)();
    let names = declared_names(&defined.definition.input_schema);
    let ids = defined.identifiers;
    let call = match name {
        KB_SEARCH => call_ready::<KbSearch>,
        KB_GET => call_ready::<KbGet>,
        _ => return None,
    };
    Some(call(catalog, arguments, &names, &ids, caps))
}
