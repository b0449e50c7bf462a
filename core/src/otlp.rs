//! The export of spans over OTLP/HTTP with JSON bodies
//! (`traces.otlp_endpoint`), to an OpenTelemetry collector or any backend
//! that takes OTLP.
//!
//! Written here rather than with the OpenTelemetry SDK: the SDK and its OTLP
//! exporter (0.33, even with only `http-json`) bring eleven crates Herald
//! does not otherwise build, the generated protobuf types with prost and
//! its derive macro among them, and tracing-opentelemetry on top (see
//! docs/benchmarks.md), for what is one JSON document per batch over the
//! reqwest client Herald already has. The encoding follows the OTLP
//! specification's JSON mapping: ids in hex, enums as integers, 64-bit
//! times as decimal strings.
//!
//! Spans are queued by calls ([`SpanSink`], never blocking) and sent by a
//! thread of its own every half second, at most 512 to a request. A
//! collector that is slow or down costs calls nothing: batches that fail are
//! logged and dropped, and a full queue drops spans.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::sync::mpsc::Receiver;

use crate::config::{TracesSettings, otlp_traces_url};
use crate::keeper::roots::build_client;
use crate::telemetry::spans::{AttributeValue, SpanKind, SpanMessage, SpanRecord, SpanSink};
use crate::telemetry::trace::Hex;

/// Spans waiting to be sent at most (two spans a call: 16,384 is about
/// 16,000 calls a second at [`EXPORT_INTERVAL`]).
pub(crate) const QUEUE_CAPACITY: usize = 16_384;
/// Most spans in one export request.
pub(crate) const MAX_BATCH: usize = 512;
/// How long spans gather before they are sent (the exporter sleeps
/// meanwhile: queuing a span never wakes it).
pub(crate) const EXPORT_INTERVAL: Duration = Duration::from_millis(500);
/// Longest time one export request may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts the exporter when `traces.otlp_endpoint` is set; `None` when it is
/// not. The exporter ends when the last clone of the sink is dropped.
pub(crate) fn start(settings: &TracesSettings) -> Result<Option<SpanSink>, String> {
    let Some(endpoint) = settings.otlp_endpoint.as_deref() else {
        return Ok(None);
    };
    let url = otlp_traces_url(endpoint).ok_or_else(|| {
        let key = crate::config::SettingKey::TracesOtlpEndpoint;
        format!("herald.{key}: {endpoint:?} is not an http(s) URL")
    })?;
    let (sender, receiver) = tokio::sync::mpsc::channel(QUEUE_CAPACITY);
    let resource = resource(&settings.service_name);
    std::thread::Builder::new()
        .name("herald-otlp".into())
        .spawn(move || export_loop(&url, &resource, receiver))
        .map_err(|e| format!("cannot start the span exporter: {e}"))?;
    Ok(Some(SpanSink::new(sender)))
}

/// Receives spans and sends them in batches until every sink is gone.
fn export_loop(url: &str, resource: &Value, mut receiver: Receiver<SpanMessage>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::warn!("span export disabled: cannot start its runtime: {e}");
            return;
        }
    };
    let make = || {
        reqwest::Client::builder()
            .timeout(EXPORT_TIMEOUT)
            .no_proxy()
            .user_agent(concat!("lorebase-herald/", env!("CARGO_PKG_VERSION")))
    };
    let client = match build_client(make, &[]) {
        Ok(client) => client,
        Err(e) => {
            tracing::warn!("span export disabled: cannot build its HTTP client: {e}");
            return;
        }
    };
    runtime.block_on(async {
        let mut failing = false;
        loop {
            // Wait for the first span, then let spans gather for the interval
            // without waking for each one (a wake per span would cost every
            // call a switch to this thread), and send what came.
            let Some(first) = receiver.recv().await else {
                return;
            };
            if matches!(first, SpanMessage::Span(_)) {
                tokio::time::sleep(EXPORT_INTERVAL).await;
            }
            let mut batch = Vec::new();
            let mut waiting = Vec::new();
            let mut next = Some(first);
            while let Some(message) = next.take() {
                match message {
                    SpanMessage::Span(span) => batch.push(*span),
                    SpanMessage::Flush(done) => waiting.push(done),
                }
                // Bounded: spans queued meanwhile wait for the next round.
                next = (batch.len() < QUEUE_CAPACITY)
                    .then(|| receiver.try_recv().ok())
                    .flatten();
            }
            for spans in batch.chunks(MAX_BATCH) {
                let sent = send(&client, url, &encode(resource, spans)).await;
                match (sent, failing) {
                    (Ok(()), true) => {
                        tracing::info!("span export: the collector takes spans again");
                        failing = false;
                    }
                    (Err(e), false) => {
                        tracing::warn!(
                            spans = spans.len(),
                            "span export failed (spans dropped until it works again): {e}"
                        );
                        failing = true;
                    }
                    _ => {}
                }
            }
            for done in waiting {
                let _ = done.send(());
            }
        }
    });
}

