#!/usr/bin/env bash
# Runs every test of Lorebase Herald on a fresh machine: it installs what it needs from the
# package registries (scripts/setup.sh), checks formatting and lints, builds everything once,
# and runs the Rust tests, the end-to-end tests (Python `mcp` SDK, TypeScript SDK, the MCP
# conformance suite), the tests of the C, Node and Python packages (with the framework adapters),
# the replicas behind nginx, and the deploy tests (the container image, compose, Kubernetes).
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
# Adding a stage is one line: put the test in its own script, scripts/test-NAME.sh, and add
#   stage NAME --lane LANE --after STAGE,... -- ./scripts/test-NAME.sh
# below, with the lane (see below) and what it needs first (the stages named in --after). The
# command runs from the repository root in a subshell with `set -euo pipefail`, its output in
# target/test-logs/NAME.log; it may be a function of this file. For example:
#   stage e2e-newer-keeper --lane e2e --after binaries,setup-python-e2e -- ./scripts/test-newer-keeper.sh
#   stage ops --lane rust --after binaries -- ./scripts/test-ops.sh
#   stage fuzz-build --lane compile --after binaries --own-build -- ./scripts/test-fuzz.sh build
# Where to put it:
#   - A stage that compiles Rust goes in the `compile` lane (one cargo at a time: two would share
#     2 cores and finish no sooner), after the stages it needs; a compile for another profile or
#     with instrumentation (the fuzz build) is marked --own-build (the compiled-once check leaves
#     its log out). A compile in another lane would wait for cargo's lock on target/ anyway, and
#     hold up the compile lane's next stage while it runs (the fuzz build did so to the wheel: 254 s).
#   - An install from a registry (pip, npm, apt, cargo install) is a setup stage in a `setup-*`
#     lane (apt ones in setup-apt: apt-get holds a lock), named setup-NAME, through a part of
#     scripts/setup.sh, so it runs while cargo compiles; the test stage waits for it (--after).
#   - A test stage waits for `binaries` (target/debug/lorebase-{herald,sandbox}; HERALD_NO_BUILD=1
#     is set, so stage scripts must not build) and its setup, and joins the test lane with the
#     least time (the summary table's wall times; docs/benchmarks.md): e2e, python, node, rust,
#     deploy. A test that measures time (replicas) goes where the lane around it is light.
#
# Every crate compiles once for the whole run (docs/architecture.md, "Build"): the
# workspace-hack crate gives every package selection the same features, so the README's
# `cargo run -p lorebase-herald -- demo`, this build, the addon and the wheel share one build of
# each dependency, and clippy lints our crates in the same build. The run ends by checking it
# (scripts/compiled-once.py): a crate compiled twice fails it.
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
# No line tables and no symbol table in what the workspace's crates link (the dependencies have
# no debug info anyway): in each of some 20 binaries and libraries they took 0.5 GB in all.
# Panics still say where; backtraces lose their frames' names. Exported symbols (the addon's,
# the C library's) stay. Neither changes how the dependencies are built, so they stay shared
# with `cargo build`. For a backtrace: CARGO_PROFILE_DEV_STRIP=none scripts/test.sh --only STAGE.
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-false}"
export CARGO_PROFILE_DEV_STRIP="${CARGO_PROFILE_DEV_STRIP:-symbols}"
# napi-derive writes the addon's TypeScript declarations here whenever a build compiles the addon
# (npm/scripts/build-addon.mjs reads them); one folder for every cargo invocation of the run, or
# napi-build would see it change and the addon would compile again.
export NAPI_TYPE_DEF_TMP_FOLDER="$PWD/target/napi-typedefs"

