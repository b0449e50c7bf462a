//! Watches a catalog folder and re-indexes it when it changes (a `git pull`,
//! `lore catalog sync`, an editor saving a file).
//!
//! Events are debounced: a rescan starts once the folder has been quiet for
//! the debounce time (or after 10 debounce times of continuous changes). The
//! files the events named are re-read even if their size and time look the
//! same; the rest of the catalog is compared by stamp. Searches keep using the
//! old snapshot until the new one is swapped in. Files are opened without
//! blocking (a FIFO swapped in for an entry is skipped, never waited on) and
//! a failed re-index is logged: the watcher never stops while the catalog is
//! served. Events inside hidden folders
//! (`.git/`) and pure reads are ignored.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Weak;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::shared::Shared;
use super::walk;

/// Keeps the folder watched; dropping it stops the watch and its thread.
pub(crate) struct CatalogWatcher {
    _watcher: RecommendedWatcher,
}

/// What the events of one debounce window asked for.
#[derive(Default)]
struct Pending {
    paths: HashSet<String>,
    any: bool,
}

/// Starts watching `root` (canonical) for `shared`.
pub(crate) fn start(
    root: &Path,
    shared: Weak<Shared>,
    debounce: Duration,
) -> notify::Result<CatalogWatcher> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx)?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    let root = root.to_path_buf();
    std::thread::Builder::new()
        .name("kb-watch".into())
        .spawn(move || run(&root, &rx, &shared, debounce))
        .map_err(|e| notify::Error::generic(&e.to_string()))?;
    Ok(CatalogWatcher { _watcher: watcher })
}

fn run(
    root: &Path,
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    shared: &Weak<Shared>,
    debounce: Duration,
) {
    loop {
        let mut pending = Pending::default();
        // Wait for the first relevant event (or the end: the watcher dropped).
        while !pending.any {
            match rx.recv() {
                Ok(event) => note(root, event, &mut pending),
                Err(_) => return,
            }
        }
        let first = Instant::now();
        loop {
            let cap = (debounce * 10).saturating_sub(first.elapsed());
            if cap.is_zero() {
                break;
            }
            match rx.recv_timeout(debounce.min(cap)) {
                Ok(event) => note(root, event, &mut pending),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        // The watcher outlives any one re-index: a failure, even a panic,
        // is logged and the next change is waited for.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shared.reload(&pending.paths)
        })) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                tracing::warn!("KB: re-index failed, still serving the previous index: {e}");
            }
            Err(_) => {
                tracing::error!("KB: re-index panicked, still serving the previous index");
            }
        }
    }
}

fn note(root: &Path, event: notify::Result<notify::Event>, pending: &mut Pending) {
    let event = match event {
        Ok(event) => event,
        Err(e) => {
            tracing::warn!("KB: watch error, rescanning the catalog: {e}");
            pending.any = true;
            return;
        }
    };
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    if event.need_rescan() || event.paths.is_empty() {
        pending.any = true;
        return;
    }
    for path in &event.paths {
        let Ok(relative) = path.strip_prefix(root) else {
            pending.any = true;
            continue;
        };
        if walk::is_hidden_path(relative) {
            continue;
        }
        pending.any = true;
        if let Some(relative) = relative.to_str() {
            let relative = relative.replace(std::path::MAIN_SEPARATOR, "/");
            pending.paths.insert(relative);
        }
    }
}
