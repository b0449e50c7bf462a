//! Logs go to stderr (stdout carries only protocol messages in stdio mode).
//! The level comes from `--log-level`, else `RUST_LOG`, else [`DEFAULT_FILTER`]
//! (`info`, with rmcp's per-request lines at `warn`). The format is text, or
//! one JSON object per line (`--log-format json`, or `log.format: json` in the
//! settings, applied once they are loaded: [`apply_settings`]).
//!
//! Each tool call writes one audit line at info level (target
//! `herald::audit`, see `herald_core::telemetry::audit`); with
//! `log.audit_file` it is also appended to that file ([`crate::logging::audit_file`]).
//!
//! The stderr lines go through one [`LogWriter`], owned by the installed
//! subscriber's layer (a reload of the format gets the same writer);
//! `run_cli` holds its [`FlushGuard`] ([`batch`]) while it runs and drops it
//! on every way out, which writes what waits.

pub(crate) mod audit_file;
pub(crate) mod buffer;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use herald_core::config::{LogFormat, Settings};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry, reload};

use crate::error::ServerError;
use crate::logging::audit_file::AuditFile;
use crate::logging::buffer::{FlushGuard, LogWriter};

/// The filter without a flag or `RUST_LOG`: rmcp logs every stateless HTTP
/// request at `info`, which buries Herald's own lines; rustls' platform
/// verifier warns about every missing system root file, which is the normal
/// case in a minimal image (Herald then uses its bundled roots and says so).
pub(crate) const DEFAULT_FILTER: &str = "info,rmcp=warn,rustls_platform_verifier=error";

/// The filter of the one-shot commands (`call`, `tools`, `health`) without a
/// flag or `RUST_LOG`: the same, without the audit line, which records a
/// served call for an operator; a person at a terminal sees the answer itself
/// (and `RUST_LOG=info` brings the line back).
pub(crate) const ONE_SHOT_FILTER: &str =
    "info,rmcp=warn,rustls_platform_verifier=error,herald::audit=off";

type FormatLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// How the format can still change: the reload handle, and whether a flag
/// fixed it (then the settings do not change it); the audit file, named by
/// the settings; the stderr writer the layer writes through.
struct Installed {
    handle: reload::Handle<FormatLayer, Registry>,
    writer: LogWriter,
    fixed_by_flag: bool,
    json: AtomicBool,
    audit: AuditFile,
}

/// The subscriber is process-wide (tracing's global default), so the record
/// of what was installed is too; the writer's state lives in the writer.
static INSTALLED: OnceLock<Installed> = OnceLock::new();

/// Installs the stderr subscriber, in `format` when a flag gave one (text
/// until the settings say otherwise), with `default` as the filter when
/// neither a flag nor `RUST_LOG` gives one ([`DEFAULT_FILTER`] or
/// [`ONE_SHOT_FILTER`]). A second call (a binding running the CLI twice in
/// one process) keeps the first one.
pub(crate) fn init(level: Option<&str>, format: Option<LogFormat>, default: &str) {
    let filter = filter(level, std::env::var("RUST_LOG").ok().as_deref(), default);
    let writer = LogWriter::new();
    let (layer, handle) = reload::Layer::new(format_layer(
        format.unwrap_or_else(|| Settings::default().log.format),
        &writer,
    ));
    let audit = AuditFile::default();
    // The filter is the stderr layer's own: the audit file takes every audit
    // line whatever the level.
    if tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .with(audit.layer())
        .try_init()
        .is_ok()
    {
        let _ = INSTALLED.set(Installed {
            handle,
            writer,
            fixed_by_flag: format.is_some(),
            json: (format == Some(LogFormat::Json)).into(),
            audit,
        });
    }
}

