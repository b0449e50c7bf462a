//! Why a catalog cannot be opened or searched.

/// Why a catalog cannot be opened or searched.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// The directory cannot be read.
    #[error("cannot read the KB catalog {path}: {reason}")]
    Unreadable {
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
    /// The index failed (building, updating or searching it).
    #[error("KB index error: {0}")]
    Index(String),
}
