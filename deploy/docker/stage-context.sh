#!/usr/bin/env bash
# Stages the build context of deploy/docker/Dockerfile for this machine's
# architecture: the binaries (stripped) and the shared libraries `ldd` names,
# at their own paths, so that a FROM scratch image runs them.
#
#   deploy/docker/stage-context.sh CONTEXT_DIR HERALD_BIN [SANDBOX_BIN]
#
# CONTEXT_DIR/bin/<arch>/ and CONTEXT_DIR/rootfs/<arch>/ are replaced; other
# architectures' folders are kept (the release workflow merges them). <arch> is
# Docker's name for `uname -m` (amd64, arm64). Prints <arch>.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 CONTEXT_DIR HERALD_BIN [SANDBOX_BIN]" >&2
  exit 2
fi
context="$1"
shift

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "$0: unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac

bin="$context/bin/$arch"
rootfs="$context/rootfs/$arch"
rm -rf "$bin" "$rootfs"
mkdir -p "$bin" "$rootfs"

for binary in "$@"; do
  [ -x "$binary" ] || { echo "$0: no executable at $binary" >&2; exit 1; }
  # Debug binaries keep line tables: strip them (a release build is already stripped).
  strip --strip-all -o "$bin/$(basename "$binary")" "$binary"
  # `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)` and the loader
  # `/lib64/ld-linux-x86-64.so.2 (0x...)`; linux-vdso has no file.
  ldd "$binary" | awk '/=> \// { print $3; next } /^[[:space:]]*\// { print $1 }' |
    while read -r lib; do
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done
done
echo "$arch"
