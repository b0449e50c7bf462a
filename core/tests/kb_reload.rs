//! Re-indexing: a rescan applies added, changed and removed files; the
//! watcher does it by itself after the folder changes; an entry that turns
//! malformed leaves the index with a warning; old snapshots stay intact.

use crate::kb_support;

use std::time::{Duration, Instant};

use herald_core::kb::{KbCatalog, KbOptions};
use kb_support::{capture_logs, entry, open, write};

/// Waits (bounded) until `done` holds; the bound is a deadline for a broken
/// watcher, not a speed assertion.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn titles(catalog: &KbCatalog, query: &str) -> Vec<String> {
    catalog
        .search(query, 20)
        .unwrap()
        .into_iter()
        .map(|hit| hit.entry.title.clone())
        .collect()
}

#[test]
fn a_rescan_applies_added_changed_and_removed_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "a.md",
        &entry("title: Alpha", "redis sentinel failover"),
    );
    write(root, "b.md", &entry("title: Beta", "redis eviction"));
    write(root, "c.md", &entry("title: Gamma", "unrelated"));
    let catalog = open(root);
    let first = catalog.generation();
    let before = catalog.get("a.md").unwrap();

    write(
        root,
        "new/d.md",
        &entry("title: Delta", "redis cluster resharding"),
    );
    write(
        root,
        "a.md",
        &entry("title: Alpha v2", "redis sentinel quorum"),
    );
    std::fs::remove_file(root.join("b.md")).unwrap();
    // Same content rewritten: not a change.
    write(root, "c.md", &entry("title: Gamma", "unrelated"));
    let (changes, logs) = capture_logs(|| catalog.reload().unwrap());
    assert_eq!(changes.added, ["new/d.md"]);
    assert_eq!(changes.changed, ["a.md"]);
    assert_eq!(changes.removed, ["b.md"]);
    assert!(
        logs.contains("1 added (new/d.md), 1 changed (a.md), 1 removed (b.md)"),
        "{logs}"
    );
    assert_eq!(catalog.generation(), first + 1);
    assert_eq!(catalog.paths(), ["a.md", "c.md", "new/d.md"]);
    assert_eq!(titles(&catalog, "redis"), ["Alpha v2", "Delta"]);
    assert!(titles(&catalog, "failover").is_empty());
    assert!(catalog.get("b.md").is_none());
    // What a caller already holds is never changed under it.
    assert_eq!(before.title, "Alpha");

    // Nothing changed: no new generation.
    let changes = catalog.reload().unwrap();
    assert!(changes.is_empty());
    assert_eq!(catalog.generation(), first + 1);
}

#[test]
fn an_entry_that_turns_malformed_leaves_the_index_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", &entry("title: Alpha", "istio sidecar"));
    let catalog = open(root);
    write(root, "a.md", "---\ntitle: [broken\n---\nistio sidecar\n");
    let (changes, logs) = capture_logs(|| catalog.reload().unwrap());
    assert_eq!(changes.removed, ["a.md"]);
    assert_eq!(changes.skipped.len(), 1);
    assert!(
        logs.contains("WARN") && logs.contains("a.md: invalid frontmatter"),
        "{logs}"
    );
    assert!(catalog.search("istio", 5).unwrap().is_empty());
    // Fixed again: back in the index.
    write(root, "a.md", &entry("title: Alpha fixed", "istio sidecar"));
    let changes = catalog.reload().unwrap();
    assert_eq!(changes.added, ["a.md"]);
    assert!(catalog.skipped().is_empty());
    assert_eq!(titles(&catalog, "istio"), ["Alpha fixed"]);
}

#[test]
fn the_watcher_reindexes_added_changed_and_removed_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", &entry("title: Alpha", "loki ingester"));
    let catalog = KbCatalog::open_with(
        root,
        KbOptions {
            debounce: Duration::from_millis(100),
            ..KbOptions::default()
        },
    )
    .unwrap();
    assert_eq!(titles(&catalog, "loki"), ["Alpha"]);

    // Added, in a new folder.
    write(
        root,
        "team/new.md",
        &entry("title: Loki compactor", "loki compactor"),
    );
    eventually("the new entry is found", || {
        titles(&catalog, "compactor") == ["Loki compactor"]
    });

    // Changed.
    write(root, "a.md", &entry("title: Alpha two", "loki querier"));
    eventually("the change is indexed", || {
        titles(&catalog, "querier") == ["Alpha two"]
    });
    assert!(titles(&catalog, "ingester").is_empty());

    // Removed.
    std::fs::remove_file(root.join("team/new.md")).unwrap();
    eventually("the removed entry is gone", || {
        catalog.get("team/new.md").is_none()
    });
    assert_eq!(titles(&catalog, "loki"), ["Alpha two"]);

    // Renamed folder (as a git checkout does): the entries move with it.
    write(
        root,
        "old/x.md",
        &entry("title: Moved", "tempo distributor"),
    );
    eventually("x is indexed", || catalog.get("old/x.md").is_some());
    std::fs::rename(root.join("old"), root.join("renamed")).unwrap();
    eventually("x moved", || {
        catalog.get("renamed/x.md").is_some() && catalog.get("old/x.md").is_none()
    });

    // Hidden folders and reserved names never enter, even when written later.
    write(
        root,
        ".git/objects/y.md",
        &entry("title: Hidden", "tempo distributor"),
    );
    write(root, "README.md", "# tempo distributor\n");
    write(root, "last.md", &entry("title: Last", "final marker"));
    eventually("last is indexed", || catalog.get("last.md").is_some());
    assert_eq!(catalog.paths(), ["a.md", "last.md", "renamed/x.md"]);
}

#[test]
fn dropping_the_catalog_stops_the_watcher() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", &entry("title: A", "a"));
    let catalog = KbCatalog::open(dir.path()).unwrap();
    let clone = catalog.clone();
    drop(catalog);
    // The clone still serves (and still watches).
    write(dir.path(), "b.md", &entry("title: B", "bravo"));
    eventually("the clone sees b", || clone.get("b.md").is_some());
    drop(clone);
    // Writing after the last clone is gone must not panic anything.
    write(dir.path(), "c.md", &entry("title: C", "c"));
}
