//! In-process cost of one tool call (criterion): `Toolbox::call` of
//! `lorebase_get` against the sandbox Keeper on a real loopback port, beside
//! the floor (the same Keeper request made with a bare reqwest client, body
//! read) and a call rejected before any Keeper request. The difference
//! between the first two is Herald's own work per call without MCP and stdio
//! (the argument checks, the Keeper client, the decode, the rendering);
//! `benches/run.sh` measures the same call through the MCP layer.
//!
//! ```sh
//! cargo bench -p lorebase-herald-core --bench tool_call
//! ```
//!
//! The sandbox runs on its own runtime and thread; the calls are made one at
//! a time from a current-thread runtime, as a stdio session makes them.
//!
//! Every call is counted and traced (metrics, a `traceparent` and
//! an `X-Request-Id` on its Keeper request, its audit line). Without a log
//! subscriber (`lorebase_get`, `rejected_arguments`) the audit line is never
//! formatted; the `*_audited` runs install the server's JSON log format at
//! `info`, writing to a sink (the formatting, not the write to stderr);
//! the `*_traced` runs export spans as well. docs/benchmarks.md
//! ("Operations: what the telemetry costs") compares them with a bench
//! binary built without the telemetry.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use herald_core::config::Settings;
use herald_core::keeper::Credential;
use herald_core::tools::Toolbox;
use lorebase_sandbox::{Sandbox, SandboxOptions};
use serde_json::{Map, Value, json};

/// Starts the sandbox on a thread of its own; returns its URL.
fn sandbox_on_its_own_thread() -> String {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("sandbox runtime");
        runtime.block_on(async move {
            let sandbox = Sandbox::start(SandboxOptions::default())
                .await
                .expect("sandbox starts");
            sender.send(sandbox.url()).expect("bench is waiting");
            std::future::pending::<()>().await;
        });
    });
    receiver.recv().expect("sandbox URL")
}

fn arguments(v: Value) -> Map<String, Value> {
    v.as_object().expect("an object").clone()
}

fn tool_call(c: &mut Criterion) {
    let url = sandbox_on_its_own_thread();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("bench runtime");
    let mut settings = Settings::default();
    settings.keeper.base_url = url.clone();
    settings.domain = Some("supply".into());
    let toolbox = runtime.block_on(async { Toolbox::new(settings.clone()).expect("toolbox") });
    let get = arguments(json!({"ref": "Supplier/S-1001"}));
    let rejected = arguments(json!({"ref": "Supplier/S-1001", "nope": 1}));
    let record_url = format!("{url}/api/v1/domains/supply/kinds/Supplier/records/S-1001");
    let floor_client = reqwest::Client::new();

    // Warm both connections and check the answers once.
    runtime.block_on(async {
        let out = toolbox
            .call("lorebase_get", get.clone(), &Credential::Configured)
            .await
            .expect("served");
        assert!(!out.is_error, "{}", out.text);
        let answer = floor_client.get(&record_url).send().await.expect("floor");
        assert!(answer.status().is_success());
        answer.bytes().await.expect("floor body");
    });

    let mut group = c.benchmark_group("tool_call");
    bench_call(&mut group, "lorebase_get", &runtime, &toolbox, &get, None);
    group.bench_function("floor_reqwest_get", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let answer = floor_client.get(&record_url).send().await.expect("floor");
                black_box(answer.bytes().await.expect("floor body"))
            })
        });
    });
    bench_call(
        &mut group,
        "rejected_arguments",
        &runtime,
        &toolbox,
        &rejected,
        None,
    );
    // The same calls with the audit line written (JSON, info level, to a
    // sink); then with spans exported as well (`traces.otlp_endpoint`): each
    // call builds its span and its Keeper request's and queues them, and the
    // exporter's thread posts them every half second to a port nobody
    // listens on (refused at once, so the batches are dropped).
    let mut traced = settings.clone();
    traced.traces.otlp_endpoint = Some(format!("http://127.0.0.1:{}", closed_port()));
    let traced = runtime.block_on(async { Toolbox::new(traced).expect("toolbox") });
    let audited = Some(json_logs as fn() -> Logs);
    for (name, toolbox, arguments) in [
        ("lorebase_get_audited", &toolbox, &get),
        ("rejected_arguments_audited", &toolbox, &rejected),
        ("lorebase_get_audited_traced", &traced, &get),
        ("rejected_arguments_audited_traced", &traced, &rejected),
    ] {
        bench_call(&mut group, name, &runtime, toolbox, arguments, audited);
    }
    group.finish();
}

/// The server's JSON log format at `info`, written to a sink.
type Logs = tracing_subscriber::FmtSubscriber<
    tracing_subscriber::fmt::format::JsonFields,
    tracing_subscriber::fmt::format::Format<tracing_subscriber::fmt::format::Json>,
    tracing::level_filters::LevelFilter,
    fn() -> std::io::Sink,
>;

fn json_logs() -> Logs {
    tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::sink as fn() -> std::io::Sink)
        .finish()
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Benches `Toolbox::call` of `lorebase_get` with `arguments`, with the logs
/// of `logs` installed (none: no subscriber, nothing formatted).
fn bench_call(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    runtime: &tokio::runtime::Runtime,
    toolbox: &Toolbox,
    arguments: &Map<String, Value>,
    logs: Option<fn() -> Logs>,
) {
    group.bench_function(name, |b| {
        let _logs = logs.map(|logs| tracing::subscriber::set_default(logs()));
        b.iter(|| {
            runtime.block_on(async {
                let out = toolbox
                    .call("lorebase_get", arguments.clone(), &Credential::Configured)
                    .await
                    .expect("served");
                black_box(out)
            })
        });
    });
}

criterion_group!(benches, tool_call);
criterion_main!(benches);
