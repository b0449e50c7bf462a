#!/usr/bin/env bash
# Installs what the tests need, from the package registries only, idempotently:
# a Python virtualenv (.venv) with the test requirements, and the Node test packages.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt

npm ci --prefix tests/node --no-audit --no-fund --loglevel=error
