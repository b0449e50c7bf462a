//! The sandbox's integration tests, linked into one test binary (one binary
//! per file would link the dependency graph once per file). Run one file's
//! tests with a filter, e.g. `cargo test -p lorebase-sandbox --test integration faults::`.

mod common;

mod contract;
mod execute;
mod faults;
mod provenance;
mod reads;
mod search;
