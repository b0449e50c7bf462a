//! The calls inside a handle, so that `lorebase_herald_free` can end them
//! first: freeing a handle while other threads are inside
//! `lorebase_herald_call` would drop the runtime under them (a panic, "A
//! Tokio 1.x context was found, but it is being shutdown") and let them read
//! the freed handle afterwards.
//!
//! Each call holds a [`Ticket`] while it runs and waits for the handle's
//! closing signal beside its answer. [`InFlight::close`] (from
//! `lorebase_herald_free`) refuses new calls, signals the running ones (each
//! returns [`CApiError::Cancelled`] at once) and waits until every ticket is
//! dropped; only then is the handle freed. A ticket keeps the shared state
//! alive itself, so a call leaving never touches freed memory.

use std::future::Future;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use tokio::sync::watch;

use crate::error::CApiError;

/// The calls running in one handle.
#[derive(Debug, Clone)]
pub(crate) struct InFlight {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when the last running call leaves.
    left: Condvar,
    /// `true` once the handle is being freed.
    closing: watch::Sender<bool>,
}

#[derive(Debug)]
struct State {
    open: bool,
    running: usize,
}

/// One call inside the handle; leaving (drop) lets a waiting free go on.
#[derive(Debug)]
pub(crate) struct Ticket {
    shared: Arc<Shared>,
    closing: watch::Receiver<bool>,
}

impl Default for InFlight {
    fn default() -> Self {
        Self {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    open: true,
                    running: 0,
                }),
                left: Condvar::new(),
                closing: watch::Sender::new(false),
            }),
        }
    }
}

impl InFlight {
    /// A ticket for one call, or [`CApiError::Cancelled`] once the handle is
    /// being freed.
    pub(crate) fn enter(&self) -> Result<Ticket, CApiError> {
        let mut state = self.lock();
        if !state.open {
            return Err(CApiError::Cancelled);
        }
        state.running += 1;
        Ok(Ticket {
            shared: Arc::clone(&self.shared),
            closing: self.shared.closing.subscribe(),
        })
    }

    /// Refuses new calls, cancels the running ones and waits until they have
    /// all left.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.open = false;
        self.shared.closing.send_replace(true);
        while state.running > 0 {
            state = self
                .shared
                .left
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Ticket {
    /// `work`, unless the handle is freed first ([`CApiError::Cancelled`]).
    pub(crate) async fn or_cancelled<T>(
        &mut self,
        work: impl Future<Output = T>,
    ) -> Result<T, CApiError> {
        tokio::select! {
            biased;
            closing = self.closing.wait_for(|closing| *closing) => {
                let _ = closing;
                Err(CApiError::Cancelled)
            }
            done = work => Ok(done),
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.running -= 1;
        if state.running == 0 {
            self.shared.left.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_cancels_the_running_calls_waits_for_them_and_refuses_new_ones() {
        let calls = InFlight::default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut ticket = calls.enter().unwrap();
        let waiting = std::thread::spawn(move || {
            let outcome = runtime.block_on(ticket.or_cancelled(std::future::pending::<()>()));
            drop(ticket);
            outcome
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        calls.close();
        assert_eq!(waiting.join().unwrap(), Err(CApiError::Cancelled));
        assert_eq!(calls.enter().map(|_| ()), Err(CApiError::Cancelled));
    }
}
