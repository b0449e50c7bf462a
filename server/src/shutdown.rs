//! The process signals while serving: SIGTERM or SIGINT (Ctrl-C), or a
//! programmatic trigger (tests, bindings), start the graceful shutdown; a
//! second one while shutting down asks to exit now
//! ([`Shutdown::unless_exit_now`], exit code [`SECOND_SIGNAL_EXIT_CODE`]),
//! through `run_cli`'s way out so the log lines still waiting are written.
//! SIGHUP never stops Herald: it asks for a re-discovery of the remote MCP
//! servers' tools ([`Shutdown::hangups`], `crate::app::remote_refresh`), and when
//! nothing listens for it, the log says there is nothing to reload.

use herald_core::config::SettingKey;
use std::future::Future;
use std::sync::Arc;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The exit code after a second SIGTERM or SIGINT (128 + SIGINT, as a shell
/// reports an interrupted program).
pub const SECOND_SIGNAL_EXIT_CODE: i32 = 130;

/// A cloneable shutdown signal, with the hangups (SIGHUP) that arrived.
#[derive(Debug, Clone)]
pub struct Shutdown {
    token: CancellationToken,
    exit_now: CancellationToken,
    /// Counts the SIGHUPs passed on to a listener.
    hangups: Arc<watch::Sender<u64>>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Self {
            token: CancellationToken::new(),
            exit_now: CancellationToken::new(),
            hangups: Arc::new(watch::Sender::new(0)),
        }
    }
}

impl Shutdown {
    /// A signal that only fires when triggered.
    pub fn new() -> Self {
        Self::default()
    }

    /// A signal that also fires on SIGTERM and SIGINT, and passes SIGHUP on
    /// to [`Shutdown::hangups`]. Must be called inside a Tokio runtime; the
    /// handlers are installed before it returns (from then on SIGHUP no
    /// longer ends the process).
    pub fn on_signals() -> Self {
        let shutdown = Self::new();
        let watcher = shutdown.clone();
        let mut signals = Signals::install();
        tokio::spawn(async move {
            loop {
                match signals.next().await {
                    Signal::Hangup => watcher.hang_up(),
                    Signal::Stop(name) if !watcher.is_triggered() => {
                        tracing::info!(signal = name, "shutdown requested");
                        watcher.trigger();
                    }
                    Signal::Stop(name) => {
                        tracing::warn!(signal = name, "second signal: exiting now");
                        watcher.exit_now.cancel();
                        return;
                    }
                }
            }
        });
        shutdown
    }

    /// Fires the signal.
    pub fn trigger(&self) {
        self.token.cancel();
    }

    /// Whether it has fired.
    pub fn is_triggered(&self) -> bool {
        self.token.is_cancelled()
    }

    /// The underlying token (rmcp's services stop on it).
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// Waits until it fires.
    pub async fn wait(&self) {
        self.token.cancelled().await;
    }

    /// Runs `serving` to its end, or until a second signal asks to exit now
    /// (`None`: the caller returns [`SECOND_SIGNAL_EXIT_CODE`] at once).
    pub async fn unless_exit_now<F: Future>(&self, serving: F) -> Option<F::Output> {
        tokio::select! {
            biased;
            () = self.exit_now.cancelled() => None,
            out = serving => Some(out),
        }
    }

    /// The SIGHUPs from now on: the value changes at each one. While a
    /// receiver lives, a SIGHUP is passed on to it rather than logged as
    /// nothing to reload.
    pub fn hangups(&self) -> watch::Receiver<u64> {
        self.hangups.subscribe()
    }

    /// A SIGHUP arrived: passed on, or logged when nothing listens.
    fn hang_up(&self) {
        if self.hangups.receiver_count() == 0 {
            tracing::info!(
                signal = "SIGHUP",
                "SIGHUP: nothing to reload (no remote MCP servers, {}, are being \
                 served; the settings file is read at startup only)",
                SettingKey::McpServers
            );
        } else {
            self.hangups.send_modify(|n| *n = n.wrapping_add(1));
        }
    }
}

/// What a signal asks for.
enum Signal {
    /// SIGTERM or SIGINT, named.
    Stop(&'static str),
    /// SIGHUP.
    Hangup,
}

/// The installed signal handlers.
struct Signals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let unix = match (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            ) {
                (Ok(term), Ok(int)) => Some((term, int)),
                _ => None,
            };
            let hangup = signal(SignalKind::hangup()).ok();
            Self { unix, hangup }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Waits for the next signal.
    async fn next(&mut self) -> Signal {
        #[cfg(unix)]
        if let Self {
            unix: Some((term, int)),
            hangup,
        } = self
        {
            let hangup = async {
                let received = match hangup {
                    Some(h) => h.recv().await.is_some(),
                    None => false,
                };
                if !received {
                    std::future::pending::<()>().await;
                }
            };
            return tokio::select! {
                _ = term.recv() => Signal::Stop("SIGTERM"),
                _ = int.recv() => Signal::Stop("SIGINT"),
                () = hangup => Signal::Hangup,
            };
        }
        let _ = tokio::signal::ctrl_c().await;
        Signal::Stop("SIGINT")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn trigger_wakes_every_clone() {
        let s = Shutdown::new();
        let c = s.clone();
        let waiter = tokio::spawn(async move { c.wait().await });
        assert!(!s.is_triggered());
        s.trigger();
        waiter.await.unwrap();
        assert!(s.is_triggered());
    }

    #[tokio::test]
    async fn a_hangup_reaches_a_listener_and_exit_now_ends_serving() {
        let s = Shutdown::new();
        s.hang_up(); // nobody listens: logged, not kept
        let hangups = s.hangups();
        assert!(!hangups.has_changed().unwrap());
        s.clone().hang_up();
        assert!(hangups.has_changed().unwrap(), "passed on to the listener");

        assert_eq!(s.unless_exit_now(async { 7 }).await, Some(7));
        s.exit_now.cancel();
        let forever = std::future::pending::<()>();
        assert_eq!(s.unless_exit_now(forever).await, None);
    }
}
