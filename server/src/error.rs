//! The server's own failures (not tool results): bad settings, a port that
//! cannot be bound, a transport that broke.

/// Why Herald could not start or keep serving.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The settings are invalid (the message names the key and its source).
    #[error("{0}")]
    Settings(String),
    /// A command-line argument is invalid.
    #[error("{0}")]
    Usage(String),
    /// The Keeper client could not be built.
    #[error("cannot build the Keeper client: {0}")]
    Keeper(String),
    /// The knowledge-base catalog could not be opened.
    #[error("{0}")]
    Kb(String),
    /// The HTTP listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// `host:port`.
        addr: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The transport failed while serving.
    #[error("transport error: {0}")]
    Transport(String),
    /// The in-process sandbox (`demo`) could not start.
    #[error("cannot start the sandbox: {0}")]
    Sandbox(String),
    /// Reading input (stdin, a file) failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ServerError {
    /// The process exit code for this failure: 2 for usage and settings
    /// errors (as for clap's own), 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Settings(_) | Self::Usage(_) => 2,
            _ => 1,
        }
    }
}
