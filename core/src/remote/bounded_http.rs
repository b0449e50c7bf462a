//! The HTTP client of rmcp's Streamable HTTP transport, with a bound on what
//! one remote tool answer may cost before Herald sees it
//! (`mcp.max_answer_bytes`).
//!
//! rmcp reads a JSON answer whole, then parses it; an SSE event likewise.
//! Its own limits (16 MiB by default) are transport-wide: lowering them
//! would also refuse a long `tools/list` page, which discovery cuts by tools
//! and bytes instead. So the bound is applied per message: a `tools/call`
//! is read with the answer bound, everything else with rmcp's limits. A
//! body declared (`Content-Length`) past the bound is not read at all; one
//! sent without a length, or an SSE event, is read up to the bound and then
//! dropped with its connection. The call then gets a JSON-RPC error made
//! here ([`AnswerBound::refusal`]), carrying a random mark no remote server
//! knows, so [`AnswerBound::is_refusal`] tells it from anything a server
//! sends: the session stays usable and the model is told why.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::{Value, json};
use sse_stream::Sse as SseEvent;

/// The JSON-RPC code of the error made for an answer past the bound (in the
/// range JSON-RPC leaves to implementations; the mark, not the code, is what
/// tells it apart).
const TOO_LARGE_CODE: ErrorCode = ErrorCode(-32_001);

/// The key of the mark in the error's `data`.
const MARK_KEY: &str = "herald_answer_bound";

/// The start of rmcp's error for an SSE event past its limit (its type is
/// private: the text is all there is; the e2e test of an SSE answer past
/// the bound, `tests/e2e-python/test_remote_bounds.py`, pins it).
const SSE_TOO_LARGE: &str = "SSE event exceeded the maximum size";

/// How many bytes one answer may take, and the mark of the errors made when
/// one takes more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnswerBound {
    /// `mcp.max_answer_bytes`.
    pub max_bytes: usize,
    /// Random, never sent anywhere: a remote server cannot forge it.
    mark: u64,
}

impl AnswerBound {
    /// A bound of `max_bytes`, with a fresh mark.
    ///
    /// The mark comes from std's randomly keyed hasher, not `fastrand`: this
    /// runs on the embedding program's thread (the C ABI's `lorebase_herald_new`),
    /// where seeding `fastrand` would give that foreign thread a `Thread`
    /// handle that is never freed.
    pub(crate) fn new(max_bytes: usize) -> Self {
        use std::hash::BuildHasher;
        Self {
            max_bytes,
            mark: std::collections::hash_map::RandomState::new().hash_one(max_bytes),
        }
    }

    /// The error answering the request `id` whose answer was past the bound.
    fn refusal(&self, id: RequestId) -> ServerJsonRpcMessage {
        let error = ErrorData::new(
            TOO_LARGE_CODE,
            format!("the answer is larger than {} bytes", self.max_bytes),
            Some(json!({ MARK_KEY: self.mark })),
        );
        ServerJsonRpcMessage::error(error, Some(id))
    }

    /// Whether `error` is one [`AnswerBound::refusal`] made (not a server's).
    pub(crate) fn is_refusal(&self, error: &ErrorData) -> bool {
        error.code == TOO_LARGE_CODE
            && error
                .data
                .as_ref()
                .and_then(|d| d.get(MARK_KEY))
                .and_then(Value::as_u64)
                == Some(self.mark)
    }

    /// The limits a message is read with: the bound for a `tools/call`,
    /// rmcp's for the rest.
    fn limits_for(
        &self,
        message: &ClientJsonRpcMessage,
        mut limits: StreamableHttpResponseLimits,
    ) -> (StreamableHttpResponseLimits, Option<RequestId>) {
        let JsonRpcMessage::Request(request) = message else {
            return (limits, None);
        };
        if !matches!(request.request, ClientRequest::CallToolRequest(_)) {
            return (limits, None);
        }
        limits.max_json_response_size = limits.max_json_response_size.min(self.max_bytes);
        limits.max_sse_event_size = limits.max_sse_event_size.min(self.max_bytes);
        (limits, Some(request.id.clone()))
    }
}

/// reqwest, as rmcp drives it, with the answers of `tools/call` bounded.
#[derive(Debug, Clone)]
pub(crate) struct BoundedHttpClient {
    http: reqwest::Client,
    bound: AnswerBound,
}

impl BoundedHttpClient {
    /// `http` with `bound` applied to tool answers.
    pub(crate) fn new(http: reqwest::Client, bound: AnswerBound) -> Self {
        Self { http, bound }
    }
}

type Headers = HashMap<HeaderName, HeaderValue>;

