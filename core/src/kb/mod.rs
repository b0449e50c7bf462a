//! The knowledge-base catalog: OKF markdown entries indexed with tantivy, and
//! the `kb_search` and `kb_get` tools over it (runlore-mcp.md).
//!
//! (Issue 6 fills this in.)

use std::path::Path;

/// An indexed catalog of markdown entries. Cheap to clone.
#[derive(Debug, Clone)]
pub struct KbCatalog {}

/// Why a catalog cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// The directory cannot be read.
    #[error("cannot read the KB catalog {path}: {reason}")]
    Unreadable {
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
}

impl KbCatalog {
    /// Indexes the catalog at `dir` and starts watching it.
    pub fn open(_dir: &Path) -> Result<Self, KbError> {
        todo!("issue 6")
    }
}

/// The `kb_search` and `kb_get` tools.
pub mod tools {
    use serde_json::{Map, Value};

    use super::KbCatalog;
    use crate::config::OutputSettings;
    use crate::tools::{RenderedOutput, ToolDefinition};

    /// The definitions of `kb_search` and `kb_get`.
    pub fn definitions() -> Vec<ToolDefinition> {
        todo!("issue 6")
    }

    /// Runs `name` when it is a KB tool (`None` otherwise).
    pub fn call(
        _catalog: &KbCatalog,
        _name: &str,
        _arguments: &Map<String, Value>,
        _caps: &OutputSettings,
    ) -> Option<RenderedOutput> {
        todo!("issue 6")
    }
}
