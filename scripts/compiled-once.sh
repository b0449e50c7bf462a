#!/usr/bin/env bash
# Checks that a run of scripts/test.sh compiled every crate once: it counts cargo's
# `Compiling NAME vVERSION` lines in the stage logs (cargo prints one per package and
# invocation). A crate compiled by two stages means two package selections resolved
# different features for it (regenerate the
# workspace-hack crate: `cargo hakari generate && cargo hakari manage-deps`, see
# docs/architecture.md) or a stage changed an environment variable that a build script reads.
#
#   scripts/compiled-once.sh [LOG_DIR]     # default target/test-logs
set -euo pipefail
cd "$(dirname "$0")/.."
logs="${1:-target/test-logs}"

compiled="$(grep -hoE '^ *Compiling [^ ]+ v[^ ]+' "$logs"/*.log 2>/dev/null | awk '{print $2, $3}' | sort || true)"
total="$(printf '%s' "$compiled" | grep -c . || true)"
twice="$(printf '%s\n' "$compiled" | grep . | uniq -d || true)"
if [ -n "$twice" ]; then
  echo "compiled more than once in this run (the stages that compiled each):"
  while read -r name version; do
    printf '  %s %s: %s\n' "$name" "$version" \
      "$(grep -lE "^ *Compiling $name $version( |$)" "$logs"/*.log | xargs -n1 basename | sed 's/\.log$//' | tr '\n' ' ')"
  done <<<"$twice"
  exit 1
fi
echo "compiled once each: $total crates"
