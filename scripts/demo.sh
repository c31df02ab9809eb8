#!/usr/bin/env bash
# `npm run demo`: the whole system with the sample data on this machine, no Docker needed.
# Services up, migrations, the sample imported on first run, API and worker running, then a token
# and ready-to-paste curl commands. Ctrl-C stops what this run started, nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

export PORT="${PORT:-3000}" WORKER_PORT="${WORKER_PORT:-3001}" METRICS_PORT="${METRICS_PORT:-9464}"
# A development-only key: set JWT_SECRET yourself for anything shared.
export JWT_SECRET="${JWT_SECRET:-demo-only-secret-0123456789-abcdefghijklmnop}"
export ADMIN_USERNAME="${ADMIN_USERNAME:-admin}" ADMIN_PASSWORD="${ADMIN_PASSWORD:-demo-dashboard-password}"
say() { printf '\033[1m[demo]\033[0m %s\n' "$*"; }

source scripts/lib/node-env.sh

for port in "$PORT" "$WORKER_PORT" "$METRICS_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "Port $port is already in use: stop what runs there, or set PORT / WORKER_PORT / METRICS_PORT." >&2
    exit 1
  fi
done

# Services that are down now are the ones this run starts, and so the ones Ctrl-C stops.
mapfile -t started_services < <(bash scripts/services.sh status | awk '$2 == "down" { print $1 }')
children=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping"
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${#started_services[@]}" -gt 0 ]; then bash scripts/services.sh down "${started_services[@]}"; fi
}
trap cleanup INT TERM EXIT

bash scripts/services.sh up
say "building"
npm run build --silent
cli() { node dist/apps/worker/src/cli.js "$@"; }
# A bad setting stops here, with the message naming it (set -e), before anything reads the answer.
setup=$(cli setup)
videos=$(node -e 'console.log(JSON.parse(process.argv[1]).videos)' "$setup")
if [ "$videos" = "0" ]; then
  say "first run: importing the sample (data/pyvideo.jsonl.gz)"
  cli import
else
  say "database already holds $videos videos (re-import with: npm run cli -- import)"
fi

mkdir -p .data/logs
node dist/apps/api/src/main.js >>.data/logs/api.log 2>&1 &
children+=("$!")
node dist/apps/worker/src/main.js >>.data/logs/worker.log 2>&1 &
children+=("$!")
for port in "$PORT" "$WORKER_PORT"; do
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$port/health/ready" >/dev/null && break
    for pid in "${children[@]}"; do kill -0 "$pid" 2>/dev/null || { tail -n 20 .data/logs/*.log; exit 1; }; done
    sleep 0.5
  done
done

TOKEN=$(cli token --sub demo-admin --role admin --ttl 12h)
BASE="http://127.0.0.1:$PORT"
read -r FIRST SECOND < <(curl -fs -H "Authorization: Bearer $TOKEN" "$BASE/api/videos/search?q=asyncio&limit=2" |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).items.map(i=>i.id).join(" ")))')

cat <<MSG

API     $BASE           (logs: .data/logs/api.log)
Worker  http://127.0.0.1:$WORKER_PORT   (logs: .data/logs/worker.log)

Development token (admin, 12 h):
export TOKEN=$TOKEN

Search:
curl -s -H "Authorization: Bearer \$TOKEN" '$BASE/api/videos/search?q=asyncio&limit=5'

Soft delete (30-day retention; retentionDays=N overrides):
curl -s -X DELETE -H "Authorization: Bearer \$TOKEN" '$BASE/api/videos/${FIRST:-<id>}'

Permanent delete (files removed from object storage by the worker):
curl -s -X DELETE -H "Authorization: Bearer \$TOKEN" '$BASE/api/videos/${SECOND:-<id>}?permanent=true'

Queue dashboard:  $BASE/admin/queues  (user $ADMIN_USERNAME, password $ADMIN_PASSWORD)
API docs:         $BASE/docs
Metrics:          http://127.0.0.1:$METRICS_PORT/metrics (API) and http://127.0.0.1:$WORKER_PORT/metrics (worker)

A token for another caller: npm run cli -- token --sub <authorId> [--role admin] [--ttl 1h]
Ctrl-C stops the API, the worker and any service this run started.
MSG
wait
