#!/usr/bin/env bash
# Herald against its peer on the official Python MCP SDK, in one run.
# Builds what it measures, then runs benches/run.py, which writes its table into
# docs/benchmarks.md (between the herald-bench markers):
#
#   - release builds of lorebase-herald and the sandbox Keeper;
#   - the floor (benches/floor, target/release/herald-floor): rmcp's stateless JSON
#     Streamable HTTP server with one tool making the same Keeper GET with reqwest,
#     measured beside Herald over HTTP. A workspace of its own, so CI's
#     `cargo build`/`clippy --workspace` never compile it; built into the shared
#     target/ with Herald's dependency features, it reuses Herald's compiled
#     dependencies (about 20 s on top of Herald's release build);
#   - the release Node addon (target/bench/lorebase-herald.<platform>.node, loaded by
#     `node npm/bin/lorebase-herald` through LOREBASE_HERALD_ADDON);
#   - the release wheel (maturin) in target/bench/wheel, installed in target/bench/wheel-venv
#     for the console script;
#   - the peer's virtualenv (target/bench/peer-venv: mcp 2.x, httpx2 from PyPI);
#   - wrk (apt-get, when missing and allowed).
#
# Everything runs on loopback and stops by itself (a few minutes).
#
#   benches/run.sh                         # build, then the full run
#   benches/run.sh --no-build              # reuse what target/ holds
#   benches/run.sh --no-build --runs 5 --repeats 1 --seconds 2   # a quicker look
#   benches/run.sh --no-node --no-wheel    # native and peer only
# Other arguments go to benches/run.py (--help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="$ROOT/target/bench"
PYTHON="${PYTHON:-python3}"
mkdir -p "$WORK"

build=1 node=1 wheel=1
args=()
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --no-node) node=0; args+=("--no-node") ;;
    --no-wheel) wheel=0 ;;
    *) args+=("$arg") ;;
  esac
done

stage() { printf '\n=== bench: %s\n' "$*" >&2; }

if ! command -v wrk >/dev/null; then
  stage "wrk (apt-get)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y wrk >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y wrk >/dev/null; }
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x64-gnu ;;
  Linux-aarch64) PLATFORM=linux-arm64-gnu ;;
  *) echo "benches/run.sh measures on Linux (x86_64 or aarch64) only" >&2; exit 2 ;;
esac
ADDON="$WORK/lorebase-herald.$PLATFORM.node"

if [ "$build" = 1 ]; then
  stage "release binaries (lorebase-herald, lorebase-sandbox)"
  cargo build --release --locked -p lorebase-herald -p lorebase-sandbox
  stage "the floor (benches/floor: rmcp + reqwest alone, with Herald's dependency builds)"
  cargo build --release --locked -p herald-floor
  if [ "$node" = 1 ]; then
    stage "release Node addon"
    cargo build --release --locked -p lorebase-herald-node --lib
    cp target/release/liblorebase_herald_node.so "$ADDON"
  fi
  if [ "$wheel" = 1 ]; then
    stage "release wheel (maturin) and its virtualenv"
    MATURIN="$ROOT/target/python-tools/bin/maturin"   # scripts/test-python.sh's, when there
    if [ ! -x "$MATURIN" ]; then
      MATURIN="$WORK/tools/bin/maturin"
      [ -x "$WORK/tools/bin/python" ] || "$PYTHON" -m venv "$WORK/tools"
      "$WORK/tools/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$(grep -E '^maturin==' python/tools-requirements.txt)"
    fi
    rm -rf "$WORK/wheel"
    (cd python && "$MATURIN" build --release --locked --out "$WORK/wheel" --interpreter "$PYTHON")
    rm -rf "$WORK/wheel-venv"
    "$PYTHON" -m venv "$WORK/wheel-venv"
    "$WORK/wheel-venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$WORK"/wheel/lorebase_herald-*.whl
  fi
fi
if [ "$wheel" = 0 ]; then
  args+=("--console-script" "$WORK/none" "--wheel-dir" "$WORK/none")
fi

stage "the peer's virtualenv (official Python MCP SDK)"
if [ ! -x "$WORK/peer-venv/bin/python" ]; then
  "$PYTHON" -m venv "$WORK/peer-venv"
fi
"$WORK/peer-venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r benches/peers/python_sdk_herald/requirements.txt

stage "run"
export BENCH_COMMAND="benches/run.sh${*:+ $*}"
exec "$PYTHON" benches/run.py --node-addon "$ADDON" ${args[@]+"${args[@]}"}
