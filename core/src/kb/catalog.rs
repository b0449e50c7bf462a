//! Building and updating the index from the files of a catalog.
//!
//! A rescan lists the catalog, reads only the files that are new, whose size,
//! time or inode changed, or that a watcher event named, parses them on all
//! cores, and applies the difference to the tantivy index (delete by path,
//! add). The result is a new [`Snapshot`]; the caller swaps it in.

use crate::regular_file::{self, RegularFileError};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tantivy::indexer::NoMergePolicy;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::entry::{KbEntry, MAX_ENTRY_BYTES, MalformedEntry};
use super::error::KbError;
use super::index::{self, KbFields, SkippedFile, Snapshot};
use super::tokenizer::{self, ANALYZER_NAME};
use super::walk::{self, CatalogFile, FileStamp};

/// Per indexing thread memory budget (tantivy needs at least 15 MB).
const WRITER_BUDGET_PER_THREAD: usize = 64 * 1024 * 1024;
/// Below this many documents to add, one indexing thread is enough.
const PARALLEL_INDEX_THRESHOLD: usize = 2_000;
/// Files read per work item of the parallel parse.
const READ_CHUNK: usize = 32;
/// Most paths named per category in a re-index log line.
const LOGGED_PATHS: usize = 10;

/// What one rescan changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KbChanges {
    /// Entries that appeared.
    pub added: Vec<String>,
    /// Entries whose content changed.
    pub changed: Vec<String>,
    /// Entries that disappeared (deleted, renamed away, or now malformed).
    pub removed: Vec<String>,
    /// Files newly skipped as malformed, with the reason.
    pub skipped: Vec<SkippedFile>,
}

impl KbChanges {
    /// Whether the searchable entries changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

struct Indexed {
    id: u64,
    stamp: FileStamp,
    entry: Arc<KbEntry>,
}

/// The mutable side of a catalog: the index and what each file was when read.
pub(crate) struct CatalogState {
    root: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: KbFields,
    indexed: HashMap<String, Indexed>,
    malformed: HashMap<String, (FileStamp, String)>,
    next_id: u64,
    generation: u64,
}

impl CatalogState {
    /// An empty index over the catalog at `root` (nothing read yet).
    pub(crate) fn new(root: &Path) -> Result<Self, KbError> {
        let (schema, fields) = index::schema();
        let index = Index::create_in_ram(schema);
        index
            .tokenizers()
            .register(ANALYZER_NAME, tokenizer::analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e: tantivy::TantivyError| KbError::Index(e.to_string()))?;
        Ok(Self {
            root: root.to_path_buf(),
            index,
            reader,
            fields,
            indexed: HashMap::new(),
            malformed: HashMap::new(),
            next_id: 0,
            generation: 0,
        })
    }

