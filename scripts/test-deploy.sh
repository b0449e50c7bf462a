#!/usr/bin/env bash
# The deploy stage: the container image (stdio and Streamable HTTP, https to
# a Keeper with no CA bundle), the compose profile `mcp`, the Kubernetes
# manifests (rendered, validated offline) and server.json (the MCP Registry's
# schema). Everything runs on this machine: no registry image is pulled.
#
#   scripts/test-deploy.sh --prepare  # installs only (idempotent), and starts a Docker
#                                     # engine: safe to start early, in the background
#   scripts/test-deploy.sh            # prepare, build the images, run tests/deploy, clean up
#
# Installs: docker.io and docker-compose (Debian), kubernetes-validate (PyPI,
# into .venv). Needs kubectl (`kubectl kustomize`; on these machines). Starts
# `dockerd --iptables=false` (root) when no engine answers, and leaves it
# running. The images are built from target/debug/ binaries (stripped copies;
# HERALD_NO_BUILD=1, set by scripts/test.sh, skips the cargo build). Every
# container, network and image it makes is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() { printf '\n=== deploy: %s\n' "$*" >&2; }

prepare() {
  stage "install docker.io, docker-compose, kubernetes-validate"
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  [ -x .venv/bin/python ] || python3 -m venv .venv
  # tests/deploy reuses the end-to-end suite's helpers (the mcp SDK, pytest).
  .venv/bin/python -m pip install --quiet --disable-pip-version-check \
    -r tests/e2e-python/requirements.txt -r tests/deploy/requirements.txt
  command -v kubectl >/dev/null || { echo "test-deploy: no kubectl (it renders deploy/kubernetes)" >&2; exit 1; }

  if ! docker info >/dev/null 2>&1; then
    stage "start dockerd"
    mkdir -p target
    setsid dockerd --iptables=false >target/dockerd.log 2>&1 < /dev/null &
    for _ in $(seq 60); do
      docker info >/dev/null 2>&1 && break
      sleep 0.5
    done
    docker info >/dev/null 2>&1 || { tail -n 20 target/dockerd.log >&2; exit 1; }
  fi
}

prepare
[ "${1:-}" = "--prepare" ] && exit 0

tag="test-$$"
export HERALD_IMAGE="lorebase-herald:$tag" SANDBOX_IMAGE="lorebase-sandbox:$tag"
export DEPLOY_PREFIX="herald-deploy-$$"
cleanup() {
  docker ps -aq --filter "name=$DEPLOY_PREFIX" | xargs -r docker rm -f >/dev/null 2>&1 || true
  docker network ls -q --filter "name=$DEPLOY_PREFIX" | xargs -r docker network rm >/dev/null 2>&1 || true
  docker image rm "$HERALD_IMAGE" "$SANDBOX_IMAGE" >/dev/null 2>&1 || true
}
trap cleanup EXIT

stage "build the images (debug binaries, stripped)"
deploy/docker/build-images.sh --debug --tag "$tag" 2> >(grep -v -e DEPRECATED -e 'legacy builder' -e buildx -e '^ *$' >&2)

stage "tests/deploy (image, compose, manifests, server.json)"
.venv/bin/python -m pytest -q -c tests/deploy/pytest.ini --durations=5 tests/deploy
