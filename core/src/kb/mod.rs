//! The knowledge-base catalog: OKF markdown entries indexed with tantivy
//! (docs/kb.md). The `kb_search` and `kb_get` tools over it are
//! in `tools::kb`, their renderings in `render::kb`.
//!
//! - [`entry`]: one entry (frontmatter fields and body) and why a file is not one.
//! - `walk`: which files of the folder are entries.
//! - `tokenizer`: the analyzer that keeps identifiers findable (`stem`: plain
//!   words stemmed).
//! - `index`: the tantivy schema, BM25 with field boosts, the snapshot searched.
//! - `catalog`: (re)indexing on all cores, applying only what changed.
//! - `shared`: what searches read and re-indexes write (the current snapshot).
//! - `watch`: the folder watcher, debounced, swapping snapshots atomically.
//!
//! ```no_run
//! # fn main() -> Result<(), herald_core::kb::KbError> {
//! let catalog = herald_core::kb::KbCatalog::open(std::path::Path::new("./your-kb"))?;
//! for hit in catalog.search("harbor-core restarts", 5)? {
//!     println!("{} {:.3}", hit.entry.path, hit.score);
//! }
//! # Ok(()) }
//! ```

mod catalog;
pub mod entry;
mod error;
mod index;
mod shared;
mod stem;
mod tokenizer;
mod walk;
mod watch;

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tantivy::tokenizer::TextAnalyzer;

pub use catalog::KbChanges;
pub use entry::{KbEntry, MalformedEntry};
pub use error::KbError;
pub use index::{FieldBoosts, KbHit, MAX_QUERY_TOKENS, SkippedFile};
pub use walk::RESERVED_NAMES;

/// The analyzer of catalog text and queries (identifier-aware, lowercased,
/// ASCII-folded, plain words stemmed); see the `tokenizer` module docs.
pub fn analyzer() -> TextAnalyzer {
    tokenizer::analyzer()
}

use catalog::CatalogState;
use shared::{FirstIndex, Shared};

/// An indexed catalog of markdown entries. Cheap to clone (clones share the
/// index and the watcher; the watcher stops when the last clone is dropped).
/// [`KbCatalog::open`] indexes before it returns; [`KbCatalog::start`]
/// indexes in the background (see [`KbCatalog::ready`]).
#[derive(Clone)]
pub struct KbCatalog {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    /// Set once the first index is built (and `KbOptions::watch`).
    watcher: Mutex<Option<watch::CatalogWatcher>>,
}

/// What `/metrics` reports of a catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KbStatus {
    /// Entries indexed now.
    pub entries: usize,
    /// When the index was last built or rescanned, in seconds since the Unix
    /// epoch.
    pub last_reload_unix_s: f64,
    /// Re-indexes that failed since the catalog was opened (the previous
    /// index stayed in service).
    pub reload_failures: u64,
}

/// How a catalog is opened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KbOptions {
    /// Re-index when the folder changes (default true).
    pub watch: bool,
    /// Quiet time after the last change before re-indexing (default 300 ms).
    pub debounce: Duration,
    /// Field weights (default [`FieldBoosts::default`]).
    pub boosts: FieldBoosts,
}

impl Default for KbOptions {
    fn default() -> Self {
        Self {
            watch: true,
            debounce: Duration::from_millis(300),
            boosts: FieldBoosts::default(),
        }
    }
}

impl std::fmt::Debug for KbCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let snapshot = self.inner.shared.current();
        f.debug_struct("KbCatalog")
            .field("dir", &self.inner.shared.dir)
            .field("entries", &snapshot.by_path.len())
            .field("generation", &snapshot.generation)
            .field(
                "watching",
                &self
                    .inner
                    .watcher
                    .lock()
                    .map(|w| w.is_some())
                    .unwrap_or(false),
            )
            .field("ready", &self.is_ready())
            .finish()
    }
}

impl KbCatalog {
    /// Indexes the catalog at `dir` and starts watching it.
    pub fn open(dir: &Path) -> Result<Self, KbError> {
        Self::open_with(dir, KbOptions::default())
    }

    /// Indexes the catalog at `dir` with `options`, and returns once the
    /// index is built. Fails when `dir` is not a readable directory; a
    /// watcher that cannot start is logged and the catalog is served without
    /// re-indexing.
    pub fn open_with(dir: &Path, options: KbOptions) -> Result<Self, KbError> {
        let catalog = Self::unindexed(dir, options)?;
        catalog.watch(options);
        catalog.inner.shared.reload(&HashSet::new())?;
        catalog.warn_if_empty();
        Ok(catalog)
    }

    /// Opens the catalog at `dir` and returns at once: the folder is watched
    /// and the first index built on a thread of its own, so a large
    /// or slow catalog never holds back what starts it (the MCP handshake).
    /// Until it is built, the catalog has no entries and
    /// [`KbCatalog::ready`] waits for it. Fails only when `dir` is not a
    /// readable directory.
    pub fn start(dir: &Path, options: KbOptions) -> Result<Self, KbError> {
        let catalog = Self::unindexed(dir, options)?;
        let building = catalog.clone();
        std::thread::Builder::new()
            .name("kb-index".into())
            .spawn(move || {
                building.watch(options);
                if let Err(e) = building.inner.shared.reload(&HashSet::new()) {
                    tracing::error!("KB: cannot index {}: {e}", building.dir().display());
                }
                building.warn_if_empty();
            })
            .map_err(|e| KbError::Index(format!("cannot start the indexing thread: {e}")))?;
        Ok(catalog)
    }