    /// Lists the catalog and applies what changed since the last rescan.
    /// `forced` paths are re-read even when their stamp is unchanged. Returns
    /// the changes and, when the entries changed (or on the first scan), the
    /// new snapshot to publish.
    pub(crate) fn rescan(
        &mut self,
        forced: &HashSet<String>,
    ) -> Result<(KbChanges, Option<Snapshot>), KbError> {
        let started = Instant::now();
        let first = self.generation == 0;
        let files = walk::list_catalog(&self.root).map_err(|e| KbError::Unreadable {
            path: self.root.display().to_string(),
            reason: e.to_string(),
        })?;
        let listed: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let mut changes = KbChanges::default();
        let mut removed: Vec<String> = self
            .indexed
            .keys()
            .filter(|p| !listed.contains(p.as_str()))
            .cloned()
            .collect();
        self.malformed.retain(|p, _| listed.contains(p.as_str()));

        let to_read: Vec<&CatalogFile> = files
            .iter()
            .filter(|f| {
                forced.contains(&f.path)
                    || match (self.indexed.get(&f.path), self.malformed.get(&f.path)) {
                        (Some(known), _) => known.stamp != f.stamp,
                        (None, Some((stamp, _))) => *stamp != f.stamp,
                        (None, None) => true,
                    }
            })
            .collect();
        let listed_at = started.elapsed();
        let parsed = read_in_parallel(&to_read);
        tracing::debug!(
            "KB: listed {} files in {listed_at:?}, read and parsed {} in {:?}",
            files.len(),
            to_read.len(),
            started.elapsed() - listed_at
        );

        let mut to_add: Vec<(u64, Arc<KbEntry>)> = Vec::new();
        for (file, result) in to_read.iter().zip(parsed) {
            match result {
                Ok(entry) => {
                    self.malformed.remove(&file.path);
                    if let Some(known) = self.indexed.get_mut(&file.path) {
                        known.stamp = file.stamp;
                        if *known.entry == entry {
                            continue;
                        }
                        changes.changed.push(file.path.clone());
                    } else {
                        changes.added.push(file.path.clone());
                    }
                    let id = self.next_id;
                    self.next_id += 1;
                    let entry = Arc::new(entry);
                    to_add.push((id, entry.clone()));
                    self.indexed.insert(
                        file.path.clone(),
                        Indexed {
                            id,
                            stamp: file.stamp,
                            entry,
                        },
                    );
                }
                Err(reason) => {
                    let reason = reason.to_string();
                    let known = self
                        .malformed
                        .get(&file.path)
                        .is_some_and(|(_, r)| *r == reason);
                    if !known {
                        tracing::warn!("KB: skipping {}: {reason}", file.absolute.display());
                        changes.skipped.push(SkippedFile {
                            path: file.path.clone(),
                            reason: reason.clone(),
                        });
                    }
                    if self.indexed.remove(&file.path).is_some() {
                        removed.push(file.path.clone());
                    }
                    self.malformed
                        .insert(file.path.clone(), (file.stamp, reason));
                }
            }
        }
        for path in &removed {
            self.indexed.remove(path);
        }
        removed.sort();
        changes.removed = removed;

        if !first && changes.is_empty() {
            return Ok((changes, None));
        }
        let write_started = Instant::now();
        self.write(&changes, to_add, first)?;
        tracing::debug!("KB: index written in {:?}", write_started.elapsed());
        self.generation += 1;
        let snapshot = self.snapshot()?;
        log_changes(&self.root, &changes, &snapshot, started, first);
        Ok((changes, Some(snapshot)))
    }

    fn write(
        &mut self,
        changes: &KbChanges,
        to_add: Vec<(u64, Arc<KbEntry>)>,
        first: bool,
    ) -> Result<(), KbError> {
        let failed = |e: tantivy::TantivyError| KbError::Index(e.to_string());
        let threads = if to_add.len() >= PARALLEL_INDEX_THRESHOLD {
            std::thread::available_parallelism()
                .map_or(1, std::num::NonZero::get)
                .clamp(1, 8)
        } else {
            1
        };
        let mut writer: IndexWriter<TantivyDocument> = self
            .index
            .writer_with_num_threads(threads, threads * WRITER_BUDGET_PER_THREAD)
            .map_err(failed)?;
        if first {
            // The first build keeps its few segments: merging them would only
            // delay the first answer. Later re-indexes merge as usual.
            writer.set_merge_policy(Box::new(NoMergePolicy));
        }
        for path in changes.changed.iter().chain(&changes.removed) {
            writer.delete_term(Term::from_field_text(self.fields.path, path));
        }
        for (id, entry) in to_add {
            writer
                .add_document(index::document(&self.fields, id, &entry))
                .map_err(failed)?;
        }
        writer.commit().map_err(failed)?;
        writer.wait_merging_threads().map_err(failed)?;
        self.reader.reload().map_err(failed)?;
        Ok(())
    }

