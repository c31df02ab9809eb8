#!/usr/bin/env bash
# The queue dashboard's browser test (test/e2e/dashboard.test.ts) drives Chromium at $CHROMIUM_PATH,
# by default Debian's /usr/bin/chromium (a test tool's own browser download is not possible here).
# Installs Debian's package when it is missing and this is a root shell with apt-get; otherwise fails
# at once, before anything is built or started, saying what to install.
set -euo pipefail

chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0

fail() {
  echo "scripts/test.sh: $1" >&2
  exit 1
}
missing="the dashboard test needs Chromium at /usr/bin/chromium, which is missing"
apt="apt-get update && apt-get install -y --no-install-recommends chromium"

# apt-get installs to /usr/bin/chromium only: another path must already hold a Chromium.
[ -z "${CHROMIUM_PATH:-}" ] ||
  fail "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file: point it at a Chromium executable, or unset it to use Debian's /usr/bin/chromium"
[ "$(id -u)" = 0 ] ||
  fail "$missing, and only root can install it: run \`sudo sh -c '$apt'\` (Debian's chromium package), or set CHROMIUM_PATH to a Chromium executable"
command -v apt-get >/dev/null ||
  fail "$missing, and this machine has no apt-get: install Chromium with its package manager and set CHROMIUM_PATH to its executable"

# apt-get's and dpkg's output goes to the log the services' installs use, shown only on failure.
log="$(cd "$(dirname "$0")/.." && pwd)/.data/logs/apt.log"
mkdir -p "$(dirname "$log")"
echo "[chromium] installing Debian's chromium for the dashboard test (log: .data/logs/apt.log)" >&2
if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; } >>"$log" 2>&1; then
  tail -n 20 "$log" >&2
  fail "apt-get could not install chromium (full output: $log)"
fi
[ -x "$chromium" ] || fail "apt-get installed chromium, yet $chromium is still missing"
