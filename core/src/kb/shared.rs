//! What searches read and re-indexes write: the folder, the analyzer, the
//! current snapshot (swapped atomically) and the indexing state.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

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
    /// Where the first index stands (searches wait for it).
    pub(super) first_index: tokio::sync::watch::Sender<FirstIndex>,
}

/// Where the first index of a catalog stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FirstIndex {
    /// Being built, since then.
    Running(Instant),
    /// Built: searches read it (and the re-indexes after it).
    Done,
    /// It failed, for this reason; a later re-index that succeeds serves.
    Failed(String),
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
        let (changes, snapshot) = match state.rescan(forced) {
            Ok(rescanned) => rescanned,
            Err(e) => {
                self.first_index.send_if_modified(|first| {
                    let failed = !matches!(first, FirstIndex::Done);
                    if failed {
                        *first = FirstIndex::Failed(e.to_string());
                    }
                    failed
                });
                return Err(e);
            }
        };
        if let Some(snapshot) = snapshot {
            *self
                .snapshot
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(snapshot);
        }
        self.first_index.send_if_modified(|first| {
            !matches!(std::mem::replace(first, FirstIndex::Done), FirstIndex::Done)
        });
        Ok(changes)
    }
}
