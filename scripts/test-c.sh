#!/usr/bin/env bash
# The C API's tests: the Rust tests of lorebase-herald-capi (the checked-in
# header is what cbindgen makes of the crate; the ABI against the sandbox), then a C
# program compiled with the system cc against the header, linked once against the
# shared library and run under valgrind (a leak or a memory error fails), and once
# against the static library, both against a sandbox Keeper started here; then
# lorebase_herald_free with calls in flight: 50 runs, and once under valgrind.
# Debug builds in the workspace target dir (HERALD_NO_BUILD=1: the ones scripts/test.sh
# built). Needs cc, python3 (to read the READY line) and valgrind (scripts/setup.sh
# installs it with apt-get when missing and possible).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
target="${CARGO_TARGET_DIR:-$root/target}"
lib_dir="$target/debug"
out="$target/capi-test"
mkdir -p "$out"
# Hermetic settings: the tests pass theirs explicitly (the C program sets the short
# variables itself for its NULL-settings case).
for var in $(compgen -e | grep '^LOREBASE' || true); do unset "$var"; done

step() { printf '\n--- c api: %s\n' "$*" >&2; }

if [ "${HERALD_NO_BUILD:-}" != 1 ]; then  # scripts/test.sh built them and ran them with the workspace
  step "build the library and the sandbox"
  cargo build --locked -p lorebase-herald-capi -p lorebase-sandbox
  step "rust tests (header staleness, ABI against the sandbox)"
  cargo test --locked -p lorebase-herald-capi
fi

step "valgrind"
./scripts/setup.sh valgrind

step "the shared library exports exactly the functions the header declares"
exported="$(nm -D --defined-only "$lib_dir/liblorebase_herald.so" | awk '{print $3}' | grep '^lorebase_herald_' | sort)"
declared="$(grep -oE '\blorebase_herald_[a-z_]+\(' bindings-c/include/lorebase_herald.h | tr -d '(' | sort -u)"
if [ -z "$exported" ] || [ "$exported" != "$declared" ]; then
  diff <(printf '%s\n' "$declared") <(printf '%s\n' "$exported") >&2 || true
  echo "the exports of liblorebase_herald.so (right) differ from the header (left)" >&2
  exit 1
fi

step "compile the C test program (shared and static)"
cflags=(-std=c11 -Wall -Wextra -Werror -pedantic -g -O1 -I bindings-c/include)
cc "${cflags[@]}" bindings-c/tests/c/capi_test.c \
  -L "$lib_dir" -llorebase_herald -Wl,-rpath,"$lib_dir" -lpthread \
  -o "$out/capi_test_shared"
# The native libraries a Rust staticlib needs on Linux (rustc --print native-static-libs).
cc "${cflags[@]}" bindings-c/tests/c/capi_test.c \
  "$lib_dir/liblorebase_herald.a" -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc \
  -o "$out/capi_test_static"
cc "${cflags[@]}" bindings-c/tests/c/free_in_flight.c \
  -L "$lib_dir" -llorebase_herald -Wl,-rpath,"$lib_dir" -lpthread \
  -o "$out/free_in_flight"
cc "${cflags[@]}" bindings-c/tests/c/leak_canary.c \
  -L "$lib_dir" -llorebase_herald -Wl,-rpath,"$lib_dir" -lpthread \
  -o "$out/leak_canary"
if command -v c++ >/dev/null 2>&1; then
  # The header is usable from C++ too.
  printf '#include "lorebase_herald.h"\nint main() { return lorebase_herald_version() ? 0 : 1; }\n' \
    | c++ -std=c++17 -Wall -Wextra -Werror -I bindings-c/include -x c++ -fsyntax-only -
fi

step "start the sandbox Keeper"
sandbox_out="$out/sandbox.stdout"
: >"$sandbox_out"
"$lib_dir/lorebase-sandbox" --port 0 --auth api_key >"$sandbox_out" 2>"$out/sandbox.stderr" &
sandbox_pid=$!
trap 'kill "$sandbox_pid" 2>/dev/null || true; wait "$sandbox_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  grep -q '^LOREBASE_SANDBOX_READY ' "$sandbox_out" && break
  kill -0 "$sandbox_pid" 2>/dev/null || { cat "$out/sandbox.stderr" >&2; echo "the sandbox exited" >&2; exit 1; }
  sleep 0.1
done
ready="$(grep -m1 '^LOREBASE_SANDBOX_READY ' "$sandbox_out" || true)"
[ -n "$ready" ] || { cat "$out/sandbox.stderr" >&2; echo "the sandbox never became ready" >&2; exit 1; }
read -r LOREBASE_TEST_URL LOREBASE_TEST_KEY < <(printf '%s' "${ready#LOREBASE_SANDBOX_READY }" | python3 -c '
import json, sys
ready = json.load(sys.stdin)
key = next(k["key"] for k in ready["keys"] if k["principal"] == "agt_reader")
print(ready["url"], key)')
export LOREBASE_TEST_URL LOREBASE_TEST_KEY

step "run the static build"
"$out/capi_test_static"

memcheck=(valgrind --quiet --error-exitcode=99 --leak-check=full
  --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible
  --suppressions=bindings-c/tests/c/valgrind.supp)

step "valgrind catches a leak (the canary leaks one string on purpose)"
canary_status=0
"${memcheck[@]}" --log-file="$out/leak_canary.valgrind" "$out/leak_canary" || canary_status=$?
if [ "$canary_status" != 99 ] || ! grep -q 'definitely lost' "$out/leak_canary.valgrind"; then
  cat "$out/leak_canary.valgrind" >&2
  echo "valgrind did not report the canary's leak (exit $canary_status): the leak check proves nothing" >&2
  exit 1
fi

step "run the shared build under valgrind"
"${memcheck[@]}" "$out/capi_test_shared"

# lorebase_herald_free with 8 calls in flight cancels them, waits for them, exits 0.
step "lorebase_herald_free with calls in flight: 50 runs, 4 at a time, then once under valgrind"
runs_failed=0
seq 1 50 | xargs -P 4 -I{} sh -c '"$1" >/dev/null || { echo "run {} failed" >&2; exit 1; }' _ "$out/free_in_flight" \
  || runs_failed=1
[ "$runs_failed" = 0 ] || { echo "lorebase_herald_free with calls in flight failed (above)" >&2; exit 1; }
echo "50 of 50 runs exited 0" >&2
"${memcheck[@]}" "$out/free_in_flight" 60

step "passed"
rm -rf "$out"  # the C programs (80 MB, built again each run); kept when a step fails