/// rmcp sends every message through `post_message_with_response_limits`;
/// `post_message` (and the trait's `post_message_with_max_sse_event_size`,
/// through it) leads there too, so no tool call escapes the bound. Streams
/// opened with GET carry no answers: rmcp's limits.
impl StreamableHttpClient for BoundedHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let (limits, call) = self.bound.limits_for(&message, limits);
        let sent_on = session_id.as_deref().map(str::to_owned);
        let answer = self
            .http
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        let Some(id) = call else {
            return answer;
        };
        match answer {
            Err(StreamableHttpError::ResponseBodyTooLarge { .. }) => Ok(
                StreamableHttpPostResponse::Json(self.bound.refusal(id), sent_on),
            ),
            Ok(StreamableHttpPostResponse::Sse(events, session)) => {
                let refusal = serde_json::to_string(&self.bound.refusal(id))
                    .map_err(StreamableHttpError::Deserialize)?;
                let events = refused_past_bound(events, move |mut event| {
                    event.data = Some(refusal);
                    event
                });
                Ok(StreamableHttpPostResponse::Sse(events, session))
            }
            other => other,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.http
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<BoxStream<'static, Result<SseEvent, SseError>>, StreamableHttpError<Self::Error>>
    {
        self.http
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<SseEvent, SseError>>, StreamableHttpError<Self::Error>>
    {
        self.http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// The events of one call's SSE answer, where an event past the bound ends
/// the stream with `refusal` (made from an empty event) instead of rmcp's
/// error, which would reach the call only as "stream closed". The rest of
/// the body is never read.
fn refused_past_bound<T: Default + Send + 'static>(
    events: BoxStream<'static, Result<T, SseError>>,
    refusal: impl FnOnce(T) -> T + Send + 'static,
) -> BoxStream<'static, Result<T, SseError>> {
    futures::stream::unfold(Some((events, Some(refusal))), |state| async move {
        let (mut events, mut refusal) = state?;
        match events.next().await? {
            Err(e) if is_too_large(&e) => {
                let event = refusal.take().map(|make| make(T::default()));
                event.map(|event| (Ok(event), None))
            }
            item => Some((item, Some((events, refusal)))),
        }
    })
    .boxed()
}

fn is_too_large(error: &SseError) -> bool {
    matches!(error, SseError::Body(e) if e.to_string().starts_with(SSE_TOO_LARGE))
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use serde_json::json;

    use super::*;

    fn message(method: &str) -> ClientJsonRpcMessage {
        serde_json::from_value(json!({
            "jsonrpc": "2.0", "id": 7, "method": method, "params": {"name": "t"}
        }))
        .unwrap()
    }

    fn error_of(message: ServerJsonRpcMessage) -> ErrorData {
        match message {
            JsonRpcMessage::Error(e) => e.error,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn only_a_tool_call_is_read_within_the_answer_bound() {
        let bound = AnswerBound::new(4096);
        let rmcp = StreamableHttpResponseLimits::default();
        let (limits, id) = bound.limits_for(&message("tools/call"), rmcp);
        assert_eq!(id, Some(RequestId::Number(7)));
        assert_eq!(
            (limits.max_json_response_size, limits.max_sse_event_size),
            (4096, 4096)
        );
        for method in ["tools/list", "initialize"] {
            let (limits, id) = bound.limits_for(&message(method), rmcp);
            assert_eq!(id, None, "{method}");
            assert_eq!(
                limits.max_json_response_size, rmcp.max_json_response_size,
                "{method}"
            );
        }
    }

    #[test]
    fn a_refusal_is_told_from_anything_a_server_sends() {
        let bound = AnswerBound::new(4096);
        let refusal = error_of(bound.refusal(RequestId::Number(1)));
        assert!(bound.is_refusal(&refusal));
        assert!(
            refusal.message.contains("4096 bytes"),
            "{}",
            refusal.message
        );
        // The same code and text from a server, with no mark or a guessed one.
        let forged = ErrorData::new(TOO_LARGE_CODE, refusal.message.clone(), None);
        assert!(!bound.is_refusal(&forged));
        let guessed = ErrorData::new(TOO_LARGE_CODE, "x", Some(json!({ MARK_KEY: 0 })));
        assert!(!bound.is_refusal(&guessed));
        // Another Herald's mark (a fresh bound) is not this one's.
        assert!(!AnswerBound::new(4096).is_refusal(&refusal));
    }

    #[tokio::test]
    async fn an_sse_event_past_the_bound_ends_the_answer_with_the_refusal() {
        let too_large = || {
            SseError::Body(Box::new(std::io::Error::other(format!(
                "{SSE_TOO_LARGE} of 8 bytes"
            ))))
        };
        let events = futures::stream::iter(vec![
            Ok(SseEvent::default().data("first")),
            Err(too_large()),
            Ok(SseEvent::default().data("never read")),
        ])
        .boxed();
        let shown: Vec<_> = refused_past_bound(events, |event| event.data("refused"))
            .collect()
            .await;
        let data: Vec<_> = shown
            .iter()
            .map(|e| e.as_ref().ok().and_then(|e| e.data.clone()))
            .collect();
        assert_eq!(data, [Some("first".into()), Some("refused".into())]);
        // Any other error is passed on as it is.
        let broken = futures::stream::iter(vec![Err::<SseEvent, _>(SseError::InvalidLine)]).boxed();
        let shown: Vec<_> = refused_past_bound(broken, |event| event.data("refused"))
            .collect()
            .await;
        assert!(matches!(shown[..], [Err(SseError::InvalidLine)]));
    }
}
