//! What the remote servers report: where each stands, and why the remote
//! tools cannot be set up.

/// Why the remote tools cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The HTTP client cannot be built (TLS roots, for example).
    #[error("cannot build the HTTP client for remote MCP servers: {0}")]
    Client(String),
}

/// Where one server stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ServerStatus {
    /// Not asked yet.
    #[default]
    NotDiscovered,
    /// Discovered; its tools are served.
    Ready {
        /// How many tools are registered.
        tools: usize,
    },
    /// The last discovery failed; no tools are served from it.
    Failed {
        /// What went wrong (scrubbed: no token, no URL query).
        reason: String,
    },
}

/// One server, for listings and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSummary {
    /// `mcp.servers[].name`.
    pub name: String,
    /// Its URL without the query.
    pub url: String,
    /// Where it stands.
    pub status: ServerStatus,
    /// The names of its registered tools (`<server>__<tool>`).
    pub tools: Vec<String>,
    /// The warnings of its last discovery (allowlist, page bound, skipped tools).
    pub warnings: Vec<String>,
}
