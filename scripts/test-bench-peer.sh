#!/usr/bin/env bash
# Smoke tests of the benchmarks. The peer (benches/peers/python_sdk_herald): it starts
# over stdio, answers tools/list, and answers nine calls with the same text and structured
# content as lorebase-herald, against the sandbox Keeper. Not the benchmark itself
# (benches/run.sh); no timing. Installs the peer's requirements (mcp, httpx2) from PyPI
# into target/bench/peer-venv (scripts/setup.sh bench-peer).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench/peer-venv
./scripts/setup.sh bench-peer
if [ -z "${HERALD_NO_BUILD:-}" ]; then
  cargo build --locked -p lorebase-herald -p lorebase-sandbox -p herald-floor --bins
fi
"$VENV/bin/python" benches/peers/python_sdk_herald/smoke.py --peer-python "$VENV/bin/python" \
  --herald "${HERALD_BIN:-target/debug/lorebase-herald}" --sandbox "${SANDBOX_BIN:-target/debug/lorebase-sandbox}"
# The floor's command (benches/floor.sh) runs: one short round of each part beside the floor,
# debug builds (the `binaries` stage builds the floor with Herald), no figures kept.
./scripts/setup.sh wrk
"${PYTHON:-python3}" benches/floor.py --bin-dir target/debug \
  --rounds 1 --seconds 1 --calls 20 --cold 1
