#!/usr/bin/env bash
# `npm run demo`: the whole system with the sample data on this machine (scripts/demo.ts, which
# Node 24 runs as it is). Ctrl-C stops what this run started, nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/node-env.sh
exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON scripts/demo.ts "$@"
