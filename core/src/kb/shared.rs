//! What searches read and re-indexes write: the folder, the analyzer, the
//! current snapshot (swapped atomically) and the indexing state.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;
use std::time::{SystemTime, UNIX_EPOCH};

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
    pub(super) reloads: ReloadStats,
    /// Where the first index stands (searches wait for it).
    pub(super) first_index: tokio::sync::watch::Sender<FirstIndex>,
}

/// When the catalog was last (re)indexed, and how many re-indexes failed
/// (for `/metrics`).
#[derive(Debug, Default)]
pub(crate) struct ReloadStats {
    /// Milliseconds since the Unix epoch of the last index built or checked.
    last_ms: AtomicU64,
    failures: AtomicU64,
}

impl ReloadStats {
    /// An index was built (or a rescan found it current) now.
    pub(super) fn loaded(&self) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.last_ms.store(now, Ordering::Relaxed);
    }

    /// The last load, in seconds since the Unix epoch (0: never).
    pub(super) fn last_seconds(&self) -> f64 {
        self.last_ms.load(Ordering::Relaxed) as f64 / 1000.0
    }

    /// Re-indexes that failed.
    pub(super) fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }
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
                self.reloads.failures.fetch_add(1, Ordering::Relaxed);
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
        self.reloads.loaded();
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
