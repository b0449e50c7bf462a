//! The KB's own failures: a call before the first index (or after it
//! failed), an unknown path. The KB is Herald's own, not Keeper's: its
//! codes are its own too.

use crate::error::ToolError;
use crate::kb::KbError;
use crate::keeper::model::{Open, ProblemCode};
use crate::render::caps;

/// Longest path echoed back in a not-found message.
const MAX_ECHOED_PATH: usize = 200;
/// The retry delay a call made while the catalog is being indexed names.
const INDEX_RETRY_S: u32 = 5;

/// The code of a call made while the knowledge base is still being indexed
/// (transient: retry). The KB is Herald's own, not Keeper's: its codes are
/// its own too (docs/tools.md lists them beside Keeper's).
pub const KB_INDEXING: &str = "kb-indexing";

/// The code of a call to a knowledge base whose index failed or cannot be
/// searched.
pub const KB_UNAVAILABLE: &str = "kb-unavailable";

/// The error of a call made before the first index is built, or after it
/// failed: transient, retry.
pub fn not_ready(e: &KbError) -> ToolError {
    let (code, next) = match e {
        KbError::Indexing { .. } => (
            KB_INDEXING,
            format!(
                "retry after {INDEX_RETRY_S} s: the knowledge base is indexed in the background from startup"
            ),
        ),
        _ => (
            KB_UNAVAILABLE,
            "check Herald's log; the catalog is indexed again when its folder changes".into(),
        ),
    };
    ToolError {
        code: Open::Other(code.into()),
        message: e.to_string(),
        issues: Vec::new(),
        head: None,
        retry_after: Some(INDEX_RETRY_S),
        next: Some(next),
    }
}

/// The error of an unknown `kb_get` path.
pub fn not_found(path: &str) -> ToolError {
    let shown = if path.chars().count() > MAX_ECHOED_PATH {
        format!("{}...", caps::prefix_chars(path, MAX_ECHOED_PATH))
    } else {
        path.to_string()
    };
    ToolError {
        code: ProblemCode::NotFound.into(),
        message: format!("no entry at {shown:?} (use kb_search to discover paths)"),
        issues: Vec::new(),
        head: None,
        retry_after: None,
        next: Some(
            "call kb_search with words from the entry, then pass a hit's path to kb_get unchanged"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The KB's own codes: a model does not blame Keeper for a local index.
    #[test]
    fn a_kb_not_ready_has_its_own_codes() {
        let caps = crate::config::Settings::default().output;
        let indexing = not_ready(&KbError::Indexing { seconds: 3 }).render(&caps);
        assert!(
            indexing.starts_with("[kb-indexing] the knowledge base is still being indexed"),
            "{indexing}"
        );
        assert!(indexing.ends_with("\nnext: retry after 5 s: the knowledge base is indexed in the background from startup"), "{indexing}");
        let failed = not_ready(&KbError::Index("disk full".into())).render(&caps);
        assert_eq!(
            failed,
            "[kb-unavailable] KB index error: disk full\nnext: check Herald's log; the catalog is indexed again when its folder changes"
        );
    }
}
