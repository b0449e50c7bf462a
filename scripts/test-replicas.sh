#!/usr/bin/env bash
# Herald replicas under failure, and the HTTP front under a slow-client attack
# on loopback, bounded (about 40 s):
#   1. three replicas behind nginx (deploy/nginx/herald.conf), 64 clients calling
#      read tools for 20 s; one replica SIGKILLed, another restarted with SIGTERM:
#      zero failed reads required (tests/replicas/replicas.py);
#   2. a scaled-down slow-client attack on one Herald (300 slow connections against
#      http.max_connections 64): a normal client's /healthz and tool call answered
#      within 1 s (benches/slow_clients.py).
# Uses the workspace's debug binaries (HERALD_BIN, SANDBOX_BIN, built by
# scripts/test.sh) and .venv (scripts/setup.sh); installs nginx from Debian's
# packages when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
  else
    echo "test-replicas: nginx is not installed (apt-get install nginx)" >&2
    exit 1
  fi
fi

export HERALD_BIN="${HERALD_BIN:-$PWD/target/debug/lorebase-herald}"
export SANDBOX_BIN="${SANDBOX_BIN:-$PWD/target/debug/lorebase-sandbox}"
if [ "${HERALD_NO_BUILD:-}" != 1 ]; then
  cargo build --quiet -p lorebase-herald -p lorebase-sandbox
fi
PY=.venv/bin/python

echo "replicas: 3 behind nginx, 64 clients, 20 s, SIGKILL one, SIGTERM-restart another" >&2
"$PY" tests/replicas/replicas.py --replicas 3 --seconds 20 --chaos --assert-zero-failures

echo "slow clients: 300 against http.max_connections 64, 5 s" >&2
"$PY" benches/slow_clients.py --attackers 300 --max-connections 64 --seconds 5 --assert

echo "2 passed, 0 failed" >&2
