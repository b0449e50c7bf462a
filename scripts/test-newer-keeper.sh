#!/usr/bin/env bash
# The end-to-end suites against a Keeper one release ahead of the contract: the
# Python `mcp` SDK suite (tests/e2e-python) and the TypeScript SDK suite (tests/e2e-node)
# again, with every sandbox Keeper started as `lorebase-sandbox --newer-keeper`
# (extra fields, enum values and problem codes the contract does not list).
# Every test must pass as against the normal sandbox. The Rust golden suite runs
# against both modes in `cargo test` (core/tests/tools_newer_keeper.rs), and
# tests/e2e-python/test_newer_keeper.py compares both modes' answers in the first pass.
#
# Python: the files whose tests read Keeper's answers (every tool, resources,
# prompts, completions, auth and TLS failures, the `call` command). Left out, as
# they read no Keeper answer or start their own Keeper: remote MCP servers,
# shutdown, the demo (its sandbox is in-process), KB-only and KB, health, and
# test_newer_keeper.py itself.
#
# Needs: scripts/setup.sh (.venv, tests/e2e-node/node_modules) and the workspace
# build (target/debug/lorebase-herald and lorebase-sandbox, or HERALD_BIN and
# SANDBOX_BIN); it builds nothing when HERALD_NO_BUILD=1. About 20 s on 2 cores
# (docs/benchmarks.md, "The newer-Keeper pass").
set -euo pipefail
cd "$(dirname "$0")/.."
export HERALD_TEST_NEWER_KEEPER=1
if [ -z "${HERALD_NO_BUILD:-}" ]; then
  cargo build --locked -p lorebase-herald -p lorebase-sandbox --bins
  export HERALD_NO_BUILD=1
fi
.venv/bin/python -m pytest -q -p no:cacheprovider \
  tests/e2e-python/test_e2e.py tests/e2e-python/test_protocol.py tests/e2e-python/test_host_view.py \
  tests/e2e-python/test_http_security.py tests/e2e-python/test_keeper_tls.py tests/e2e-python/test_cli.py \
  tests/e2e-python/test_stdio_clean.py
npm test --prefix tests/e2e-node
