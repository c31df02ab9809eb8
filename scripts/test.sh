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

# The integration and end-to-end files that must run with nothing beside them (they measure a
# process's memory): each says so in its leading comment (docs/development.md).
mapfile -t alone < <(grep -rlE '^ \* @runs-alone' test/integration test/e2e | sort)

rm -f .cache/jest-unit.json .cache/jest-services.json .cache/jest-alone.json
status=0
# Unit tests first: fast, and they need nothing running.
bash scripts/jest.sh --selectProjects unit --maxWorkers=2 --json --outputFile=.cache/jest-unit.json "$@" ||
  status=$?
# The other service files two at a time, each jest worker on stores of its own
# (test/support/test-env.ts).
bash scripts/jest.sh --selectProjects integration e2e --maxWorkers=2 \
  --testPathIgnorePatterns /node_modules/ "${alone[@]}" \
  --json --outputFile=.cache/jest-services.json "$@" || status=$?
# Then those that run alone, one at a time.
if ((${#alone[@]})); then
  bash scripts/jest.sh --selectProjects integration e2e --runInBand "${alone[@]}" \
    --json --outputFile=.cache/jest-alone.json "$@" || status=$?
fi

trap - EXIT
echo
bash scripts/services.sh left-running
# The summary stays the last line.
node -e '
  const runs = [".cache/jest-unit.json", ".cache/jest-services.json", ".cache/jest-alone.json"].map((f) => { try { return require("./" + f); } catch { return {}; } });
  const sum = (k) => runs.reduce((n, r) => n + (r[k] ?? 0), 0);
  console.log(`\n${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests")} skipped`);
'
exit "$status"
