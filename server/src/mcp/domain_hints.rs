//! The Domain's own words in the built-in tools' search hints
//! (`_meta["anthropic/searchHint"]`, core's [`search_hint`]): read from
//! Keeper's schema with the configured key when a host first lists the
//! tools (bounded by [`FIRST_READ`]), then read again in the background when
//! the words are older than [`FRESH_FOR`] or after a `lorebase_schema`
//! call, so a Kind added to the Domain reaches the hints of the next
//! `tools/list`. Only where every call carries the configured key (stdio,
//! in-process): a shared Herald's callers each have their own grants.
//! A failed read leaves the static hints (logged, never a listing's error).
//!
//! The read is off the request path: the Keeper call, the decoding of the
//! schema (up to `keeper.max_response_bytes`) and the gathering of its words
//! run on a blocking thread ([`tokio::task::spawn_blocking`], the future
//! driven there with [`tokio::runtime::Handle::block_on`]), never on the
//! runtime that answers the host: stdio's runtime is one thread, and a
//! Domain of 120,000 Kinds would hold every call behind its decoding. A
//! listing meanwhile serves the words read before (or, before the first
//! read ends, after at most [`FIRST_READ`], the static hints).
//!
//! Over stdio the first read starts as the session does ([`DomainHints::prefetch`]),
//! not at the first listing: building the HTTP client (the system's root
//! certificates) and the schema's round trip then overlap the process start
//! and the handshake, instead of adding to the host's wait for its first
//! `tools/list` (docs/benchmarks.md, "Herald against the floor").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use herald_core::tools::search_hint::DomainWords;
use herald_core::tools::{Toolbox, domain_words_of};
use rmcp::model::Tool;
use serde_json::Value;
use tokio::sync::Notify;

/// How long the first listing waits for the schema (then it lists the tools
/// with their static hints, and the read goes on in the background).
const FIRST_READ: Duration = Duration::from_secs(1);

/// How long the words are kept before they are read again.
const FRESH_FOR: Duration = Duration::from_secs(300);

/// The `_meta` key of the hints.
const HINT_KEY: &str = herald_core::tool_interface::SEARCH_HINT_META;

/// The Domain's words of one handler, shared by its clones.
#[derive(Debug, Default)]
pub(crate) struct DomainHints {
    /// Whether this handler reads them (it serves with the configured key).
    enabled: bool,
    /// The last read: when, and its words (none when it failed).
    words: RwLock<Option<(Instant, Option<Arc<DomainWords>>)>>,
    /// A read is under way.
    reading: AtomicBool,
    /// Read again at the next listing (a `lorebase_schema` call ran).
    stale: AtomicBool,
    /// Told when a read ends (a listing waiting for the first one).
    read_done: Notify,
}

impl DomainHints {
    /// Hints that read the schema (`enabled`) or stay static.
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            ..Self::default()
        }
    }

    /// Starts the first read now, in the background, when none was made
    /// (see the module documentation); a listing meanwhile waits for it.
    pub(crate) fn prefetch(self: &Arc<Self>, toolbox: &Toolbox) {
        if self.enabled && self.current().is_none() {
            tokio::spawn(Arc::clone(self).read(toolbox.clone()));
        }
    }

    /// Marks the words stale (the schema may have changed).
    pub(crate) fn schema_read(&self) {
        self.stale.store(true, Ordering::Release);
    }

    /// Adds the Domain's words to the hints of `tools` (the built-in ones
    /// carry a hint; remote tools none), reading them first when none were
    /// read yet (bounded by [`FIRST_READ`]) and in the background when old.
    pub(crate) async fn apply(self: &Arc<Self>, toolbox: &Toolbox, tools: &mut [Tool]) {
        if !self.enabled {
            return;
        }
        let current = self.current();
        let words = match current {
            None => {
                let read = tokio::spawn(Arc::clone(self).read(toolbox.clone()));
                match tokio::time::timeout(FIRST_READ, read).await {
                    Ok(Ok(words)) => words,
                    _ => None,
                }
            }
            Some((at, words)) => {
                if at.elapsed() > FRESH_FOR || self.stale.swap(false, Ordering::AcqRel) {
                    tokio::spawn(Arc::clone(self).read(toolbox.clone()));
                }
                words
            }
        };
        let Some(words) = words else { return };
        for tool in tools.iter_mut() {
            let Some(meta) = tool.meta.as_mut() else {
                continue;
            };
            if let Some(Value::String(base)) = meta.0.get(HINT_KEY) {
                let hint = words.hint(domain_words_of(&tool.name), base);
                meta.0.insert(HINT_KEY.into(), Value::String(hint));
            }
        }
    }

    fn current(&self) -> Option<(Instant, Option<Arc<DomainWords>>)> {
        self.words.read().ok().and_then(|w| w.clone())
    }

    /// Reads the words (one read at a time: a second caller waits for the
    /// read under way, then gets the words it kept) and keeps them.
    async fn read(self: Arc<Self>, toolbox: Toolbox) -> Option<Arc<DomainWords>> {
        if self.reading.swap(true, Ordering::AcqRel) {
            let done = self.read_done.notified();
            tokio::pin!(done);
            // Registered before the flag is read again: the end of the read
            // under way is never missed.
            done.as_mut().enable();
            if self.reading.load(Ordering::Acquire) {
                done.await;
            }
            return self.current().and_then(|(_, w)| w);
        }
        let runtime = tokio::runtime::Handle::current();
        let read = tokio::task::spawn_blocking(move || runtime.block_on(toolbox.domain_words()));
        let words = match read.await {
            Ok(Some(Ok(words))) => Some(Arc::new(words)),
            Ok(Some(Err(e))) => {
                tracing::info!(error = %e, "cannot read the schema for the tools' search hints: they stay static");
                None
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, "the read of the schema for the tools' search hints failed: they stay static");
                None
            }
        };
        if let Ok(mut slot) = self.words.write() {
            *slot = Some((Instant::now(), words.clone()));
        }
        self.reading.store(false, Ordering::Release);
        self.read_done.notify_waiters();
        words
    }
}
