//! The KB entry parser (frontmatter + markdown) on any bytes: it never
//! panics, never takes more than linear time (libFuzzer's `-timeout` and
//! the smoke's time bound catch a slow input), and an entry has a title.
#![no_main]

use herald_core::kb::KbEntry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(entry) = KbEntry::parse_bytes("notes/entry.md", data) {
        assert_eq!(entry.path, "notes/entry.md");
        assert!(!entry.title.trim().is_empty(), "an entry without a title");
        assert!(entry.tags.iter().all(|t| !t.trim().is_empty()));
    }
});
