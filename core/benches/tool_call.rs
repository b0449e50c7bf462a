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

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
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
    let toolbox = runtime.block_on(async { Toolbox::new(settings).expect("toolbox") });
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
    group.bench_function("lorebase_get", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let out = toolbox
                    .call("lorebase_get", get.clone(), &Credential::Configured)
                    .await
                    .expect("served");
                black_box(out)
            })
        })
    });
    group.bench_function("floor_reqwest_get", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let answer = floor_client.get(&record_url).send().await.expect("floor");
                black_box(answer.bytes().await.expect("floor body"))
            })
        })
    });
    group.bench_function("rejected_arguments", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let out = toolbox
                    .call("lorebase_get", rejected.clone(), &Credential::Configured)
                    .await
                    .expect("served");
                black_box(out)
            })
        })
    });
    group.finish();
}

criterion_group!(benches, tool_call);
criterion_main!(benches);