# --- installs (network), side by side with the build ---------------------------------------
stage setup-python-e2e --lane setup-py -- ./scripts/setup.sh python-e2e
stage setup-python-tools --lane setup-py -- ./scripts/setup.sh python-tools
stage setup-python-pkg --lane setup-py -- ./scripts/setup.sh python-pkg
stage setup-bench-peer --lane setup-py -- ./scripts/setup.sh bench-peer
stage setup-node-e2e --lane setup-js -- ./scripts/setup.sh node-e2e
stage setup-node-pkg --lane setup-js -- ./scripts/setup.sh node-pkg
stage setup-conformance --lane setup-js -- ./scripts/setup.sh conformance
stage setup-adapter-frameworks --lane setup-js -- ./scripts/setup.sh adapter-frameworks
stage setup-valgrind --lane setup-apt -- ./scripts/setup.sh valgrind
stage setup-nginx --lane setup-apt -- ./scripts/setup.sh nginx
stage setup-strace --lane setup-apt -- ./scripts/setup.sh strace
stage setup-wrk --lane setup-apt -- ./scripts/setup.sh wrk
# docker.io, docker-compose and a Docker engine started; kubernetes-validate into .venv.
stage setup-deploy --lane setup-apt --after setup-python-e2e -- ./scripts/setup.sh deploy
# The views' bundler and browser driver (npm), and Debian's Chromium.
stage setup-views --lane setup-js -- ./scripts/setup.sh views
stage setup-chromium --lane setup-apt -- ./scripts/setup.sh chromium
# Real MCP hosts from npm, pinned (1.1 GB): Claude Code, Gemini CLI, Codex CLI, Copilot CLI.
stage setup-hosts --lane setup-js -- ./scripts/setup.sh hosts

# --- compilation: one lane, one cargo at a time ---------------------------------------------
# COMPILE_NICE="nice -n 10" runs it at a lower priority than the tests beside it. Not the default:
# on a machine shared with other builds, cargo then gets a small part of their share of the CPU,
# and the tests that measure time (replicas, the slow-client attack) pass beside it at normal
# priority.
COMPILE_NICE="${COMPILE_NICE:-}"
# In the order the tests need them, so test lanes run while the rest compiles: the binaries
# first (most of the dependency graph), then each package, then every other target.
# The workspace-hack crate matches the dependencies (cargo hakari, when installed: `cargo install
# cargo-hakari --locked`, 3 min of CPU, is more than this check is worth on a fresh machine; there
# scripts/compiled-once.py at the end of the run shows a stale workspace-hack as a crate compiled
# twice).
workspace_hack_check() {
  if ! cargo hakari --version >/dev/null 2>&1; then
    echo "workspace-hack: cargo-hakari not installed, checked by scripts/compiled-once.py instead"
    return 0
  fi
  local manage
  cargo hakari generate --diff --quiet || {
    echo "workspace-hack/Cargo.toml is stale: cargo hakari generate && cargo hakari manage-deps -y"
    return 1
  }
  manage="$(cargo hakari manage-deps --dry-run 2>&1)"
  case "$manage" in *"no operations to perform"*) ;; *)
    printf '%s
the workspace-hack dependency is missing from a crate: cargo hakari manage-deps -y
' "$manage"
    return 1 ;;
  esac
  echo "workspace-hack: up to date (cargo hakari generate --diff, manage-deps --dry-run)"
}
lints() {
  local status=0
  python3 scripts/module-cycles.py || status=1
  python3 scripts/doc-paths.py || status=1
  workspace_hack_check || status=1
  lint_verdict || status=1
  return "$status"
}
lint_verdict() {
  # rustc's and clippy's warnings in the stages that compiled the workspace's crates; cargo
  # ends each crate's with "warning: `CRATE` (TARGET) generated N warnings" (it replays them
  # when the crate is up to date, so a second run sees them too).
  local logs=() log summary
  for log in binaries wheel addon c-library test-targets; do
    [ -f "$STAGE_LOGS/$log.log" ] && logs+=("$STAGE_LOGS/$log.log")
  done
  summary="$(grep -hE '^warning: `[^`]+` \(.*\) generated [0-9]+ warnings?' "${logs[@]}" | sort -u || true)"
  if [ -n "$summary" ]; then
    # Each diagnostic once (cargo replays them in every stage): from its "warning:" line to the
    # blank line after it (not cargo's summaries).
    awk '/^warning: `[^`]+` \(/ { next }
      /^warning(\[[a-z0-9_:]+\])?: / { block = "" ; keep = 1 }
      keep { block = block $0 "\n" }
      keep && /^$/ { if (!seen[block]++) printf "%s", block; keep = 0 }' "${logs[@]}"
    printf '%s\nlints: warnings (rustc, clippy) in the logs of: %s\n' "$summary" "${logs[*]}"
    return 1
  fi
  echo "lints: no warning from rustc or clippy in any target of the workspace"
}
# cargo build for a stage: progress and diagnostics in its log, cargo's JSON messages in
# STAGE.cargo.json (scripts/compiled-once.py reads them). Build times per crate:
# target/cargo-timings/cargo-timing.html (of the last build with --timings).
cargo_build() {
  $COMPILE_NICE cargo build --locked --message-format=json-render-diagnostics "$@" >"$STAGE_LOGS/$STAGE_NAME.cargo.json"
}
build_addon() { HERALD_CARGO_MESSAGES="$STAGE_LOGS/$STAGE_NAME.cargo.json" $COMPILE_NICE ./scripts/test-node.sh addon; }
stage format --lane compile -- cargo fmt --all -- --check
stage binaries --lane compile -- cargo_build -p lorebase-herald -p lorebase-sandbox -p herald-floor --bins --timings
stage wheel --lane compile --after setup-python-tools -- $COMPILE_NICE ./scripts/test-python.sh wheel
stage addon --lane compile --after setup-node-pkg -- build_addon
stage c-library --lane compile -- cargo_build -p lorebase-herald-capi --lib
# Every other target: the Rust tests, the benches. The Python module is left to maturin (the
# wheel), which builds it with the settings of the wheel's interpreter.
stage test-targets --lane compile -- cargo_build --workspace --exclude lorebase-herald-python --exclude lorebase-herald-fuzz --all-targets --timings
# Import circles between files (scripts/module-cycles.py), the paths docs/architecture.md names
# (scripts/doc-paths.py), the workspace-hack, the warnings.
stage lints --lane compile --after binaries,wheel,addon,c-library,test-targets -- lints
# The fuzz targets (scripts/test-fuzz.sh): Herald's crates compiled again with libFuzzer's
# instrumentation, linked with the dependencies built above (about 1.5 min of CPU), last so no test
# lane waits for it. The fuzz crate is left out of test-targets and rust-tests (--exclude).
stage fuzz-build --lane compile --after binaries --own-build -- ./scripts/test-fuzz.sh build

