#!/usr/bin/env bash
# Smoke test of the benchmark's peer (benches/peers/python_sdk_herald): it starts
# over stdio, answers tools/list, and answers nine calls with the same text and structured
# content as lorebase-herald, against the sandbox Keeper. Not the benchmark itself
# (benches/run.sh); no timing. Installs the peer's requirements (mcp, httpx2) from PyPI
# into target/bench/peer-venv (scripts/setup.sh bench-peer).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench/peer-venv
./scripts/setup.sh bench-peer
if [ -z "${HERALD_NO_BUILD:-}" ]; then
  cargo build --locked -p lorebase-herald -p lorebase-sandbox --bins
fi
"$VENV/bin/python" benches/peers/python_sdk_herald/smoke.py --peer-python "$VENV/bin/python" \
  --herald "${HERALD_BIN:-target/debug/lorebase-herald}" --sandbox "${SANDBOX_BIN:-target/debug/lorebase-sandbox}"
