# Sourced by the README's commands: installs the locked dependencies when they are missing or older
# than package-lock.json (on Node 24, fetched first when the Node that runs npm is older:
# scripts/lib/npm-install.sh), and puts the project's own Node.js (the `node` dev dependency, Node 24
# LTS from the npm registry) first on PATH, so any Node >= 20 that runs npm is enough to start with.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[node] installing the locked dependencies" >&2
  source "$(dirname "${BASH_SOURCE[0]}")/npm-install.sh"
  install_locked || exit 1
fi
export PATH="$PWD/node_modules/.bin:$PATH"
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 24 ? 0 : 1)'; then
  echo "[node] expected Node 24 at node_modules/.bin/node, found $(node --version): run npm install" >&2
  exit 1
fi
