//! Where the time of indexing a catalog goes: reading and parsing the files,
//! running the analyzer over their text, and the whole `KbCatalog::open`.
//! Prints one line per phase (no criterion: each phase runs a few times and
//! the best run is shown).
//!
//! ```sh
//! KB_BENCH_CATALOG=target/kb-bench/catalog-10000 cargo bench -p lorebase-herald-core --bench kb_index
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use herald_core::kb::{KbCatalog, KbEntry, KbOptions};
use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, TextAnalyzer, TokenStream};

fn best_of(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for _ in 0..runs {
        let start = Instant::now();
        out = f();
        best = best.min(start.elapsed());
    }
    (best, out)
}

fn count_tokens(analyzer: &mut TextAnalyzer, texts: &[String]) -> usize {
    let mut n = 0;
    for text in texts {
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            n += 1;
        }
    }
    n
}

fn main() {
    let Ok(dir) = std::env::var("KB_BENCH_CATALOG") else {
        eprintln!("set KB_BENCH_CATALOG to a catalog folder (benches/kb/gen_catalog.py makes one)");
        return;
    };
    let dir = PathBuf::from(dir);
    // The phases of each open (list, read and parse, index) as debug lines.
    tracing_subscriber::fmt()
        .with_env_filter("herald_core::kb=debug")
        .with_writer(std::io::stderr)
        .init();
    let options = KbOptions {
        watch: false,
        ..KbOptions::default()
    };
    let (open, entries) = best_of(3, || {
        KbCatalog::open_with(&dir, options).expect("opens").len()
    });
    println!("open (list, read, parse, index): {open:?} for {entries} entries");
    let catalog = KbCatalog::open_with(&dir, options).expect("opens");
    let texts: Vec<String> = catalog
        .paths()
        .iter()
        .filter_map(|p| catalog.get(p))
        .map(|e: std::sync::Arc<KbEntry>| format!("{} {}", e.title, e.body))
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let files: Vec<(String, String)> = catalog
        .paths()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(dir.join(&p)).expect("readable");
            (p, text)
        })
        .collect();
    let (t, n) = best_of(3, || {
        files
            .iter()
            .filter(|(p, text)| KbEntry::parse(p, text).is_ok())
            .count()
    });
    println!("parse (one thread): {t:?} for {n} entries");
    let mut ours = herald_core::kb::analyzer();
    let (t, n) = best_of(3, || count_tokens(&mut ours, &texts));
    println!(
        "kb analyzer: {t:?} for {n} tokens, {:.1} MB/s",
        bytes as f64 / t.as_secs_f64() / 1e6
    );
    let mut simple = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .build();
    let (t, n) = best_of(3, || count_tokens(&mut simple, &texts));
    println!(
        "simple+lowercase: {t:?} for {n} tokens, {:.1} MB/s",
        bytes as f64 / t.as_secs_f64() / 1e6
    );
}
