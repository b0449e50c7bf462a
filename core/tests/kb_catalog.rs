//! The catalog: which files are entries, malformed files and their warning,
//! frontmatter fields, and `kb_get` lookups that never reach the filesystem.

use crate::kb_support;

use std::time::Duration;

use herald_core::kb::{KbCatalog, KbError, KbOptions};
use kb_support::{call, call_json, capture_logs, entry, open, write};
use serde_json::{Value, json};

#[test]
fn only_visible_markdown_entries_are_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", &entry("title: A", "alpha"));
    write(root, "sub/deeper/b.md", &entry("title: B", "beta"));
    write(
        root,
        "Upper.MD",
        &entry("title: Upper", "upper case extension"),
    );
    write(root, "plain.md", "no frontmatter at all\n");
    // Repository documents, whatever their case and depth.
    for name in [
        "README.md",
        "index.md",
        "log.md",
        "Contributing.md",
        "CODE_OF_CONDUCT.md",
        "security.md",
        "ChangeLog.md",
        "LICENSE.md",
        "governance.md",
        "MAINTAINERS.md",
        "support.md",
        "sub/readme.md",
    ] {
        write(root, name, &entry("title: reserved", "reserved document"));
    }
    // Hidden files and folders, other extensions.
    write(root, ".hidden.md", &entry("title: hidden", "hidden"));
    write(
        root,
        ".drafts/c.md",
        &entry("title: draft", "hidden folder"),
    );
    write(root, "sub/.git/d.md", &entry("title: git", "hidden folder"));
    write(root, "notes.txt", "not markdown");
    write(root, "a.md.bak", "not markdown");
    // Symlinks (to a file inside, to a folder, to a file outside) are not followed.
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path(),
        "secret.md",
        &entry("title: outside", "outside the catalog"),
    );
    std::os::unix::fs::symlink(root.join("a.md"), root.join("link.md")).unwrap();
    std::os::unix::fs::symlink(root.join("sub"), root.join("linkdir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("escape.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("escape-dir")).unwrap();

    let catalog = open(root);
    assert_eq!(
        catalog.paths(),
        ["Upper.MD", "a.md", "plain.md", "sub/deeper/b.md"]
    );
    assert!(catalog.search("reserved", 20).unwrap().is_empty());
    assert!(catalog.search("hidden", 20).unwrap().is_empty());
    assert!(catalog.search("outside", 20).unwrap().is_empty());
    assert!(catalog.skipped().is_empty());
}

#[test]
fn a_file_without_frontmatter_is_an_entry() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "notes/dns.md",
        "# CoreDNS timeouts\n\nRaise the cache TTL.\n",
    );
    write(
        dir.path(),
        "notes/bare.md",
        "Just a line about karpenter.\n",
    );
    let catalog = open(dir.path());
    let hits = call_json(&catalog, "kb_search", json!({"query": "coredns"}));
    assert_eq!(
        hits["hits"][0],
        json!({"path": "notes/dns.md", "type": "", "title": "CoreDNS timeouts",
               "description": "", "resource": "", "tags": [],
               "score": hits["hits"][0]["score"]})
    );
    let bare = call_json(&catalog, "kb_get", json!({"path": "notes/bare.md"}));
    assert_eq!(
        bare,
        json!({"path": "notes/bare.md", "type": "", "title": "bare",
               "body": "Just a line about karpenter."})
    );
}

