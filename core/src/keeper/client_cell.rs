//! The pooled HTTP client, built on a background thread so that building it
//! stays off a server's start path.
//!
//! Building a reqwest client on rustls loads and parses the system's root
//! certificates (every file under `/etc/ssl/certs` on Linux): about 6 ms, more
//! than half of Herald's cold start to its first `tools/list` answer, which
//! needs no Keeper call (benches/run.sh). [`ClientCell::spawn`] starts that
//! work on its own thread; the first Keeper call takes the client when it is
//! ready, or waits for it (off the async runtime) in the rare case it is not.
//! The same builder, the same roots and the same verifier: only *when* changes.

use std::sync::{Arc, Mutex, OnceLock};

use super::error::KeeperError;

/// The client once built, or why it could not be.
type Built = Result<reqwest::Client, String>;

/// What builds the client (once).
type Build = Box<dyn FnOnce() -> Built + Send>;

/// A reqwest client being built in the background.
#[derive(Debug)]
pub(super) struct ClientCell {
    shared: Arc<Shared>,
}

struct Shared {
    /// The build, until one thread takes it.
    build: Mutex<Option<Build>>,
    built: OnceLock<Built>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("built", &self.built)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The client, building it on this thread if no other thread has begun;
    /// blocks while another thread builds it.
    fn get_or_build(&self) -> &Built {
        self.built.get_or_init(|| {
            let build = self
                .build
                .lock()
                .map_err(|_| "the client builder was poisoned".to_string())?
                .take()
                .ok_or_else(|| "the client builder is gone".to_string())?;
            build()
        })
    }
}

impl ClientCell {
    /// Starts `build` on a background thread (or, if no thread can be
    /// started, on the first call that needs the client).
    pub(super) fn spawn(build: impl FnOnce() -> Built + Send + 'static) -> Self {
        let shared = Arc::new(Shared {
            build: Mutex::new(Some(Box::new(build))),
            built: OnceLock::new(),
        });
        let background = Arc::clone(&shared);
        // Detached on purpose: it ends when the client is built.
        let _ = std::thread::Builder::new()
            .name("herald-http-client".into())
            .spawn(move || {
                background.get_or_build();
            });
        Self { shared }
    }

    /// The client, once built (no wait).
    pub(super) fn ready(&self) -> Option<&reqwest::Client> {
        self.shared.built.get().and_then(|b| b.as_ref().ok())
    }

    /// The client: at once when built, else after waiting for the build on a
    /// blocking thread (the async runtime is never blocked).
    pub(super) async fn get(&self) -> Result<&reqwest::Client, KeeperError> {
        if self.shared.built.get().is_none() {
            let shared = Arc::clone(&self.shared);
            tokio::task::spawn_blocking(move || {
                shared.get_or_build();
            })
            .await
            .map_err(|e| KeeperError::Setup(format!("cannot build the HTTP client: {e}")))?;
        }
        match self.shared.get_or_build() {
            Ok(client) => Ok(client),
            Err(e) => Err(KeeperError::Setup(format!(
                "cannot build the HTTP client: {e}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_client_is_built_once_and_shared() {
        let cell = ClientCell::spawn(|| {
            reqwest::Client::builder()
                .no_proxy()
                .build()
                .map_err(|e| e.to_string())
        });
        let first = cell.get().await.unwrap() as *const reqwest::Client;
        let second = cell.get().await.unwrap() as *const reqwest::Client;
        assert_eq!(first, second);
        assert!(cell.ready().is_some());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_current_thread_runtime_can_wait_for_it() {
        let cell = ClientCell::spawn(|| {
            reqwest::Client::builder()
                .build()
                .map_err(|e| e.to_string())
        });
        assert!(cell.get().await.is_ok());
    }
}
