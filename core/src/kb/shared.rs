//! What searches read and re-indexes write: the folder, the analyzer, the
//! current snapshot (swapped atomically) and the indexing state.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use tantivy::tokenizer::TextAnalyzer;

use super::catalog::{CatalogState, KbChanges};
use super::error::KbError;
use super::index::{FieldBoosts, Snapshot};

/// What searches read and re-indexes write.
pub(crate) struct Shared {
    pub(super) dir: PathBuf,
    pub(super) boosts: FieldBoosts,
    pub(super) analyzer: TextAnalyzer,
    pub(super) snapshot: RwLock<Arc<Snapshot>>,
    pub(super) state: Mutex<CatalogState>,
}

impl Shared {
    pub(super) fn current(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Rescans (one at a time) and swaps in the new snapshot if any.
    pub(crate) fn reload(&self, forced: &HashSet<String>) -> Result<KbChanges, KbError> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (changes, snapshot) = state.rescan(forced)?;
        if let Some(snapshot) = snapshot {
            *self
                .snapshot
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(snapshot);
        }
        Ok(changes)
    }
}
