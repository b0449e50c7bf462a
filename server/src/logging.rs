//! Logs go to stderr (stdout carries only protocol messages in stdio mode).
//! The level comes from `--log-level`, else `RUST_LOG`, else [`DEFAULT_FILTER`]
//! (`info`, with rmcp's per-request lines at `warn`).

use tracing_subscriber::EnvFilter;

/// The filter without a flag or `RUST_LOG`: rmcp logs every stateless HTTP
/// request at `info`, which buries Herald's own lines; rustls' platform
/// verifier warns about every missing system root file, which is the normal
/// case in a minimal image (Herald then uses its bundled roots and says so).
pub const DEFAULT_FILTER: &str = "info,rmcp=warn,rustls_platform_verifier=error";

/// Installs the stderr subscriber. A second call (a binding running the CLI
/// twice in one process) keeps the first one.
pub fn init(level: Option<&str>) {
    let filter = filter(level, std::env::var("RUST_LOG").ok().as_deref());
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_target(true)
        .try_init();
}

/// The filter: a flag wins over `RUST_LOG`; a bad directive falls back to
/// `info` (with a note on stderr) rather than failing.
pub fn filter(flag: Option<&str>, rust_log: Option<&str>) -> EnvFilter {
    let wanted = flag
        .or(rust_log)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_FILTER);
    EnvFilter::try_new(wanted).unwrap_or_else(|_| {
        eprintln!("lorebase-herald: ignoring the log filter {wanted:?}; using {DEFAULT_FILTER}");
        EnvFilter::new(DEFAULT_FILTER)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_wins_over_rust_log() {
        assert_eq!(filter(Some("debug"), Some("warn")).to_string(), "debug");
        assert_eq!(filter(None, Some("warn")).to_string(), "warn");
        assert_eq!(
            filter(None, None).to_string(),
            filter(Some(DEFAULT_FILTER), None).to_string()
        );
        assert_eq!(
            filter(Some(" "), None).to_string(),
            filter(None, None).to_string()
        );
    }

    #[test]
    fn bad_filter_falls_back() {
        assert_eq!(
            filter(Some("herald=[[["), None).to_string(),
            filter(None, None).to_string()
        );
    }
}
