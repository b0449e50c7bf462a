#!/usr/bin/env bash
# Runs every test of Lorebase Herald on a fresh machine: it installs what it needs from the
# package registries (scripts/setup.sh), checks formatting and lints, builds everything once,
# and runs the Rust tests, the end-to-end tests (Python `mcp` SDK, TypeScript SDK, the MCP
# conformance suite) and the tests of the C, Node and Python packages.
# `.ci/run` calls exactly this script.
#
#   scripts/test.sh                      # everything
#   scripts/test.sh --only e2e-python    # one stage (or lane), with the stages it waits for
#   scripts/test.sh --only rust,c-abi    # several
#   scripts/test.sh --list               # the stages, their lanes, what each waits for
#
# How it runs (scripts/lib/stages.sh): stages are grouped in lanes; the stages of a lane run one
# after another, the lanes side by side. The installs (network) run in their own lanes while
# cargo compiles; all compilation is in the `compile` lane, so it never competes with itself;
# the test lanes start as soon as what they wait for is built. Each stage's output goes to
# target/test-logs/STAGE.log; the run prints one line per stage start and end, a table of every
# stage (result, wall time, CPU time, target/ size) and the whole log (or its tail) of every
# stage that failed; it exits non-zero if one did.
#
# Adding a stage: one `stage` line below, in the lane it belongs to, e.g.
#   stage e2e-newer-keeper --lane e2e --after build,setup-python-e2e -- ./scripts/test-newer.sh
# (the command runs from the repository root, in a subshell with `set -euo pipefail`; it may be
# a function of this file). A stage that compiles Rust belongs in the `compile` lane. Tests reuse
# the workspace build: HERALD_NO_BUILD=1 and target/debug/lorebase-{herald,sandbox}.
#
# Every crate compiles once for the whole run (docs/architecture.md, "Build"): the
# workspace-hack crate gives every package selection the same features, so the README's
# `cargo run -p lorebase-herald -- demo`, this build, the addon and the wheel share one build of
# each dependency, and clippy lints our crates in the same build. The run ends by checking it:
# a crate compiled twice fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/stages.sh

export HERALD_BIN="$PWD/target/debug/lorebase-herald"
export SANDBOX_BIN="$PWD/target/debug/lorebase-sandbox"
export HERALD_NO_BUILD=1
# Clippy lints the workspace's own crates while they compile, for every cargo invocation of the
# run (the build, maturin's build of the wheel, the addon's): a separate `cargo clippy` would
# check every dependency a second time (2 min of CPU, 0.45 GB). Dependencies are compiled by
# rustc, unchanged. The `lints` stage fails the run on any warning.
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
[ -n "$RUSTC_WORKSPACE_WRAPPER" ] || { echo "clippy-driver not found: rustup component add clippy" >&2; exit 2; }
export RUSTC_WORKSPACE_WRAPPER
# The workspace's crates are compiled once per run: incremental state (0.8 GB) would never be read.
export CARGO_INCREMENTAL=0
# napi-derive writes the addon's TypeScript declarations here when the workspace build compiles
# the addon; npm/scripts/build-addon.mjs reads them instead of compiling it again.
export NAPI_TYPE_DEF_TMP_FOLDER="$PWD/target/napi-typedefs"

# --- installs (network), side by side with the build ---------------------------------------
stage setup-python-e2e --lane setup-py -- ./scripts/setup.sh python-e2e
stage setup-python-tools --lane setup-py -- ./scripts/setup.sh python-tools
stage setup-python-pkg --lane setup-py -- ./scripts/setup.sh python-pkg
stage setup-bench-peer --lane setup-py -- ./scripts/setup.sh bench-peer
stage setup-node-e2e --lane setup-js -- ./scripts/setup.sh node-e2e
stage setup-node-pkg --lane setup-js -- ./scripts/setup.sh node-pkg
stage setup-conformance --lane setup-js -- ./scripts/setup.sh conformance
stage setup-valgrind --lane setup-apt -- ./scripts/setup.sh valgrind

# --- compilation: one lane, one cargo at a time ---------------------------------------------
build_workspace() {
  # Every target of the workspace in one invocation: the tests, the benches, the two binaries,
  # the C library and the Node addon. The Python module is left to maturin (the `wheel` stage),
  # which builds it with the settings of the wheel's interpreter. Build times per crate:
  # target/cargo-timings/cargo-timing.html.
  mkdir -p "$NAPI_TYPE_DEF_TMP_FOLDER"
  cargo build --locked --workspace --exclude lorebase-herald-python --all-targets --timings
}
lint_verdict() {
  # rustc's and clippy's warnings in the stages that compiled the workspace's crates; cargo
  # ends each crate's with "warning: `CRATE` (TARGET) generated N warnings" (it replays them
  # when the crate is up to date, so a second run sees them too).
  local logs=() log summary
  for log in build wheel addon; do [ -f "$STAGE_LOGS/$log.log" ] && logs+=("$STAGE_LOGS/$log.log"); done
  summary="$(grep -hE '^warning: `[^`]+` \(.*\) generated [0-9]+ warnings?' "${logs[@]}" | sort -u || true)"
  if [ -n "$summary" ]; then
    # Each diagnostic: from its "warning:" line to the blank line after it (not cargo's summaries).
    awk '/^warning: `[^`]+` \(/ { next } /^warning(\[[a-z0-9_:]+\])?: / { show = 1 } show { print } /^$/ { show = 0 }' \
      "${logs[@]}"
    printf '%s\nlints: warnings (rustc, clippy) in the logs of: %s\n' "$summary" "${logs[*]}"
    return 1
  fi
  echo "lints: no warning from rustc or clippy in any target of the workspace"
}
stage format --lane compile -- cargo fmt --all -- --check
stage build --lane compile -- build_workspace
stage wheel --lane compile --after setup-python-tools -- ./scripts/test-python.sh wheel
stage addon --lane compile --after setup-node-pkg -- ./scripts/test-node.sh addon
stage lints --lane compile --after build,wheel,addon -- lint_verdict

# --- tests (lanes balanced by their time on 2 cores, docs/benchmarks.md) ---------------------
stage rust-tests --lane rust --after build -- cargo test --locked --workspace
stage c-abi --lane rust --after build,setup-valgrind -- ./scripts/test-c.sh
stage e2e-python --lane e2e --after build,setup-python-e2e -- .venv/bin/python -m pytest -q tests/python
stage e2e-node --lane e2e --after build,setup-node-e2e -- npm test --prefix tests/node
stage conformance --lane e2e --after build,setup-conformance -- tests/conformance/run.sh
stage bench-peer --lane e2e --after build,setup-bench-peer -- ./scripts/test-bench-peer.sh
stage python-package --lane python --after wheel,setup-python-pkg -- ./scripts/test-python.sh
stage node-package --lane node --after addon -- ./scripts/test-node.sh

status=0
run_stages "$@" || status=$?
case " $* " in *" --list "* | *" -h "* | *" --help "*) exit "$status" ;; esac
./scripts/compiled-once.sh "$STAGE_LOGS" || status=1
exit "$status"
