//! A request whose handling panics (a bug, or a value from outside that a
//! check missed) still gets an answer: 500 with a JSON-RPC error body, and
//! its connection goes on (and is counted until it closes, like any other).
//! Without this layer the panic unwound through the connection's task: the
//! client got no answer and the connection stayed counted.
//!
//! Debug builds (never a release) have a test hook: with the environment
//! variable `HERALD_TEST_PANIC_HOOK=1` at start, a request carrying the
//! header `x-herald-test-panic` panics on purpose (tests/e2e-python).

use std::panic::AssertUnwindSafe;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use futures::FutureExt;

use crate::http::guard::refusal;

/// The middleware: runs the request, and answers 500 if it panics.
pub(crate) async fn answer_panics(request: Request, next: Next) -> Response {
    // The URI's parts are shared, not copied: a request pays no allocation
    // for a path only a panic's log line shows.
    let uri = request.uri().clone();
    match AssertUnwindSafe(next.run(request)).catch_unwind().await {
        Ok(response) => response,
        Err(_) => {
            tracing::error!(path = %uri.path().chars().take(100).collect::<String>(), "a request panicked; answered 500");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                -32603,
                "Internal Server Error: Herald failed on this request (a bug: the log says where); retry, and report it if it persists",
            )
        }
    }
}

/// The test hook (debug builds only): whether it is switched on.
#[cfg(debug_assertions)]
pub(crate) fn test_hook_enabled() -> bool {
    std::env::var_os("HERALD_TEST_PANIC_HOOK").is_some_and(|v| v == "1")
}

/// The test hook: a request with `x-herald-test-panic` panics.
#[cfg(debug_assertions)]
pub(crate) async fn panic_on_purpose(request: Request, next: Next) -> Response {
    if request.headers().contains_key("x-herald-test-panic") {
        panic!("a request made to panic on purpose (HERALD_TEST_PANIC_HOOK)");
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::Body;
    use axum::middleware::from_fn;
    use axum::routing::get;
    use tower::ServiceExt;

    use super::*;

    async fn boom() -> &'static str {
        panic!("boom")
    }

    #[tokio::test]
    async fn a_panicking_request_is_answered_500() {
        let app = Router::new()
            .route("/boom", get(boom))
            .route("/fine", get(|| async { "ok" }))
            .layer(from_fn(answer_panics));
        let boom = Request::get("/boom").body(Body::empty()).unwrap();
        let answer = app.clone().oneshot(boom).await.unwrap();
        assert_eq!(answer.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let fine = Request::get("/fine").body(Body::empty()).unwrap();
        assert_eq!(app.oneshot(fine).await.unwrap().status(), StatusCode::OK);
    }
}
