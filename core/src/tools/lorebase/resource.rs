//! What a resource read (`resources/read`) asks Keeper for: no tool call,
//! but the same read and rendering as the Lorebase read that answers it
//! (`lorebase_schema`, `lorebase_get`), so a resource's text and errors are
//! the tool's.

use serde_json::{Map, Value};

use super::reads::{LorebaseGet, LorebaseSchema};
use super::tool::LorebaseTool;

/// The read of a schema resource.
const SCHEMA_READ: &str = <LorebaseSchema as LorebaseTool>::NAME;
/// The read of a Record resource.
const RECORD_READ: &str = <LorebaseGet as LorebaseTool>::NAME;

/// What a resource read asks Keeper for ([`crate::tools::Toolbox::read_for_resource`]).
#[derive(Debug, Clone, Copy)]
pub enum ResourceRead<'a> {
    /// The schema summary of a Domain (as `lorebase_schema` reads it).
    Schema {
        /// The Domain.
        domain: &'a str,
    },
    /// One Record (as `lorebase_get` reads it).
    Record {
        /// The Domain.
        domain: &'a str,
        /// Its ref, Kind/key.
        record: &'a str,
    },
}

impl ResourceRead<'_> {
    /// The Lorebase read that answers it, with its arguments.
    pub(crate) fn as_call(&self) -> (&'static str, Map<String, Value>) {
        let mut arguments = Map::new();
        let name = match self {
            Self::Schema { domain } => {
                arguments.insert("domain".into(), Value::from(*domain));
                SCHEMA_READ
            }
            Self::Record { domain, record } => {
                arguments.insert("domain".into(), Value::from(*domain));
                arguments.insert("ref".into(), Value::from(*record));
                RECORD_READ
            }
        };
        (name, arguments)
    }
}
