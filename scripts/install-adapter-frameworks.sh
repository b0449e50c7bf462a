#!/usr/bin/env bash
# Installs the agent frameworks the Node adapters are tested with (npm/test/adapters:
# ai, @openai/agents, @langchain/core + langchain, @mastra/core, TypeScript, Node 22;
# about 500 MB, the heaviest install of the Node stage), from the npm registry.
#
# Needs nothing built, so a setup can start it in the background while cargo compiles:
#   scripts/install-adapter-frameworks.sh &
# scripts/test-node.sh runs it too: it waits for a run in progress (flock) and does
# nothing when node_modules already matches the lock file.
# (The Python frameworks install with uv in seconds: scripts/test-python.sh does it.)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=npm/test/adapters
mkdir -p target
exec 9>target/.adapter-frameworks.lock
flock 9
if cmp -s "$DIR/package-lock.json" "$DIR/node_modules/.installed-package-lock.json"; then
  echo "adapter frameworks: up to date" >&2
  exit 0
fi
npm ci --prefix "$DIR" --no-audit --no-fund --loglevel=error
cp "$DIR/package-lock.json" "$DIR/node_modules/.installed-package-lock.json"
