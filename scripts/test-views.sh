#!/usr/bin/env bash
# The MCP Apps views (views/, docs/hosts.md): the bundle rebuilt from views/src must be the copy
# the binary embeds (server/assets/views/*.html) byte for byte, within its size budget; then the
# views in headless Chromium (Debian's) on a test host page built on the ext-apps AppBridge,
# connected to a real Herald over Streamable HTTP on the sandbox (views/test/browser.mjs).
# Screenshots: target/views/. With --docs they are copied to docs/views/ for the README.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh views chromium
node views/build.mjs --check
node views/test/browser.mjs "$@"