async fn send(client: &reqwest::Client, url: &str, body: &Value) -> Result<(), String> {
    let response = client
        .post(url)
        .json(body)
        .send()
        .await
        .map_err(|e| crate::keeper::roots::error_chain(&e))?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(format!("the collector answered {}", response.status()))
    }
}

/// The resource of every span: the service's name and version.
fn resource(service_name: &str) -> Value {
    json!({"attributes": [
        attribute("service.name", &AttributeValue::Text(service_name.to_string())),
        attribute("service.version", &AttributeValue::Static(env!("CARGO_PKG_VERSION"))),
    ]})
}

/// One `ExportTraceServiceRequest` in OTLP's JSON mapping.
pub(crate) fn encode(resource: &Value, spans: &[SpanRecord]) -> Value {
    let spans: Vec<Value> = spans.iter().map(span).collect();
    json!({"resourceSpans": [{
        "resource": resource,
        "scopeSpans": [{
            "scope": {"name": "lorebase-herald", "version": env!("CARGO_PKG_VERSION")},
            "spans": spans,
        }],
    }]})
}

fn span(s: &SpanRecord) -> Value {
    let mut out = json!({
        "traceId": Hex::<32>::of(&s.trace_id).as_str(),
        "spanId": Hex::<16>::of(&s.span_id).as_str(),
        "name": s.name,
        "kind": match s.kind { SpanKind::Server => 2, SpanKind::Client => 3 },
        "startTimeUnixNano": unix_nanos(s.start),
        "endTimeUnixNano": unix_nanos(s.end),
        "attributes": s.attributes.iter().map(|(k, v)| attribute(k, v)).collect::<Vec<_>>(),
        "status": match &s.error {
            Some(message) => json!({"code": 2, "message": message}),
            None => json!({"code": 0}),
        },
    });
    if let Some(parent) = &s.parent_span_id {
        out["parentSpanId"] = json!(Hex::<16>::of(parent).as_str());
    }
    out
}

fn attribute(key: &str, value: &AttributeValue) -> Value {
    let value = match value {
        AttributeValue::Text(text) => json!({"stringValue": text}),
        AttributeValue::Static(text) => json!({"stringValue": text}),
        AttributeValue::Int(n) => json!({"intValue": n.to_string()}),
    };
    json!({"key": key, "value": value})
}

fn unix_nanos(t: SystemTime) -> String {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_follow_the_otlp_json_mapping() {
        let start = UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789);
        let record = SpanRecord {
            trace_id: [0x0a; 16],
            span_id: [0xb7; 8],
            parent_span_id: Some([0x01; 8]),
            name: "GET /schema".into(),
            kind: SpanKind::Client,
            start,
            end: start + Duration::from_millis(2),
            attributes: vec![("http.response.status_code", AttributeValue::Int(200))],
            error: None,
        };
        let body = encode(&resource("herald-test"), &[record]);
        let rs = &body["resourceSpans"][0];
        assert_eq!(
            rs["resource"]["attributes"][0],
            json!({"key": "service.name", "value": {"stringValue": "herald-test"}})
        );
        let span = &rs["scopeSpans"][0]["spans"][0];
        assert_eq!(span["traceId"], "0a".repeat(16));
        assert_eq!(span["spanId"], "b7".repeat(8));
        assert_eq!(span["parentSpanId"], "01".repeat(8));
        assert_eq!(span["kind"], 3);
        assert_eq!(span["startTimeUnixNano"], "1700000000123456789");
        assert_eq!(span["endTimeUnixNano"], "1700000000125456789");
        assert_eq!(
            span["attributes"][0],
            json!({"key": "http.response.status_code", "value": {"intValue": "200"}})
        );
        assert_eq!(span["status"], json!({"code": 0}));
    }

    #[test]
    fn no_endpoint_no_exporter() {
        assert!(
            start(&crate::config::Settings::default().traces)
                .unwrap()
                .is_none()
        );
    }
}
