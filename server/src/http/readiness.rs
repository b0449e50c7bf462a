//! Readiness (`GET /readyz`): whether this Herald can serve a new call now.
//!
//! 503 until it has started (remote tools discovered), and again from the
//! moment a SIGTERM/SIGINT starts the drain, so a balancer or Kubernetes
//! stops sending new calls before the process exits. Liveness stays
//! `/healthz`.
//!
//! The answer also says when Keeper last answered a call and when one last
//! failed, but a Keeper outage does not make Herald unready: every replica
//! shares the Keeper, so an outage would take the whole fleet out of the
//! balancer, and callers would get the balancer's bare 502/503 instead of
//! Herald's `[keeper-unavailable]` with its `next:` advice (and Herald's own
//! retries once Keeper is back).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use herald_core::keeper::KeeperClient;
use serde_json::{Value, json};

use crate::http::guard::GuardPolicy;
use crate::shutdown::Shutdown;

/// The readiness of one Herald: started, draining, and Keeper's last answers.
#[derive(Debug, Clone)]
pub struct Readiness {
    started: Arc<AtomicBool>,
    shutdown: Shutdown,
    keeper: KeeperClient,
}

impl Readiness {
    /// Not started yet; draining once `shutdown` fires.
    pub fn new(shutdown: Shutdown, keeper: KeeperClient) -> Self {
        Self {
            started: Arc::new(AtomicBool::new(false)),
            shutdown,
            keeper,
        }
    }

    /// Marks it started: ready unless draining.
    pub fn mark_started(&self) {
        self.started.store(true, Ordering::Release);
    }

    /// Whether a new call is welcome.
    pub fn is_ready(&self) -> bool {
        self.started.load(Ordering::Acquire) && !self.shutdown.is_triggered()
    }

    /// The JSON body of `/readyz`.
    pub fn report(&self) -> Value {
        let health = self.keeper.health();
        let secs = |d: Option<std::time::Duration>| {
            d.map(|d| (d.as_millis() as f64 / 100.0).round() / 10.0)
        };
        json!({
            "ready": self.is_ready(),
            "started": self.started.load(Ordering::Acquire),
            "draining": self.shutdown.is_triggered(),
            "keeper": {
                "last_ok_s_ago": secs(health.last_answer_ago),
                "last_error_s_ago": secs(health.last_failure_ago),
            },
        })
    }
}

/// The Host rules of every route (`http.allowed_hosts`: 403 for a foreign
/// Host), on `/readyz` too, whose answer says when Keeper last failed. A
/// Kubernetes probe sends `Host: localhost` (deploy/kubernetes); `/healthz`
/// (liveness, nothing but the version) answers any Host.
pub(crate) async fn host_rules(
    State(policy): State<Arc<GuardPolicy>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match policy.check_headers(request.uri(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

/// `GET /readyz`: 200 when ready, else 503; the body is [`Readiness::report`].
pub async fn readyz(State(readiness): State<Readiness>) -> Response {
    let status = if readiness.is_ready() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(readiness.report())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use herald_core::config::KeeperSettings;
    use herald_core::config::Settings;

    fn keeper() -> KeeperClient {
        let settings: KeeperSettings = Settings::default().keeper;
        KeeperClient::new(&settings).unwrap()
    }

    #[tokio::test]
    async fn unready_until_started_and_again_once_draining() {
        let shutdown = Shutdown::new();
        let r = Readiness::new(shutdown.clone(), keeper());
        assert!(!r.is_ready());
        assert_eq!(r.report()["started"], false);
        r.mark_started();
        assert!(r.is_ready());
        assert_eq!(r.report()["keeper"]["last_ok_s_ago"], Value::Null);
        shutdown.trigger();
        assert!(!r.is_ready());
        assert_eq!(r.report()["draining"], true);
    }
}
