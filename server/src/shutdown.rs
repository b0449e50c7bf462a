//! The shutdown signal: SIGTERM or SIGINT (Ctrl-C), or a programmatic
//! trigger (tests, bindings). A second signal while shutting down exits at
//! once.

use tokio_util::sync::CancellationToken;

/// A cloneable shutdown signal.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    token: CancellationToken,
}

impl Shutdown {
    /// A signal that only fires when triggered.
    pub fn new() -> Self {
        Self::default()
    }

    /// A signal that also fires on SIGTERM and SIGINT. Must be called inside
    /// a Tokio runtime; the handlers are installed before it returns.
    pub fn on_signals() -> Self {
        let shutdown = Self::new();
        let trigger = shutdown.clone();
        let mut signals = Signals::install();
        tokio::spawn(async move {
            let name = signals.next().await;
            tracing::info!(signal = name, "shutdown requested");
            trigger.trigger();
            let name = signals.next().await;
            tracing::warn!(signal = name, "second signal: exiting now");
            std::process::exit(130);
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
}

/// The installed signal handlers.
struct Signals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
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
            Self { unix }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Waits for the next SIGTERM or SIGINT and names it.
    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        if let Some((term, int)) = &mut self.unix {
            return tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
        }
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
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
}
