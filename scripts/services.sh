#!/usr/bin/env bash
# Local backing services: MySQL (MariaDB), Redis, Elasticsearch and S3Proxy.
#   bash scripts/services.sh up [SERVICE...] | down [SERVICE...] | status | install | left-running
# The work is done by scripts/services/ (TypeScript that Node 24 runs as it is); see docs/local-services.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/node-env.sh
exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON scripts/services/cli.ts "$@"
