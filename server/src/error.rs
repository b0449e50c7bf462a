//! The server's own failures (not tool results): bad settings, a port that
//! cannot be bound, a transport that broke.

use herald_core::config::SettingKey;
use herald_core::tools::ToolboxError;

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
    /// The client of the remote MCP servers could not be built.
    #[error("{0}")]
    Remote(String),
    /// The span exporter (`traces.otlp_endpoint`) could not start.
    #[error("{0}")]
    Traces(String),
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
    /// `log.audit_file` could not be opened for appending.
    #[error("cannot open the audit file {path} ({key}): {source}", key = SettingKey::LogAuditFile)]
    AuditFile {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Reading input (stdin, a file) failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Each way a toolbox cannot be built keeps its own label (a KB error is not
/// a Keeper error) and says it once.
impl From<ToolboxError> for ServerError {
    fn from(error: ToolboxError) -> Self {
        match error {
            ToolboxError::Keeper(e) => Self::Keeper(e.to_string()),
            ToolboxError::Kb(e) => Self::Kb(e.to_string()),
            ToolboxError::Remote(e) => Self::Remote(e.to_string()),
            ToolboxError::Selection(message) => Self::Settings(message),
            ToolboxError::Traces(message) => Self::Traces(message),
        }
    }
}

impl ServerError {
    /// The process exit code for this failure: 2 for usage and settings
    /// errors (as for clap's own), a file a setting names included (the KB
    /// folder, the Keeper CA file, the audit file's folder): a restart does
    /// not mend them; 1 otherwise (a port in use, a transport that broke).
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Settings(_)
            | Self::Usage(_)
            | Self::Keeper(_)
            | Self::Kb(_)
            | Self::AuditFile { .. } => 2,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use herald_core::kb::KbError;
    use herald_core::keeper::KeeperError;

    use super::*;

    #[test]
    fn each_toolbox_failure_keeps_its_label_once() {
        let kb = ServerError::from(ToolboxError::Kb(KbError::Unreadable {
            path: "/nowhere".into(),
            reason: "not found".into(),
        }));
        assert_eq!(
            kb.to_string(),
            format!(
                "cannot read the KB catalog /nowhere (herald.{}): not found",
                herald_core::config::SettingKey::KbDir
            )
        );
        assert!(matches!(kb, ServerError::Kb(_)));
        let keeper = ServerError::from(ToolboxError::Keeper(KeeperError::Setup(
            "HTTP_PROXY is not a valid proxy URL".into(),
        )));
        assert_eq!(
            keeper.to_string(),
            "cannot build the Keeper client: [keeper-unavailable] cannot set up the call to Keeper: HTTP_PROXY is not a valid proxy URL"
        );
        let typo = ServerError::from(ToolboxError::Selection(format!(
            "{} names ...",
            SettingKey::ToolsAllow
        )));
        assert_eq!(typo.exit_code(), 2);
    }
}
