//! In-process `kb_search` latency on a synthetic catalog (criterion), plus a
//! percentile pass (p50/p99 of single searches) that `benches/kb/run.py`
//! reads from the `KB_PERCENTILES {...}` line.
//!
//! ```sh
//! cargo bench -p lorebase-herald-core --bench kb_search             # 10k entries
//! KB_BENCH_ENTRIES=100000 cargo bench -p lorebase-herald-core --bench kb_search
//! KB_BENCH_CATALOG=/path/to/catalog cargo bench -p lorebase-herald-core --bench kb_search
//! cargo bench -p lorebase-herald-core --bench kb_search -- percentiles-only
//! ```
//!
//! Without `KB_BENCH_CATALOG`, the catalog is generated into a temporary
//! folder by `benches/kb/gen_catalog.py` (python3, stdlib only, seed 7).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use herald_core::kb::{KbCatalog, KbOptions};

/// The queries measured: a word, identifiers of each shape, several words,
/// and one that finds nothing.
const QUERIES: [(&str, &str); 6] = [
    ("word", "rollback"),
    ("kebab", "harbor-core"),
    ("camel", "EC2NodeClass"),
    ("version", "v1.8.2"),
    ("words", "karpenter node drain OOMKilled after upgrade"),
    ("no_hit", "zzzunmatched"),
];

/// The queries of the stdio benchmark (`benches/kb/run.py`), in turn.
const MIXED: [&str; 10] = [
    "harbor-core OOMKilled",
    "EC2NodeClass drift",
    "v1.8.2",
    "kb_search",
    "rollback",
    "certificate expiry cert-manager",
    "karpenter node drain after upgrade",
    "coredns timeouts",
    "kafka-broker consumer lag",
    "zzzunmatched",
];

struct Fixture {
    catalog: KbCatalog,
    _tmp: Option<tempfile::TempDir>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (dir, tmp) = catalog_dir();
        let catalog = KbCatalog::open_with(
            &dir,
            KbOptions {
                watch: false,
                ..KbOptions::default()
            },
        )
        .expect("the catalog opens");
        Fixture { catalog, _tmp: tmp }
    })
}

fn catalog_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Ok(dir) = std::env::var("KB_BENCH_CATALOG") {
        return (PathBuf::from(dir), None);
    }
    let entries = std::env::var("KB_BENCH_ENTRIES").unwrap_or_else(|_| "10000".into());
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("catalog");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/kb/gen_catalog.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg(&out)
        .args(["--entries", &entries])
        .status()
        .expect("python3 runs the catalog generator");
    assert!(status.success(), "the catalog generator failed");
    (out, Some(tmp))
}

/// p50/p99 of single searches (k = 5, the mixed queries in turn), printed
/// as one `KB_PERCENTILES {json}` line.
fn percentiles(_c: &mut Criterion) {
    let catalog = &fixture().catalog;
    for query in MIXED {
        catalog.search(query, 5).expect("search works");
    }
    let rounds = 500;
    let mut micros = Vec::with_capacity(rounds * MIXED.len());
    for _ in 0..rounds {
        for query in MIXED {
            let start = Instant::now();
            let hits = catalog.search(query, 5).expect("search works");
            micros.push(start.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(hits);
        }
    }
    micros.sort_by(f64::total_cmp);
    let at = |p: f64| {
        micros[((p / 100.0 * micros.len() as f64).ceil() as usize).clamp(1, micros.len()) - 1]
    };
    println!(
        "KB_PERCENTILES {{\"inproc_entries\": {}, \"inproc_searches\": {}, \"inproc_p50_us\": {:.1}, \"inproc_p99_us\": {:.1}}}",
        catalog.len(),
        micros.len(),
        at(50.0),
        at(99.0)
    );
}

fn bench(c: &mut Criterion) {
    let catalog = &fixture().catalog;
    let mut group = c.benchmark_group(format!("kb_search/{}", catalog.len()));
    for (name, query) in QUERIES {
        group.bench_with_input(BenchmarkId::from_parameter(name), query, |b, query| {
            b.iter(|| catalog.search(query, 5).expect("search works"));
        });
    }
    group.bench_function("k20_words", |b| {
        b.iter(|| {
            catalog
                .search("certificate expiry cert-manager", 20)
                .expect("search works")
        });
    });
    group.finish();
    let path = catalog
        .search("harbor-core", 1)
        .expect("search works")
        .first()
        .map(|hit| hit.entry.path.clone())
        .unwrap_or_default();
    c.bench_function("kb_get", |b| b.iter(|| catalog.get(&path)));
}

criterion_group!(benches, percentiles, bench);
criterion_main!(benches);
