#!/usr/bin/env bash
# The README's test command: unit, integration and end-to-end tests. Starts the local services
# when they are not running (and reuses them when they are), builds, migrates, then runs jest, and
# ends by saying which services it leaves running and how to stop them.
set -euo pipefail
cd "$(dirname "$0")/.."

# First: on a machine that cannot get the dashboard test its browser, fail before building anything.
bash scripts/chromium.sh
source scripts/lib/node-env.sh
bash scripts/services.sh up
# From here on, however the run ends, it says what it leaves running.
trap 'bash scripts/services.sh left-running' EXIT
npm run build --silent
mkdir -p .cache

status=0
# Unit tests first: fast, and they need nothing running.
bash scripts/jest.sh --selectProjects unit --json --outputFile=.cache/jest-unit.json "$@" || status=$?
# Integration and end-to-end tests share the services, so they run one file at a time.
bash scripts/jest.sh --selectProjects integration e2e --runInBand --json --outputFile=.cache/jest-services.json "$@" || status=$?

trap - EXIT
echo
bash scripts/services.sh left-running
# The summary stays the last line.
node -e '
  const runs = [".cache/jest-unit.json", ".cache/jest-services.json"].map((f) => { try { return require("./" + f); } catch { return {}; } });
  const sum = (k) => runs.reduce((n, r) => n + (r[k] ?? 0), 0);
  console.log(`\n${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests")} skipped`);
'
exit "$status"