    /// The catalog at `dir` with an empty index, not yet watched.
    fn unindexed(dir: &Path, options: KbOptions) -> Result<Self, KbError> {
        let unreadable = |reason: String| KbError::Unreadable {
            path: dir.display().to_string(),
            reason,
        };
        let root = dir.canonicalize().map_err(|e| unreadable(e.to_string()))?;
        if !root.is_dir() {
            return Err(unreadable("not a directory".into()));
        }
        std::fs::read_dir(&root).map_err(|e| unreadable(e.to_string()))?;
        let state = CatalogState::new(&root)?;
        let empty = state.snapshot()?;
        let (first_index, _) =
            tokio::sync::watch::channel(FirstIndex::Running(std::time::Instant::now()));
        let shared = Arc::new(Shared {
            dir: root,
            boosts: options.boosts,
            analyzer: tokenizer::analyzer(),
            snapshot: RwLock::new(Arc::new(empty)),
            state: Mutex::new(state),
            reloads: Default::default(),
            first_index,
        });
        Ok(Self {
            inner: Arc::new(Inner {
                shared,
                watcher: Mutex::new(None),
            }),
        })
    }

    /// Starts watching the folder when `options.watch`: before the first
    /// index, so that a file written while it is built, or just after (once
    /// a search has seen the index), is re-indexed rather than missed. Reads
    /// make no events, so the first index itself causes no second scan.
    fn watch(&self, options: KbOptions) {
        let shared = &self.inner.shared;
        if !options.watch {
            return;
        }
        match watch::start(&shared.dir, Arc::downgrade(shared), options.debounce) {
            Ok(watcher) => {
                *self
                    .inner
                    .watcher
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(watcher);
            }
            Err(e) => tracing::warn!(
                "KB: cannot watch {}, changes need a restart: {e}",
                shared.dir.display()
            ),
        }
    }

    /// A warning when the index holds no entry.
    fn warn_if_empty(&self) {
        let shared = &self.inner.shared;
        if shared.current().by_path.is_empty() {
            tracing::warn!("KB: no entries in {}", shared.dir.display());
        }
    }

    /// Whether the first index is built (searches find what it holds).
    pub fn is_ready(&self) -> bool {
        matches!(*self.inner.shared.first_index.borrow(), FirstIndex::Done)
    }

    /// Waits at most `wait` for the first index: `Ok` once it is built,
    /// [`KbError::Indexing`] while it is still being built after `wait`,
    /// [`KbError::Index`] when it failed (and no re-index has succeeded).
    pub async fn ready(&self, wait: Duration) -> Result<(), KbError> {
        let mut first = self.inner.shared.first_index.subscribe();
        let outcome = tokio::time::timeout(
            wait,
            first.wait_for(|f| !matches!(f, FirstIndex::Running(_))),
        )
        .await;
        let state = match outcome {
            Ok(Ok(state)) => state.clone(),
            _ => self.inner.shared.first_index.borrow().clone(),
        };
        match state {
            FirstIndex::Done => Ok(()),
            FirstIndex::Failed(reason) => Err(KbError::Index(reason)),
            FirstIndex::Running(since) => Err(KbError::Indexing {
                seconds: since.elapsed().as_secs(),
            }),
        }
    }

    /// The catalog directory (canonical).
    pub fn dir(&self) -> &Path {
        &self.inner.shared.dir
    }

    /// How many entries are indexed.
    pub fn len(&self) -> usize {
        self.inner.shared.current().by_path.len()
    }

    /// Whether no entry is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many times the index was (re)built; grows by one per re-index that
    /// changed something.
    pub fn generation(&self) -> u64 {
        self.inner.shared.current().generation
    }

    /// The paths of every indexed entry, sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .inner
            .shared
            .current()
            .by_path
            .keys()
            .cloned()
            .collect();
        paths.sort();
        paths
    }

    /// The files skipped as malformed, with the reason, sorted by path.
    pub fn skipped(&self) -> Vec<SkippedFile> {
        self.inner.shared.current().skipped.clone()
    }

    /// The `k` best entries for `query` (BM25, best first, ties by path).
    /// A query without words, or `k == 0`, finds nothing.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<KbHit>, KbError> {
        self.search_with(query, k, &self.inner.shared.boosts)
    }

    /// Like [`KbCatalog::search`] with other field weights.
    pub fn search_with(
        &self,
        query: &str,
        k: usize,
        boosts: &FieldBoosts,
    ) -> Result<Vec<KbHit>, KbError> {
        let snapshot = self.inner.shared.current();
        let mut analyzer = self.inner.shared.analyzer.clone();
        snapshot.search(&mut analyzer, query, k, boosts)
    }

    /// The entry at `path` exactly as a hit returned it (from the index,
    /// never the filesystem).
    pub fn get(&self, path: &str) -> Option<Arc<KbEntry>> {
        self.inner.shared.current().by_path.get(path).cloned()
    }

    /// Its entries, when it was last indexed and how many re-indexes failed.
    pub fn status(&self) -> KbStatus {
        KbStatus {
            entries: self.len(),
            last_reload_unix_s: self.inner.shared.reloads.last_seconds(),
            reload_failures: self.inner.shared.reloads.failures(),
        }
    }

    /// Rescans the folder now and applies what changed (the watcher does this
    /// by itself; this is for callers that want it synchronously).
    pub fn reload(&self) -> Result<KbChanges, KbError> {
        self.inner.shared.reload(&HashSet::new())
    }
}
