#!/usr/bin/env bash
# Fuzz smoke (issue 18): builds the cargo-fuzz targets of fuzz/ (nightly,
# optimized, coverage instrumentation, no sanitizer) into one shared target dir
# (target/fuzz), then runs each target in sequence: first its committed seeds
# (fuzz/corpus/TARGET), then new inputs for FUZZ_SECONDS (default 6) seconds.
# A crash, a panic, an input slower than FUZZ_TIMEOUT (default 10 s) or more
# than 2 GB of memory fails the stage; the input is left under
# target/fuzz/artifacts/TARGET/ (replay: `target/fuzz/.../release/TARGET FILE`).
# New inputs go to a temporary folder: the committed seeds never change.
#
# Installs what it needs on a fresh machine: the nightly toolchain (rustup) and
# cargo-fuzz (crates.io, pinned) when they are missing. The build is the cost:
# the fuzz crate compiles core's and the server's dependency graph again with
# instrumentation (docs/reliability.md, "Fuzzing", has the times); it shares no
# CPU-heavy step with the other stages and can run in a lane of its own.
# A longer campaign: FUZZ_SECONDS=600 ./scripts/test-fuzz.sh; FUZZ_TARGETS="a b" picks
# targets (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET="${FUZZ_SECONDS:-6}"
TIMEOUT="${FUZZ_TIMEOUT:-10}"
CARGO_FUZZ_VERSION=0.13.2
TARGET_DIR="$PWD/target/fuzz"
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
fi

# The fuzz crate is its own workspace: the root's `cargo fmt --all` skips it.
cargo fmt --manifest-path fuzz/Cargo.toml -- --check

# One build of every target; the flags are the ones docs/reliability.md gives
# for campaigns, so a campaign by hand reuses this build.
(cd fuzz && cargo +nightly fuzz build -O -s none --codegen-units 16 --target-dir "$TARGET_DIR")
bin_dir="$TARGET_DIR/$TRIPLE/release"

targets="${FUZZ_TARGETS:-$(cd fuzz && cargo +nightly fuzz list)}"
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
