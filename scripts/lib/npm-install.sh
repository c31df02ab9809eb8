# Sourced: `install_locked` installs exactly what package-lock.json pins (`npm install --no-save`
# leaves the lock untouched; `npm ci` refuses it because the registry reachable here lacks other
# platforms' optional binaries, so the lock cannot list them).
# The registry sometimes drops a connection mid-body (EIDLETIMEOUT, ECONNRESET): npm retries each
# request, and the whole install is tried again up to three times; what was fetched stays in npm's cache.
install_locked() {
  local attempt
  for attempt in 1 2 3; do
    if npm install --no-audit --no-fund --no-save \
      --fetch-retries=5 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=30000; then
      return 0
    fi
    echo "[npm] install attempt $attempt of 3 failed" >&2
    [ "$attempt" -lt 3 ] && sleep $((attempt * 10))
  done
  echo "[npm] could not install the locked dependencies: is registry.npmjs.org reachable?" >&2
  return 1
}