    pub(crate) fn snapshot(&self) -> Result<Snapshot, KbError> {
        let mut by_path = HashMap::with_capacity(self.indexed.len());
        let mut by_id = HashMap::with_capacity(self.indexed.len());
        for (path, indexed) in &self.indexed {
            by_path.insert(path.clone(), indexed.entry.clone());
            by_id.insert(indexed.id, indexed.entry.clone());
        }
        let mut skipped: Vec<SkippedFile> = self
            .malformed
            .iter()
            .map(|(path, (_, reason))| SkippedFile {
                path: path.clone(),
                reason: reason.clone(),
            })
            .collect();
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Snapshot {
            searcher: self.reader.searcher(),
            fields: self.fields,
            by_path,
            by_id,
            skipped,
            generation: self.generation,
        })
    }
}

fn log_changes(
    root: &Path,
    changes: &KbChanges,
    snapshot: &Snapshot,
    started: Instant,
    first: bool,
) {
    let elapsed_ms = started.elapsed().as_millis();
    if first {
        tracing::info!(
            "KB: indexed {} entries from {} in {elapsed_ms} ms ({} skipped)",
            snapshot.by_path.len(),
            root.display(),
            snapshot.skipped.len()
        );
        return;
    }
    tracing::info!(
        "KB: re-indexed {} in {elapsed_ms} ms: {} added{}, {} changed{}, {} removed{}; {} entries",
        root.display(),
        changes.added.len(),
        named(&changes.added),
        changes.changed.len(),
        named(&changes.changed),
        changes.removed.len(),
        named(&changes.removed),
        snapshot.by_path.len()
    );
}

fn named(paths: &[String]) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let shown: Vec<&str> = paths
        .iter()
        .take(LOGGED_PATHS)
        .map(String::as_str)
        .collect();
    let more = paths.len().saturating_sub(LOGGED_PATHS);
    if more > 0 {
        format!(" ({} and {more} more)", shown.join(", "))
    } else {
        format!(" ({})", shown.join(", "))
    }
}

/// Reads and parses files on all cores, results in input order.
fn read_in_parallel(files: &[&CatalogFile]) -> Vec<Result<KbEntry, MalformedEntry>> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let threads = cores.min(files.len().div_ceil(READ_CHUNK)).max(1);
    if threads == 1 {
        return files.iter().map(|f| read_entry(f)).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Result<KbEntry, MalformedEntry>>> =
        (0..files.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(READ_CHUNK, Ordering::Relaxed);
                        if start >= files.len() {
                            break;
                        }
                        for (i, file) in files.iter().enumerate().skip(start).take(READ_CHUNK) {
                            done.push((i, read_entry(file)));
                        }
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            if let Ok(done) = worker.join() {
                for (i, result) in done {
                    results[i] = Some(result);
                }
            }
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| Err(MalformedEntry::Unreadable("reader thread failed".into())))
        })
        .collect()
}

fn read_entry(file: &CatalogFile) -> Result<KbEntry, MalformedEntry> {
    if file.stamp.len > MAX_ENTRY_BYTES {
        return Err(MalformedEntry::TooLarge(file.stamp.len));
    }
    // Opened without blocking and checked on the descriptor: a FIFO or a
    // device swapped in since the listing is refused at once (a plain open
    // of a FIFO waits for a writer, and the watcher with it, for good).
    let (handle, opened) = regular_file::open(&file.absolute).map_err(|e| match e {
        RegularFileError::NotRegular(kind) => {
            MalformedEntry::Unreadable(format!("replaced by {kind} since it was listed"))
        }
        other => MalformedEntry::Unreadable(other.to_string()),
    })?;
    // The file opened must be the one listed, not a symlink swapped in since
    // (opening follows symlinks).
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::ino(&opened) != file.stamp.inode {
        return Err(MalformedEntry::Unreadable(
            "replaced while being read".into(),
        ));
    }
    let bytes =
        regular_file::read_opened(handle, &opened, MAX_ENTRY_BYTES).map_err(|e| match e {
            RegularFileError::TooLarge { .. } => MalformedEntry::TooLarge(opened.len()),
            other => MalformedEntry::Unreadable(other.to_string()),
        })?;
    KbEntry::parse_bytes(&file.path, &bytes)
}
