#!/usr/bin/env bash
# Herald against the floor of its own architecture, in one command: builds the
# floor (benches/floor: rmcp + reqwest alone, a workspace member built with
# Herald's own dependency builds) and the current release build, then
# runs benches/floor.py: interleaved rounds of wrk (64 clients, stateless JSON
# tools/call lorebase_get over Streamable HTTP, default settings), sequential
# stdio calls, idle RSS and stdio cold start, printing each round's ratios to the
# floor and their medians against the targets (docs/benchmarks.md, "Herald
# against the floor of its own architecture").
#
#   benches/floor.sh                              # build, then 6 rounds of 8 s
#   benches/floor.sh --no-build --rounds 4        # reuse what target/release holds
#   benches/floor.sh --also before=/tmp/lorebase-herald-before   # a build beside it
#   benches/floor.sh --profile dev --rounds 1 --seconds 1 --calls 20 --cold 1   # the smoke run
#
# `--profile dev` builds and measures the debug builds (the test command's smoke
# run, no figures worth keeping). Other arguments go to benches/floor.py
# (--help lists them). Loopback only; stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1 profile=release
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --profile) profile="$2"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
dir=$profile
[ "$profile" = dev ] && dir=debug

./scripts/setup.sh wrk >&2
if [ "$build" = 1 ]; then
  echo "=== floor: $profile builds of lorebase-herald, lorebase-sandbox and the floor" >&2
  cargo build --profile "$profile" --locked -p lorebase-herald -p lorebase-sandbox -p herald-floor --bins
fi
exec "${PYTHON:-python3}" benches/floor.py --bin-dir "target/$dir" ${args[@]+"${args[@]}"}