# --- tests (lanes balanced by their time on 2 cores, docs/benchmarks.md) ---------------------
# The Python suite is the longest test stage (about 400 s): only the replicas (timed, at the end
# when the build is over) share its lane; the short suites go to the deploy lane.
stage e2e-python --lane e2e --after binaries,setup-python-e2e -- .venv/bin/python -m pytest -q tests/e2e-python
stage replicas --lane e2e --after binaries,setup-python-e2e,setup-nginx -- ./scripts/test-replicas.sh
stage python-package --lane python --after binaries,wheel,setup-python-pkg -- ./scripts/test-python.sh
stage node-package --lane node --after binaries,addon,setup-adapter-frameworks -- ./scripts/test-node.sh
stage c-abi --lane rust --after binaries,c-library,setup-valgrind -- ./scripts/test-c.sh
stage rust-tests --lane rust --after test-targets -- cargo test --locked --workspace --exclude lorebase-herald-fuzz
# Every sandbox of the Python and Node end-to-end suites as a newer Keeper (about 20 s).
stage e2e-newer-keeper --lane deploy --after binaries,setup-python-e2e,setup-node-e2e -- ./scripts/test-newer-keeper.sh
stage deploy --lane deploy --after binaries,setup-deploy -- ./scripts/test-deploy.sh
stage e2e-node --lane deploy --after binaries,setup-node-e2e -- npm test --prefix tests/e2e-node
stage conformance --lane deploy --after binaries,setup-conformance -- tests/conformance/run.sh
stage bench-peer --lane deploy --after binaries,setup-bench-peer,setup-wrk -- ./scripts/test-bench-peer.sh
# Real MCP hosts (Claude Code, Gemini CLI, Codex CLI, Copilot CLI) against Herald with a scripted
# model on loopback (docs/hosts.md; about 20 s): a lane of its own.
stage hosts --lane hosts --after binaries,setup-hosts,setup-python-e2e,setup-strace -- ./scripts/test-hosts.sh
# The MCP Apps views: the bundle rebuilt and compared with the embedded copy, then the views in
# headless Chromium on an AppBridge test host against Herald (about 30 s): a lane of its own.
stage views --lane views --after binaries,setup-views,setup-chromium -- ./scripts/test-views.sh
# Fuzz smoke: each target's seeds and 6 s of new inputs (libFuzzer uses one core), on the
# fuzz-build stage's binaries (compile lane, above).
stage fuzz-smoke --lane fuzz --after fuzz-build -- ./scripts/test-fuzz.sh run

status=0
run_stages "$@" || status=$?
case " $* " in *" --list "* | *" -h "* | *" --help "*) exit "$status" ;; esac
ignored=()
for s in "${STAGE_OWN_BUILD[@]}"; do ignored+=(--ignore "$s"); done
./scripts/compiled-once.py "$STAGE_LOGS" "${ignored[@]}" || status=1
exit "$status"