#[test]
fn malformed_files_are_skipped_with_one_warning_each() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.md", &entry("title: Good", "fine"));
    write(root, "bad/yaml.md", "---\ntitle: [unclosed\n---\nbody\n");
    write(root, "bad/unclosed.md", "---\ntitle: never closed\nbody\n");
    write(root, "bad/list.md", "---\n- a\n- b\n---\nbody\n");
    write(
        root,
        "bad/shape.md",
        "---\ntitle: {nested: map}\n---\nbody\n",
    );
    std::fs::write(root.join("bad/binary.md"), b"\xff\xfe\x00 not text").unwrap();

    let (catalog, logs) = capture_logs(|| open(root));
    assert_eq!(catalog.paths(), ["good.md"]);
    let skipped: Vec<(String, String)> = catalog
        .skipped()
        .into_iter()
        .map(|s| (s.path, s.reason))
        .collect();
    let names: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "bad/binary.md",
            "bad/list.md",
            "bad/shape.md",
            "bad/unclosed.md",
            "bad/yaml.md"
        ]
    );
    assert_eq!(skipped[0].1, "not UTF-8 text");
    assert_eq!(skipped[3].1, "frontmatter opened with --- is never closed");
    assert!(
        skipped[4].1.starts_with("invalid frontmatter: "),
        "{}",
        skipped[4].1
    );

    // One warning per file, naming it and saying why.
    let warnings: Vec<&str> = logs.lines().filter(|l| l.contains("WARN")).collect();
    assert_eq!(warnings.len(), 5, "{logs}");
    for (path, reason) in &skipped {
        let line = warnings
            .iter()
            .find(|l| {
                l.contains(
                    &root
                        .canonicalize()
                        .unwrap()
                        .join(path)
                        .display()
                        .to_string(),
                )
            })
            .unwrap_or_else(|| panic!("no warning names {path}: {logs}"));
        assert!(line.contains(reason.as_str()), "{line}");
    }

    // A rescan with nothing changed warns no more.
    let (changes, logs) = capture_logs(|| catalog.reload().unwrap());
    assert!(
        changes.is_empty() && changes.skipped.is_empty(),
        "{changes:?}"
    );
    assert!(!logs.contains("WARN"), "{logs}");
}

#[test]
fn frontmatter_fields_are_returned_when_present() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "curated/harbor.md",
        &entry(
            "type: runbook\ntitle: Harbor core OOMKilled\ndescription: Raise the memory limit.\n\
             resource: Deployment/harbor-core\nalert_resource: HarborCoreDown\ntags: [harbor, oom]\n\
             timestamp: 2026-03-01T10:00:00Z\nfingerprint: 9f2c0e\nstatus: retired\n\
             last_validated: 2026-02-27\nowner: platform-team",
            "## Fix\nRaise the limit to 2Gi.",
        ),
    );
    write(
        dir.path(),
        "hand/minimal.md",
        &entry("type: howto\ntitle: Minimal harbor note", "harbor"),
    );
    let catalog = open(dir.path());

    let answer = call_json(&catalog, "kb_search", json!({"query": "harbor"}));
    let hits = answer["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    let full = hits
        .iter()
        .find(|h| h["path"] == "curated/harbor.md")
        .unwrap();
    assert_eq!(
        keys_of(full),
        [
            "path",
            "type",
            "title",
            "description",
            "resource",
            "tags",
            "status",
            "last_validated",
            "score"
        ]
    );
    assert_eq!(full["status"], "retired");
    assert_eq!(full["last_validated"], "2026-02-27");
    let minimal = hits
        .iter()
        .find(|h| h["path"] == "hand/minimal.md")
        .unwrap();
    // description, resource and tags always (docs/kb.md), empty here.
    assert_eq!(
        keys_of(minimal),
        [
            "path",
            "type",
            "title",
            "description",
            "resource",
            "tags",
            "score"
        ]
    );
    assert_eq!(
        (
            &minimal["description"],
            &minimal["resource"],
            &minimal["tags"]
        ),
        (&json!(""), &json!(""), &json!([]))
    );

    // kb_get: every field, plus timestamp and fingerprint, plus the body.
    let got = call_json(&catalog, "kb_get", json!({"path": "curated/harbor.md"}));
    assert_eq!(
        got,
        json!({
            "path": "curated/harbor.md", "type": "runbook", "title": "Harbor core OOMKilled",
            "description": "Raise the memory limit.", "resource": "Deployment/harbor-core",
            "alert_resource": "HarborCoreDown", "tags": ["harbor", "oom"], "status": "retired",
            "last_validated": "2026-02-27", "timestamp": "2026-03-01T10:00:00Z",
            "fingerprint": "9f2c0e", "body": "## Fix\nRaise the limit to 2Gi."
        })
    );
    let got = call_json(&catalog, "kb_get", json!({"path": "hand/minimal.md"}));
    assert_eq!(keys_of(&got), ["path", "type", "title", "body"]);

    // The text format: frontmatter lines, then the body.
    let text = call(&catalog, "kb_get", json!({"path": "curated/harbor.md"}));
    assert!(!text.is_error);
    assert!(text.structured.is_none()); // by default a text answer is text alone
    assert!(
        text.text
            .starts_with("---\npath: curated/harbor.md\ntype: runbook\n"),
        "{}",
        text.text
    );
    assert!(
        text.text.contains("\nfingerprint: 9f2c0e\n---\n## Fix\n"),
        "{}",
        text.text
    );
}

