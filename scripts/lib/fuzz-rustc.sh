#!/usr/bin/env bash
# The fuzz smoke's compiler (scripts/test-fuzz.sh sets it as RUSTC_WORKSPACE_WRAPPER; cargo calls
# it as `fuzz-rustc.sh RUSTC ARGS…` for the workspace's own crates only): adds libFuzzer's
# coverage instrumentation and `--cfg fuzzing` to Herald's crates and the fuzz targets, at the
# dev profile's opt-level 0 (opt-level 1 took 134 s of CPU to build instead of 36 s, for 2-4x the
# inputs a second). Dependencies never pass here: they are the plain dev-profile builds every other
# stage links (cargo gives a crate built through another wrapper its own file names, so the
# instrumented core never replaces the one the binaries and tests use). Build scripts, proc
# macros and the empty workspace-hack crate are compiled as they are: a build script links
# without libFuzzer, so it must not be instrumented.
#
# The flags are the ones `cargo fuzz build --dev -s none` passes (cargo-fuzz 0.13.2,
# src/project.rs); none needs nightly:
#   -Cpasses=sancov-module and the -sanitizer-coverage-* LLVM options: libFuzzer's coverage
#     feedback (8-bit counters, PC table, compare tracing, stack depth);
#   --cfg fuzzing, -Cdebug-assertions, -simplifycfg-branch-fold-threshold=0 (keeps branches
#     apart so each one counts as coverage).
set -euo pipefail
rustc="$1"
shift
crate="" kind=""
prev=""
for arg in "$@"; do
  case "$prev" in
    --crate-name) crate="$arg" ;;
    --crate-type) kind="$arg" ;;
  esac
  prev="$arg"
done
case "$crate:$kind" in
  build_script_*:* | *:proc-macro | lorebase_herald_workspace_hack:* | :*)
    exec "$rustc" "$@" ;;
esac
exec "$rustc" "$@" \
  -Cpasses=sancov-module \
  -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
  -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares \
  -Cllvm-args=-sanitizer-coverage-stack-depth \
  -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
  --cfg fuzzing -Cdebug-assertions
