//! How to start a sandbox, and why it may not start.

use crate::auth::AuthMode;

/// How to start a sandbox.
#[derive(Debug, Clone)]
pub struct SandboxOptions {
    /// Interface to listen on (default `127.0.0.1`).
    pub host: String,
    /// Port (0, the default, picks a free one).
    pub port: u16,
    /// `none` (every request is the anonymous administrator), `api_key` or `jwt`.
    pub auth: AuthMode,
    /// Auth mode `jwt`: the issuer whose tokens are accepted.
    pub oauth_issuer: Option<String>,
    /// Auth mode `jwt`: the issuer's JWKS, a file (read again for a key
    /// it did not hold).
    pub oauth_jwks: Option<std::path::PathBuf>,
    /// Seed for the minted API keys: the same seed gives the same keys;
    /// `None` mints random ones.
    pub seed: Option<u64>,
    /// Adds the Domain `synthetic` with this many Records (for benchmarks).
    pub synthetic: Option<usize>,
    /// A lexical search ranks at most this many matches when every term is
    /// that common (`truncated_candidates`), default 200.
    pub search_candidate_cap: usize,
    /// Answer as a Keeper one release ahead of the contract would: extra
    /// fields, enum values and problem codes the contract does not list
    /// ([`crate::newer`]). Default false.
    pub newer_keeper: bool,
}

impl Default for SandboxOptions {
    fn default() -> Self {
        Self {
            host: "127.0.0.1".into(),
            port: 0,
            auth: AuthMode::None,
            oauth_issuer: None,
            oauth_jwks: None,
            seed: None,
            synthetic: None,
            search_candidate_cap: 200,
            newer_keeper: false,
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
    /// Auth mode `jwt` without `oauth_issuer` and `oauth_jwks`.
    #[error("auth mode jwt needs --oauth-issuer and --oauth-jwks")]
    MissingTrust,
    /// The built-in sample data is broken (a bug of the sandbox).
    #[error("the sample data is invalid: {0}")]
    Data(String),
}
