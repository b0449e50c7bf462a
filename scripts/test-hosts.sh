#!/usr/bin/env bash
# Real MCP hosts against Herald (docs/hosts.md): Claude Code, Gemini CLI, Codex CLI and
# Copilot CLI, installed from npm at pinned versions (tests/hosts/package.json, scripts/setup.sh
# hosts), each pointed at a scripted model endpoint on loopback (tests/hosts/model.py: the
# Anthropic Messages API, the Gemini API, the OpenAI Responses API and Chat Completions, streamed)
# and at Herald over stdio and over Streamable HTTP, with the sandbox Keeper on a loopback port.
# The tests assert on what the host sent to the "model": every tool reaches it, a call's compact
# text and an error's `[code]` come back to it, Gemini's `wait_for_previous` is accepted, the
# alwaysLoad hint lists lorebase_context directly, Claude Code's ToolSearch finds the right tool
# for an agent's words, and the tool-search ranks of tests/hosts/intents.py in Claude Code and
# Codex; and on what a tiny probe server (tests/hosts/probe_server.py) shows of each host's cuts and hints.
#
#   scripts/test-hosts.sh                      # every host run (about 2 min on 2 cores)
#   scripts/test-hosts.sh -k gemini -s         # pytest's arguments pass through
#   HOSTS_DUMP=DIR scripts/test-hosts.sh       # also writes what each host sent: DIR/SCENARIO.json
#
# Every host run has a scratch HOME, its telemetry, update checks and error reports off, and a
# timeout (tests/hosts/hostrun.py); it runs under strace, and a test fails if it (or anything it
# starts) reached an address outside loopback, a DNS query included. The runs go side by side,
# three at a time. A host that is missing or does not start fails the stage: nothing is skipped.
# Uses HERALD_BIN and SANDBOX_BIN (scripts/test.sh sets them; target/debug/... otherwise, built
# first unless HERALD_NO_BUILD=1), .venv (scripts/setup.sh python-e2e) and strace.
set -euo pipefail
cd "$(dirname "$0")/.."

export HERALD_BIN="${HERALD_BIN:-$PWD/target/debug/lorebase-herald}"
export SANDBOX_BIN="${SANDBOX_BIN:-$PWD/target/debug/lorebase-sandbox}"
if [ "${HERALD_NO_BUILD:-}" != 1 ]; then
  cargo build --quiet -p lorebase-herald -p lorebase-sandbox
fi
./scripts/setup.sh python-e2e hosts strace >/dev/null
# The hosts report their versions: a broken install fails here, before any test.
tests/hosts/node_modules/@anthropic-ai/claude-code-linux-x64/claude --version
node tests/hosts/node_modules/@google/gemini-cli/bundle/gemini.js --version
node tests/hosts/node_modules/@openai/codex/bin/codex.js --version
tests/hosts/node_modules/@github/copilot-linux-x64/copilot --version
exec timeout 300 .venv/bin/python -m pytest -q tests/hosts "$@"
