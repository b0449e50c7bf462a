#!/usr/bin/env bash
# Builds the images lorebase-herald:TAG and lorebase-sandbox:TAG on this
# machine from binaries built here (no base image is pulled: see Dockerfile).
#
#   deploy/docker/build-images.sh                  # release binaries, tag `local`
#   deploy/docker/build-images.sh --debug --tag test
#   HERALD_NO_BUILD=1 ...                          # reuse target/<profile>/ binaries
#
# Works with the legacy builder (Docker 20.10 from Debian) and with BuildKit.
set -euo pipefail
cd "$(dirname "$0")/../.."

profile=release
tag=local
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug ;;
    --release) profile=release ;;
    --tag) tag="$2"; shift ;;
    *) echo "usage: $0 [--debug|--release] [--tag TAG]" >&2; exit 2 ;;
  esac
  shift
done

target_dir="${CARGO_TARGET_DIR:-target}"
if [ "${HERALD_NO_BUILD:-}" != 1 ]; then
  flags=(--locked -p lorebase-herald -p lorebase-sandbox --bins)
  [ "$profile" = release ] && flags+=(--release)
  cargo build "${flags[@]}"
fi

context="$target_dir/docker-context"
arch="$(deploy/docker/stage-context.sh "$context" \
  "$target_dir/$profile/lorebase-herald" "$target_dir/$profile/lorebase-sandbox")"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"

for image in herald sandbox; do
  docker build --quiet -f deploy/docker/Dockerfile --target "$image" \
    --build-arg TARGETARCH="$arch" --build-arg VERSION="$version" \
    -t "lorebase-$image:$tag" "$context" >/dev/null
  printf 'lorebase-%s:%s  %s\n' "$image" "$tag" \
    "$(docker image inspect -f '{{.Size}}' "lorebase-$image:$tag" | awk '{ printf "%.1f MB", $1 / 1e6 }')"
done
