//! `log.audit_file`: every audit line (target `herald::audit`) also appended
//! to a file, one JSON object per line, whatever the log level and whether or
//! not anyone reads stderr (where lines are dropped while nobody does, see
//! [`crate::logging::buffer`]). A regular file's append does not wait for a
//! reader: the lines are bounded only by the disk. A line the file does not
//! take (a full disk, an I/O error, `/dev/full`) is lost, never silently: it
//! is counted (`herald_audit_lines_dropped_total`), the first of a burst of
//! failures is a warning on stderr, and the next line written says how many
//! the burst lost.
//!
//! The layer is installed with the stderr one ([`crate::logging::init`]) and
//! writes nothing until [`AuditFile::open`] names the file (the settings are
//! read after the logs start).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use herald_core::config::SettingKey;
use herald_core::telemetry::AUDIT_TARGET;
use tracing::Metadata;
use tracing::subscriber::Interest;
use tracing_subscriber::Layer;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Context, Filter};
use tracing_subscriber::registry::LookupSpan;

/// The audit file, once named; shared by the layer and whoever opens it.
#[derive(Debug, Clone, Default)]
pub(crate) struct AuditFile {
    inner: Arc<Slot>,
}

#[derive(Debug, Default)]
struct Slot {
    open: AtomicBool,
    file: Mutex<Option<Appending>>,
    /// Lines the file did not take, since start.
    dropped: AtomicU64,
}

/// The open file and the burst of failed writes it is in.
#[derive(Debug)]
struct Appending {
    file: File,
    /// The path, for the warning.
    path: String,
    /// Lines lost since the last one written (0: not in a burst).
    burst: u64,
}

impl AuditFile {
    /// From now on audit lines are appended to `path` (created if missing).
    pub(crate) fn open(&self, path: &Path) -> io::Result<()> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        *self
            .inner
            .file
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Appending {
            file,
            path: path.display().to_string(),
            burst: 0,
        });
        self.inner.open.store(true, Ordering::Release);
        Ok(())
    }

    /// Audit lines the file did not take, since start
    /// (`herald_audit_lines_dropped_total`).
    pub(crate) fn dropped_total(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// The layer writing audit lines (JSON) into the file, with its own
    /// filter: the `herald::audit` target at info level, while a file is open.
    pub(crate) fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        let filter = AuditLines(Arc::clone(&self.inner));
        tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .with_target(true)
            .with_writer(self.clone())
            .with_filter(filter)
    }
}

/// The audit layer's filter: audit lines at info level, while a file is open.
struct AuditLines(Arc<Slot>);

impl<S> Filter<S> for AuditLines {
    fn enabled(&self, meta: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        meta.target() == AUDIT_TARGET
            && *meta.level() <= tracing::Level::INFO
            && self.0.open.load(Ordering::Acquire)
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        // Every other callsite stays as cheap as without this layer.
        if meta.target() == AUDIT_TARGET {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }
}

impl<'a> MakeWriter<'a> for AuditFile {
    type Writer = AuditLine<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        AuditLine(&self.inner)
    }
}

/// Appends one formatted line (the layer writes each whole).
#[derive(Debug)]
pub(crate) struct AuditLine<'a>(&'a Slot);

impl Write for AuditLine<'_> {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        let mut slot = self.0.file.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(appending) = slot.as_mut() else {
            return Ok(line.len());
        };
        let outcome = match appending.file.write_all(line) {
            Ok(()) => Some(std::mem::take(&mut appending.burst))
                .filter(|lost| *lost > 0)
                .map(Burst::Over),
            Err(error) => {
                self.0.dropped.fetch_add(1, Ordering::Relaxed);
                appending.burst += 1;
                (appending.burst == 1).then_some(Burst::Started(error))
            }
        };
        let path = appending.path.clone();
        // The lock is released before logging (the warning is not an audit
        // line, but a log line must never wait on this file).
        drop(slot);
        match outcome {
            Some(Burst::Started(error)) => tracing::warn!(
                "cannot write the audit file {path} ({key}): {error}; audit lines are lost \
                 and counted in herald_audit_lines_dropped_total until it can be written again",
                key = SettingKey::LogAuditFile
            ),
            Some(Burst::Over(lost)) => tracing::warn!(
                "the audit file {path} ({key}) is written again; {lost} audit lines were lost",
                key = SettingKey::LogAuditFile
            ),
            None => {}
        }
        // The line is accounted for either way: the formatter must not retry it.
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A change in the audit file's writes worth a warning.
enum Burst {
    /// The first failed write after a written one.
    Started(io::Error),
    /// A line written again after this many were lost.
    Over(u64),
}
