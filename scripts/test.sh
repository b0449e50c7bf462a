#!/usr/bin/env bash
# Runs every test of Lorebase Herald on a fresh machine: it installs what it needs first
# (scripts/setup.sh), then checks formatting and lints, then runs the Rust tests, the
# end-to-end tests (Python `mcp` SDK, TypeScript SDK) and the bindings' tests.
# `.ci/run` calls exactly this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# Disk: a clean run needs a few GB under target/ (see docs/benchmarks.md, "CI footprint");
# each stage prints what target/ holds after it, so a full disk names its stage.
# Incremental compilation only pays on rebuilds; on a clean checkout it writes
# gigabytes that are never read.
export CARGO_INCREMENTAL=0

disk() { printf '    disk: target/ %s, free %s\n' "$(du -sh target 2>/dev/null | cut -f1)" "$(df -h --output=avail . | tail -n 1 | tr -d ' ')" >&2; }
stage() { [ -d target ] && disk; printf '\n=== %s\n' "$*" >&2; }
trap 'disk' EXIT

stage "setup"
./scripts/setup.sh

stage "format and lints"
python3 scripts/module-cycles.py
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings

stage "build"
# The binaries and every test target in one build (one feature resolution);
# the stages below reuse them (HERALD_NO_BUILD). The C, Node and Python stages
# still build their own library.
cargo test --workspace --locked --no-run
export HERALD_BIN="$PWD/target/debug/lorebase-herald"
export SANDBOX_BIN="$PWD/target/debug/lorebase-sandbox"
export HERALD_NO_BUILD=1

stage "rust tests"
cargo test --workspace --locked

stage "end-to-end: python mcp SDK"
.venv/bin/python -m pytest -q tests/python

stage "end-to-end: typescript SDK"
npm test --prefix tests/node

stage "conformance: @modelcontextprotocol/conformance"
tests/conformance/run.sh

stage "C ABI: header, C program under valgrind"
./scripts/test-c.sh

stage "node: addon and npm package"
./scripts/test-node.sh

stage "python: the wheel, uvx, and the framework adapters"
./scripts/test-python.sh

stage "replicas behind nginx under failure; slow-client attack (about 40 s)"
./scripts/test-replicas.sh

stage "benchmark peer: smoke (no timing)"
./scripts/test-bench-peer.sh

stage "deploy: the image (stdio, HTTP), compose profile mcp, Kubernetes manifests, server.json"
./scripts/test-deploy.sh

stage "fuzz smoke: every cargo-fuzz target, its seeds then 6 s of new inputs (scripts/test-fuzz.sh)"
./scripts/test-fuzz.sh
