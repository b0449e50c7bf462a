//! Why a catalog cannot be opened or searched.

/// Why a catalog cannot be opened or searched.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// The directory cannot be read.
    #[error(
        "cannot read the KB catalog {path} (herald.{}): {reason}",
        crate::config::SettingKey::KbDir
    )]
    Unreadable {
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
    /// The index failed (building, updating or searching it).
    #[error("KB index error: {0}")]
    Index(String),
    /// The first index is still being built (in the background, since
    /// startup).
    #[error("the knowledge base is still being indexed (for {seconds} s)")]
    Indexing {
        /// For how long it has been.
        seconds: u64,
    },
}