/// Switches to the format of the settings (`log.format`), unless a flag
/// chose one, and opens `log.audit_file` when set.
pub(crate) fn apply_settings(settings: &Settings) -> Result<(), ServerError> {
    let Some(installed) = INSTALLED.get() else {
        return Ok(());
    };
    if let Some(path) = &settings.log.audit_file {
        installed
            .audit
            .open(path)
            .map_err(|source| ServerError::AuditFile {
                path: path.display().to_string(),
                source,
            })?;
    }
    if !installed.fixed_by_flag {
        let format = settings.log.format;
        if installed
            .handle
            .reload(format_layer(format, &installed.writer))
            .is_ok()
        {
            installed
                .json
                .store(format == LogFormat::Json, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Batches the stderr lines off the calls' path until the guard is dropped
/// (`run_cli`); `None` when another subscriber was installed first.
pub(crate) fn batch() -> Option<FlushGuard> {
    INSTALLED.get().map(|i| i.writer.batch())
}

/// Log lines dropped because stderr could not take them
/// (`herald_log_lines_dropped_total`).
pub(crate) fn lines_dropped_total() -> u64 {
    INSTALLED.get().map_or(0, |i| i.writer.dropped_total())
}

/// Audit lines `log.audit_file` did not take (`herald_audit_lines_dropped_total`).
pub(crate) fn audit_lines_dropped_total() -> u64 {
    INSTALLED.get().map_or(0, |i| i.audit.dropped_total())
}

/// Whether log lines are JSON now.
pub(crate) fn is_json() -> bool {
    INSTALLED
        .get()
        .is_some_and(|i| i.json.load(Ordering::Relaxed))
}

/// A message for the operator on stderr: a log line of its own in the JSON
/// format (so every line stays one JSON object), else a plain line
/// `lorebase-herald: ...`.
pub(crate) fn notice(message: &str) {
    operator_line(message, false);
}

/// A failure that ends Herald, as [`notice`] writes it (error level in JSON).
pub(crate) fn fatal(message: &str) {
    operator_line(message, true);
}

/// [`notice`] and [`fatal`]: queued behind the log lines still waiting in
/// the [`LogWriter`], so the order on stderr is kept and a stderr that
/// nobody reads never blocks the caller.
fn operator_line(message: &str, failure: bool) {
    match (is_json(), failure) {
        (true, false) => tracing::info!(target: "lorebase_herald", "{message}"),
        (true, true) => tracing::error!(target: "lorebase_herald", "{message}"),
        (false, _) => {
            let line = format!("lorebase-herald: {message}\n");
            match INSTALLED.get() {
                Some(installed) => installed.writer.write_line(line.as_bytes()),
                None => eprint!("{line}"),
            }
        }
    }
}

/// The layer writing `format` on stderr through `writer`.
fn format_layer(format: LogFormat, writer: &LogWriter) -> FormatLayer {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    match format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(writer.clone())
            .with_ansi(ansi)
            .with_target(true)
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_writer(writer.clone())
            .with_target(true)
            .boxed(),
    }
}

/// The filter: a flag wins over `RUST_LOG`, which wins over `default`; a bad
/// directive falls back to `default` (with a note on stderr) rather than
/// failing.
pub(crate) fn filter(flag: Option<&str>, rust_log: Option<&str>, default: &str) -> EnvFilter {
    let wanted = flag
        .or(rust_log)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(default);
    EnvFilter::try_new(wanted).unwrap_or_else(|_| {
        eprintln!("lorebase-herald: ignoring the log filter {wanted:?}; using {default}");
        EnvFilter::new(default)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_wins_over_rust_log() {
        assert_eq!(
            filter(Some("debug"), Some("warn"), DEFAULT_FILTER).to_string(),
            "debug"
        );
        assert_eq!(
            filter(None, Some("warn"), DEFAULT_FILTER).to_string(),
            "warn"
        );
        assert_eq!(
            filter(None, None, DEFAULT_FILTER).to_string(),
            filter(Some(DEFAULT_FILTER), None, DEFAULT_FILTER).to_string()
        );
        assert_eq!(
            filter(Some(" "), None, DEFAULT_FILTER).to_string(),
            filter(None, None, DEFAULT_FILTER).to_string()
        );
    }

    #[test]
    fn one_shot_commands_leave_the_audit_line_out_by_default() {
        let one_shot = filter(None, None, ONE_SHOT_FILTER).to_string();
        assert!(one_shot.contains("herald::audit=off"), "{one_shot}");
        assert!(
            !filter(None, None, DEFAULT_FILTER)
                .to_string()
                .contains("herald::audit")
        );
        assert_eq!(
            filter(None, Some("info"), ONE_SHOT_FILTER).to_string(),
            "info"
        );
    }

    #[test]
    fn bad_filter_falls_back() {
        assert_eq!(
            filter(Some("herald=[[["), None, DEFAULT_FILTER).to_string(),
            filter(None, None, DEFAULT_FILTER).to_string()
        );
    }
}
