#!/usr/bin/env bash
# Python stage (issue 8): builds the `lorebase-herald` wheel with maturin in the debug
# profile into dist/, installs it with the test requirements into the test virtualenv,
# and runs python/tests (the Python API, concurrency, the console script against the
# native binary, `uvx --from dist/<wheel>` driven by the `mcp` SDK, the framework
# adapters), all against the sandbox Keeper on loopback ports.
# Everything it installs comes from PyPI (maturin, uv, mypy, pytest, mcp, the frameworks),
# through scripts/setup.sh (parts python-tools and python-pkg).
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
  "lorebase-herald[langchain,pydantic-ai,openai-agents] @ $HERALD_WHEEL" -r python/tests/requirements.txt

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

stage "types (mypy --strict on the package, with the frameworks installed)"
(cd python && "$TOOLS/bin/mypy" --strict --no-incremental --python-executable "$VENV/bin/python" lorebase_herald)

stage "pytest"
cd "$ROOT/python/tests"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
