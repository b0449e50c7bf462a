#!/usr/bin/env bash
# Python stage: builds the `lorebase-herald` wheel with maturin in the debug
# profile into dist/, installs it with the test requirements into the test virtualenv,
# and runs python/tests (the Python API, concurrency, the console script against the
# native binary, `uvx --from dist/<wheel>` driven by the `mcp` SDK, the framework
# adapters in their frameworks' own agent loops, the README's examples), all against
# the sandbox Keeper on loopback ports. CrewAI cannot share the test environment
# (its pins clash with mcp 2 and google-adk): it gets a second one, CREWAI_VENV.
# Everything it installs comes from PyPI (maturin, uv, mypy, pytest, mcp, the frameworks),
# through scripts/setup.sh (parts python-tools and python-pkg) and uv.
#
#   ./scripts/test-python.sh                 # everything
#   ./scripts/test-python.sh -k adapters     # extra arguments go to pytest
#   ./scripts/test-python.sh wheel           # only build the wheel into dist/
#   HERALD_NO_BUILD=1 (scripts/test.sh sets it, after its `wheel` stage ran
#   `scripts/test-python.sh wheel`): test the wheel in dist/ and the built binaries
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-python3}"
TOOLS="$ROOT/target/python-tools"      # maturin, uv, mypy (kept between runs)
VENV="$ROOT/python/.venv"              # the test environment (scripts/setup.sh python-pkg)
CREWAI_VENV="$ROOT/target/python-crewai-venv"   # the wheel and CrewAI (made anew each run)

stage() { printf '\n=== python: %s\n' "$*" >&2; }

build_wheel() {
  stage "wheel (debug profile) into dist/"
  ./scripts/setup.sh python-tools
  mkdir -p dist
  rm -f dist/lorebase_herald-*.whl
  (cd python && "$TOOLS/bin/maturin" build --locked --profile dev --out "$ROOT/dist" --interpreter "$PYTHON")
  echo "built $(ls dist/lorebase_herald-*.whl)" >&2
}

if [ "${1:-}" = "wheel" ]; then
  build_wheel
  exit 0
fi

if [ "${HERALD_NO_BUILD:-}" != 1 ]; then  # scripts/test.sh built them
  stage "native binaries (sandbox Keeper, lorebase-herald)"
  cargo build --locked -p lorebase-sandbox -p lorebase-herald --bins
  build_wheel
fi
export SANDBOX_BIN="$ROOT/target/debug/lorebase-sandbox"
export HERALD_BIN="$ROOT/target/debug/lorebase-herald"
WHEEL="$(ls dist/lorebase_herald-*.whl)"
export HERALD_WHEEL="$ROOT/$WHEEL"

stage "the test virtualenv (python/.venv) with the wheel"
./scripts/setup.sh python-tools python-pkg
# The requirements are in already (setup.sh python-pkg); the wheel replaces any earlier one.
"$TOOLS/bin/uv" pip install --quiet --python "$VENV/bin/python" --reinstall-package lorebase-herald \
  "lorebase-herald[langchain,pydantic-ai,openai-agents,llama-index,google-adk,smolagents] @ $HERALD_WHEEL" \
  -r python/tests/requirements.txt

# --- framework adapters: CrewAI, in its own environment, beside the rest ---
# CrewAI's pins clash with mcp 2 and google-adk: it gets its own virtualenv, and its
# install, mypy and pytest run in the background while the main environment is tested
# (its output is printed at the end).
crewai_lane() {
  set -euo pipefail
  rm -rf "$CREWAI_VENV"
  "$TOOLS/bin/uv" venv --quiet --python "$PYTHON" "$CREWAI_VENV"
  "$TOOLS/bin/uv" pip install --quiet --python "$CREWAI_VENV/bin/python" \
    "lorebase-herald[crewai] @ $HERALD_WHEEL" -r python/tests/crewai-requirements.txt
  (cd python && "$TOOLS/bin/mypy" --strict --no-incremental --cache-dir "$ROOT/target/mypy-crewai" \
    --python-executable "$CREWAI_VENV/bin/python" lorebase_herald/adapters/crewai.py)
  (cd python/tests && "$CREWAI_VENV/bin/python" -m pytest -q -p no:cacheprovider adapters/test_crewai.py)
  # Made anew each run: once passed, its 0.9 GB (hard links into uv's cache) goes; a failure keeps it.
  rm -rf "$CREWAI_VENV" "$ROOT/target/mypy-crewai"
}
crewai_lane > "$ROOT/target/python-crewai.log" 2>&1 &
CREWAI_PID=$!
trap 'kill "$CREWAI_PID" 2>/dev/null || true' EXIT

stage "abi3: the same wheel on the oldest supported Python (3.9), where one is installed"
PY39="${ABI3_PYTHON:-$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9*/bin/python3.9 2>/dev/null | tail -n 1 || true)}"
if [ -n "$PY39" ] && [ -x "$PY39" ]; then
  rm -rf "$ROOT/target/python-abi3-venv"
  "$TOOLS/bin/uv" venv --quiet --python "$PY39" "$ROOT/target/python-abi3-venv"
  "$TOOLS/bin/uv" pip install --quiet --offline --python "$ROOT/target/python-abi3-venv/bin/python" "$HERALD_WHEEL"
  # Every module compiles there (the adapters too), and the smoke test passes.
  "$ROOT/target/python-abi3-venv/bin/python" -c "import compileall, lorebase_herald, os, sys; sys.exit(not compileall.compile_dir(os.path.dirname(lorebase_herald.__file__), quiet=1))"
  PATH="$ROOT/target/python-abi3-venv/bin:$PATH" "$ROOT/target/python-abi3-venv/bin/python" python/tests/smoke_wheel.py
  rm -rf "$ROOT/target/python-abi3-venv"  # 70 MB, made anew each run
else
  echo "no Python 3.9 found (set ABI3_PYTHON to check one): skipped" >&2
fi

stage "types (mypy --strict on the package and the example, with the frameworks installed)"
# (The CrewAI adapter is checked where CrewAI is installed: in crewai_lane.)
(cd python && "$TOOLS/bin/mypy" --strict --no-incremental --python-executable "$VENV/bin/python" \
  --exclude 'lorebase_herald/adapters/crewai\.py' lorebase_herald examples)

stage "pytest"
cd "$ROOT/python/tests"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider --ignore=adapters/test_crewai.py "$@"

# --- framework adapters ---
stage "CrewAI: install, mypy --strict, pytest (ran in the background, its output)"
crewai_status=0
wait "$CREWAI_PID" || crewai_status=$?
cat "$ROOT/target/python-crewai.log"
exit "$crewai_status"