#[test]
fn kb_get_only_knows_indexed_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", &entry("title: A", "alpha"));
    write(root, "sub/b.md", &entry("title: B", "beta"));
    write(root, "README.md", "# the readme\n");
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "x.md", &entry("title: X", "outside"));
    let catalog = open(root);

    assert!(catalog.get("a.md").is_some());
    assert!(catalog.get("sub/b.md").is_some());
    let absolute_a = root.join("a.md").display().to_string();
    let traversal = format!(
        "sub/../../{}/x.md",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    for path in [
        "README.md",
        "readme.md",
        "../a.md",
        "./a.md",
        "/a.md",
        "sub/../a.md",
        "sub//b.md",
        "sub\\b.md",
        "A.md",
        "a.md/",
        " a.md",
        "a",
        "/etc/passwd",
        "../../../../etc/passwd",
        absolute_a.as_str(),
        traversal.as_str(),
        "sub",
        "",
    ] {
        assert!(catalog.get(path).is_none(), "{path:?} must not resolve");
    }
    let error = herald_core::tools::kb::not_found("../a.md");
    assert_eq!(error.code.as_str(), "not-found");
    assert_eq!(
        error.message,
        r#"no entry at "../a.md" (use kb_search to discover paths)"#
    );
    assert!(error.next.as_deref().unwrap().contains("kb_search"));
    // Control characters and quotes are escaped, very long paths shortened.
    let error = herald_core::tools::kb::not_found("a\"b\nc");
    assert_eq!(
        error.message,
        r#"no entry at "a\"b\nc" (use kb_search to discover paths)"#
    );
    let long = "x/".repeat(500);
    assert!(herald_core::tools::kb::not_found(&long).message.len() < 300);
}

#[test]
fn an_unreadable_catalog_fails_to_open() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let error = KbCatalog::open(&missing).unwrap_err().to_string();
    assert!(error.starts_with("cannot read the KB catalog"), "{error}");
    write(dir.path(), "file.md", "x");
    let error = KbCatalog::open(&dir.path().join("file.md"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a directory"), "{error}");
    // An empty folder is a valid, empty catalog.
    let empty = tempfile::tempdir().unwrap();
    let catalog = open(empty.path());
    assert!(catalog.is_empty());
    assert!(catalog.search("anything", 5).unwrap().is_empty());
}

/// An object's keys, in order.
fn keys_of(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// `KbCatalog::start` returns before the index is built; calls made before
/// it is ready are tool errors saying to retry; `ready` waits for it. An
/// entry nesting its frontmatter 100,000 deep is skipped at once.
#[test]
fn a_catalog_started_in_the_background_answers_once_indexed() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3000 {
        write(
            dir.path(),
            &format!("f{}/n{i}.md", i % 30),
            &entry(&format!("title: Disk note {i}"), "disk pressure"),
        );
    }
    let n = 100_000;
    write(
        dir.path(),
        "deep.md",
        &entry(&format!("tags: {}{}", "[".repeat(n), "]".repeat(n)), "x"),
    );
    let options = KbOptions {
        watch: false,
        ..KbOptions::default()
    };
    let runtime = herald_core::runtime::multi_thread("kb-test", Some(1)).unwrap();
    let started = std::time::Instant::now();
    let catalog = KbCatalog::start(dir.path(), options).unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    if !catalog.is_ready() {
        let early = call(&catalog, "kb_search", json!({"query": "disk"}));
        assert!(early.is_error);
        assert!(
            early
                .text
                .starts_with("[kb-indexing] the knowledge base is still being indexed"),
            "{}",
            early.text
        );
        assert!(
            early
                .text
                .ends_with("indexed in the background from startup"),
            "{}",
            early.text
        );
        let not_yet = runtime.block_on(catalog.ready(Duration::ZERO));
        assert!(
            matches!(not_yet, Err(KbError::Indexing { .. }) | Ok(())),
            "{not_yet:?}"
        );
    }
    runtime
        .block_on(catalog.ready(Duration::from_secs(60)))
        .expect("indexed");
    assert_eq!(catalog.len(), 3000);
    let skipped = catalog.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        skipped[0].reason,
        "frontmatter nests collections more than 32 deep (line 1)"
    );
    assert_eq!(
        call_json(&catalog, "kb_search", json!({"query": "disk", "k": 2}))["hits"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A folder that cannot be read still fails at once.
    let error = KbCatalog::start(&dir.path().join("missing"), options).unwrap_err();
    assert!(
        error.to_string().starts_with("cannot read the KB catalog"),
        "{error}"
    );
}
