#!/usr/bin/env bash
# Fuzz smoke: builds the fuzz targets of fuzz/ with libFuzzer and coverage
# instrumentation, then runs each target in sequence: first its committed seeds
# (fuzz/corpus/TARGET), then new inputs for FUZZ_SECONDS (default 6) seconds. A crash, a panic,
# an input slower than FUZZ_TIMEOUT (default 10 s) or more than 2 GB of memory fails the stage;
# the input is left under target/fuzz/artifacts/TARGET/ (replay: `target/debug/TARGET FILE`).
# New inputs go to a temporary folder: the committed seeds never change.
#
# Cheap on a fresh machine (docs/reliability.md, "What the fuzz build and the smoke cost"): no
# nightly toolchain and no cargo-fuzz to install, and no dependency compiled again. The fuzz
# crate is a member of the root workspace (outside its default members), built with plain stable
# `cargo build` of the dev profile in the root's target dir: it links the dependencies the
# binaries stage built. Only the workspace's own crates pass through scripts/lib/fuzz-rustc.sh
# (RUSTC_WORKSPACE_WRAPPER), which adds the instrumentation `cargo fuzz build --dev -s none`
# would (the flags are listed and explained there); cargo gives them file names of their own.
# Campaigns by hand use cargo-fuzz's optimized build (docs/reliability.md); this script also
# runs long ones: FUZZ_SECONDS=600 ./scripts/test-fuzz.sh; FUZZ_TARGETS="a b" picks targets.
#
#   scripts/test-fuzz.sh          # build, then run
#   scripts/test-fuzz.sh build    # build only (scripts/test.sh: the fuzz-build stage, in the compile lane)
#   scripts/test-fuzz.sh run      # run only, on the binaries built before (the fuzz-smoke stage)
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${FUZZ_SECONDS:-6}"
TIMEOUT="${FUZZ_TIMEOUT:-10}"
ARTIFACTS="$PWD/target/fuzz/artifacts"

MODE="${1:-all}"
case "$MODE" in all | build | run) ;; *) echo "usage: $0 [build|run]" >&2; exit 2 ;; esac
if [ "$MODE" != run ]; then
  RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/lib/fuzz-rustc.sh" \
    cargo build --locked -p lorebase-herald-fuzz --bins
fi
[ "$MODE" != build ] || exit 0
bin_dir="${CARGO_TARGET_DIR:-$PWD/target}/debug"

targets="${FUZZ_TARGETS:-$(basename -s .rs fuzz/fuzz_targets/*.rs)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in $targets; do
  mkdir -p "$work/$target" "$ARTIFACTS/$target"
  started=$(date +%s%N)
  # The first folder takes the new inputs; the seeds are read only.
  "$bin_dir/$target" "$work/$target" "fuzz/corpus/$target" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
    -artifact_prefix="$ARTIFACTS/$target/" -print_final_stats=1 \
    >"$work/$target.log" 2>&1 || {
    tail -n 40 "$work/$target.log" >&2
    echo "test-fuzz: $target failed; the input is under $ARTIFACTS/$target/" >&2
    exit 1
  }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
  # libFuzzer's last status line: coverage (edges, features) and corpus size.
  final=$(grep -E '^#[0-9]+' "$work/$target.log" | tail -n 1 | grep -oE '(cov|ft|corp): [^ ]+' | tr '\n' ' ')
  ms=$((($(date +%s%N) - started) / 1000000))
  printf 'fuzz %-15s %9s runs in %d.%03d s  %s\n' "$target" "$runs" $((ms / 1000)) $((ms % 1000)) "$final" >&2
done
