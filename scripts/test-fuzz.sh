#!/usr/bin/env bash
# Fuzz smoke (issue 18): builds the fuzz targets of fuzz/ with libFuzzer and
# coverage instrumentation into one shared target dir (target/fuzz), then runs
# each target in sequence: first its committed seeds (fuzz/corpus/TARGET), then
# new inputs for FUZZ_SECONDS (default 6) seconds. A crash, a panic, an input
# slower than FUZZ_TIMEOUT (default 10 s) or more than 2 GB of memory fails the
# stage; the input is left under target/fuzz/artifacts/TARGET/ (replay:
# `target/fuzz/TRIPLE/debug/TARGET FILE`). New inputs go to a temporary
# folder: the committed seeds never change.
#
# Cheap on a fresh machine (docs/reliability.md, "What the fuzz build and the
# smoke cost"): no nightly toolchain and no cargo-fuzz to install. The build is
# plain stable `cargo build` of the dev profile (fuzz/Cargo.toml: dependencies
# at opt-level 0, no debug info) with the flags `cargo fuzz build --dev -s none`
# (cargo-fuzz 0.13.2, src/project.rs) passes; none of them needs nightly:
#   -Cpasses=sancov-module and the -sanitizer-coverage-* LLVM options: libFuzzer's
#     coverage feedback (8-bit counters, PC table, compare tracing, stack depth);
#   --cfg fuzzing, -Cdebug-assertions, -simplifycfg-branch-fold-threshold=0
#     (keeps branches apart so each one counts as coverage);
#   --target HOST: RUSTFLAGS then skip build scripts and proc macros.
# libfuzzer-sys (a dependency of the fuzz crate) compiles libFuzzer itself.
# Campaigns by hand use cargo-fuzz's optimized build (docs/reliability.md);
# this script also runs long ones: FUZZ_SECONDS=600 ./scripts/test-fuzz.sh;
# FUZZ_TARGETS="a b" picks targets; FUZZ_TARGET_DIR moves target/fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${FUZZ_SECONDS:-6}"
TIMEOUT="${FUZZ_TIMEOUT:-10}"
TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target/fuzz}"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"

# The fuzz crate is its own workspace: the root's `cargo fmt --all` skips it.
cargo fmt --manifest-path fuzz/Cargo.toml -- --check

# fuzz/Cargo.lock is the root's Cargo.lock plus libFuzzer's crates: after a dependency change in
# the root workspace, renew it from the root's, so both build the same versions.
if ! cargo metadata --locked --offline --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null 2>&1 &&
  ! cargo metadata --locked --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null; then
  echo "fuzz/Cargo.lock is stale; renew it from the root's and commit it:" >&2
  echo "  cp Cargo.lock fuzz/Cargo.lock && cargo metadata --manifest-path fuzz/Cargo.toml --format-version 1 >/dev/null" >&2
  exit 1
fi

RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-sanitizer-coverage-stack-depth \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
--cfg fuzzing -Cdebug-assertions" \
  cargo build --locked --manifest-path fuzz/Cargo.toml --target "$TRIPLE" --bins \
  --target-dir "$TARGET_DIR"
bin_dir="$TARGET_DIR/$TRIPLE/debug"

targets="${FUZZ_TARGETS:-$(basename -s .rs fuzz/fuzz_targets/*.rs)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for target in $targets; do
  mkdir -p "$work/$target" "$TARGET_DIR/artifacts/$target"
  started=$(date +%s%N)
  # The first folder takes the new inputs; the seeds are read only.
  "$bin_dir/$target" "$work/$target" "fuzz/corpus/$target" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
    -artifact_prefix="$TARGET_DIR/artifacts/$target/" -print_final_stats=1 \
    >"$work/$target.log" 2>&1 || {
    tail -n 40 "$work/$target.log" >&2
    echo "test-fuzz: $target failed; the input is under $TARGET_DIR/artifacts/$target/" >&2
    exit 1
  }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")
  # libFuzzer's last status line: coverage (edges, features) and corpus size.
  final=$(grep -E '^#[0-9]+' "$work/$target.log" | tail -n 1 | grep -oE '(cov|ft|corp): [^ ]+' | tr '\n' ' ')
  ms=$((($(date +%s%N) - started) / 1000000))
  printf 'fuzz %-15s %9s runs in %d.%03d s  %s\n' "$target" "$runs" $((ms / 1000)) $((ms % 1000)) "$final" >&2
done
