#!/usr/bin/env bash
# Jest on the project's Node. NestJS 12 ships ES modules only; jest's runtime loads them from our
# CommonJS (require(esm)) through node:vm's module API, which Node keeps behind this flag.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/node-env.sh
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --disable-warning=ExperimentalWarning"
exec jest "$@"
