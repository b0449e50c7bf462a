//! How to start a sandbox, and why it may not start.

use crate::auth::AuthMode;

/// How to start a sandbox.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    /// Interface to listen on (default `127.0.0.1`).
    pub host: String,
    /// Port (0, the default, picks a free one).
    pub port: u16,
    /// `none` (every request is the anonymous administrator) or `api_key`.
    pub auth: AuthMode,
    /// Seed for the minted API keys: the same seed gives the same keys;
    /// `None` mints random ones.
    pub seed: Option<u64>,
    /// Adds the Domain `synthetic` with this many Records (for benchmarks).
    pub synthetic: Option<usize>,
    /// A lexical search ranks at most this many matches when every term is
    /// that common (`truncated_candidates`), default 200.
    pub search_candidate_cap: usize,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 0,
            auth: AuthMode::None,
            seed: None,
            synthetic: None,
            search_candidate_cap: 200,
        }
    }
}

/// Why a sandbox did not start.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The built-in sample data is broken (a bug of the sandbox).
    #[error("the sample data is invalid: {0}")]
    Data(String),
}
