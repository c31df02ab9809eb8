#!/usr/bin/env bash
# Local backing services for the videos backend: MySQL (MariaDB), Redis,
# Elasticsearch and S3Proxy (S3 API on the local filesystem).
#
#   bash scripts/services.sh up [SERVICE...] | down [SERVICE...] | status
#
# See docs/local-services.md for the reasoning behind ports, versions and layout.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"

# ---------------------------------------------------------------------------
# Configuration: the same variables the application reads, so that the
# services always end up where the app will look for them.
# ---------------------------------------------------------------------------
DATABASE_URL="${DATABASE_URL:-mysql://root@127.0.0.1:3306/videos}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
ELASTICSEARCH_URL="${ELASTICSEARCH_URL:-http://127.0.0.1:9200}"
S3_ENDPOINT="${S3_ENDPOINT:-http://127.0.0.1:9000}"
S3_BUCKET="${S3_BUCKET:-videos}"
S3_ACCESS_KEY_ID="${S3_ACCESS_KEY_ID:-videos-local}"
S3_SECRET_ACCESS_KEY="${S3_SECRET_ACCESS_KEY:-videos-local-secret}"
S3_REGION="${S3_REGION:-us-east-1}"

SERVICES_DIR="${SERVICES_DIR:-$REPO_ROOT/.data}"
SERVICES_CACHE="${SERVICES_CACHE:-$REPO_ROOT/.cache}"

# Pinned versions: the newest 9.x integ-test-zip that resolves on Maven Central, and the
# newest S3Proxy (built for Java 17, filesystem backend still available).
ES_VERSION="${ES_VERSION:-9.5.3}"
S3PROXY_VERSION="${S3PROXY_VERSION:-4.1.0}"
# Pinned so a fresh machine resolves the same plugin instead of Maven's old default.
MAVEN_DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

ES_HEAP="${ES_HEAP:-512m}"
# 2 adds elasticsearch-2, a second node that joins the first, to what up, down and status handle.
ES_NODES="${ES_NODES:-1}"
# Node-to-node ports, fixed only when the nodes form a cluster (a single node picks its own).
ES_TRANSPORT_PORT="${ES_TRANSPORT_PORT:-9300}"
ES2_TRANSPORT_PORT="${ES2_TRANSPORT_PORT:-$((ES_TRANSPORT_PORT + 1))}"
S3PROXY_HEAP="${S3PROXY_HEAP:-256m}"
ES_USER="${ES_USER:-videos-es}"
ES_START_TIMEOUT="${ES_START_TIMEOUT:-180}"
# The integ-test zip ships no JDK, and Elasticsearch 9 needs Java 21 or newer: ES_JAVA_HOME, else the
# newest JDK of at least 21 under /usr/lib/jvm (Temurin 25 on these machines), else the `java` on PATH
# when it is new enough. S3Proxy and Maven run on the same Java.
MIN_JAVA=21
java_major() { # JAVA_HOME -> its major version, from the JDK's own release file
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null
}
find_java_home() {
  local home major best='' best_major=0
  if [[ -n "${ES_JAVA_HOME:-}" ]]; then echo "$ES_JAVA_HOME"; return; fi
  for home in /usr/lib/jvm/*/ $(command -v java >/dev/null && dirname "$(dirname "$(readlink -f "$(command -v java)")")"); do
    home="${home%/}"
    [[ -x "$home/bin/java" ]] || continue
    major="$(java_major "$home")"
    if [[ -n "$major" ]] && ((major >= MIN_JAVA && major > best_major)); then best="$home" best_major="$major"; fi
  done
  echo "$best"
}
ES_JAVA_HOME="$(find_java_home)"

LOG_DIR="$SERVICES_DIR/logs"
PID_DIR="$SERVICES_DIR/pids"
ES_DIR="$SERVICES_DIR/elasticsearch"
ES_HOME="$SERVICES_CACHE/elasticsearch-$ES_VERSION"
ES_ZIP="$SERVICES_CACHE/downloads/elasticsearch-$ES_VERSION.zip"
ES_PID_FILE="$ES_DIR/run/elasticsearch.pid"   # written by ES itself, hence in a dir it owns
ES2_DIR="$SERVICES_DIR/elasticsearch-2"
ES2_PID_FILE="$ES2_DIR/run/elasticsearch.pid"
S3PROXY_JAR="$SERVICES_CACHE/downloads/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
S3PROXY_DIR="$SERVICES_DIR/s3proxy"
S3_DATA_DIR="$SERVICES_DIR/s3"
# These pid files double as the "started by this script" markers: MySQL and
# Redis are only ever stopped by `down` when their pid file exists.
MYSQL_PID_FILE="$PID_DIR/mysql.pid"
REDIS_PID_FILE="$PID_DIR/redis.pid"
S3PROXY_PID_FILE="$PID_DIR/s3proxy.pid"
# URL each managed JVM was started for: one SERVICES_DIR holds one instance of
# each, so a request for another port must not be mistaken for "still booting".
ES_URL_FILE="$PID_DIR/elasticsearch.url"
ES2_URL_FILE="$PID_DIR/elasticsearch-2.url"
S3PROXY_URL_FILE="$PID_DIR/s3proxy.url"

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# parse_url URL -> sets U_SCHEME U_USER U_PASS U_HOST U_PORT U_PATH
parse_url() {
  local url="$1" re='^([A-Za-z][A-Za-z0-9+.-]*)://(([^:@/]*)(:([^@/]*))?@)?(\[[^]/]+\]|[^:/?#]+)(:([0-9]+))?(/[^?#]*)?'
  [[ "$url" =~ $re ]] || die "cannot parse URL: $url"
  U_SCHEME="${BASH_REMATCH[1]}"
  U_USER="$(urldecode "${BASH_REMATCH[3]}")"
  U_PASS="$(urldecode "${BASH_REMATCH[5]}")"
  U_HOST="${BASH_REMATCH[6]}"
  U_HOST="${U_HOST#[}"; U_HOST="${U_HOST%]}"
  U_PORT="${BASH_REMATCH[8]}"
  U_PATH="${BASH_REMATCH[9]}"
}

urldecode() { local s="${1//+/ }"; printf '%b' "${s//%/\\x}"; }

# Hide passwords when printing URLs.
redact() { sed -E 's#(://[^:/@]*:)[^@/]*@#\1***@#' <<<"$1"; }

# We only ever start servers for addresses that are on this machine.
is_local_host() {
  case "$1" in 127.*|localhost|::1|0.0.0.0|::) return 0 ;; *) return 1 ;; esac
}

tcp_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# pid_alive PIDFILE PATTERN: the pid in the file is running and really is the
# expected program (guards against a recycled pid after a reboot/crash).
pid_alive() {
  local file="$1" pattern="$2" pid
  [[ -s "$file" ]] || return 1
  pid="$(tr -dc '0-9' <"$file")"
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -Eq -- "$pattern"
}

# stop_pidfile NAME PIDFILE PATTERN GRACE_SECONDS
stop_pidfile() {
  local name="$1" file="$2" pattern="$3" grace="$4" pid i
  if ! pid_alive "$file" "$pattern"; then
    if [[ -f "$file" ]]; then
      rm -f "$file"
      echo "$name: not running (removed stale pid file)"
    else
      echo "$name: not started by this script (nothing to stop)"
    fi
    return 0
  fi
  pid="$(tr -dc '0-9' <"$file")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) ignored SIGTERM for ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$file"
  echo "$name: stopped (pid $pid)"
}

# wait_until SECONDS COMMAND...: poll until COMMAND succeeds.
wait_until() {
  local timeout="$1" deadline; shift
  deadline=$((SECONDS + timeout))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# wait_started SECONDS PIDFILE PATTERN COMMAND...: like wait_until, but gives up
# early once the process we just launched has died (e.g. port already taken),
# instead of sitting out the whole timeout.
wait_started() {
  local timeout="$1" pidfile="$2" pattern="$3" start=$SECONDS; shift 3
  until "$@"; do
    ((SECONDS - start < timeout)) || return 1
    if ((SECONDS - start >= 3)) && ! pid_alive "$pidfile" "$pattern"; then
      return 1
    fi
    sleep 0.5
  done
}

# same_url FILE URL NAME: the managed process serves URL, or we stop with advice.
same_url() {
  local recorded; recorded="$(cat "$1" 2>/dev/null || true)"
  [[ -z "$recorded" || "$recorded" == "$2" ]] && return 0
  die "$3 from this SERVICES_DIR is already running for $recorded, not $2; run 'down' first or use another SERVICES_DIR"
}

show_log_tail() {
  local file="$1"
  [[ -f "$file" ]] || return 0
  echo "----- last 40 lines of $file -----" >&2
  tail -n 40 "$file" >&2 || true
  echo "-----" >&2
}

apt_install() {
  command -v apt-get >/dev/null && [[ $EUID -eq 0 ]] || return 1
  log "installing $* with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2; }
}

require_cmd() {
  local cmd="$1" pkg="${2:-$1}"
  command -v "$cmd" >/dev/null || apt_install "$pkg" || die "'$cmd' is required (apt-get install $pkg)"
}

java_bin() {
  [[ -n "$ES_JAVA_HOME" && -x "$ES_JAVA_HOME/bin/java" ]] ||
    die "Elasticsearch $ES_VERSION needs Java $MIN_JAVA or newer, and none was found (ES_JAVA_HOME='${ES_JAVA_HOME}', /usr/lib/jvm, PATH): install one (e.g. Temurin 25 or openjdk-21-jdk-headless) or set ES_JAVA_HOME"
  echo "$ES_JAVA_HOME/bin/java"
}

# maven_fetch GAV DEST: copy one artifact from Maven Central into the cache.
# The local repository also lives in the cache so nothing leaks into ~/.m2.
maven_fetch() {
  local gav="$1" dest="$2"
  [[ -s "$dest" ]] && return 0
  command -v mvn >/dev/null || die "Maven (mvn) is required to download $gav"
  java_bin >/dev/null
  mkdir -p "$(dirname "$dest")"
  log "downloading $gav from Maven Central"
  local tmp mvn_log="$LOG_DIR/maven.log"
  tmp="$(mktemp -d "$(dirname "$dest")/.fetch.XXXXXX")"
  # Output goes to a log (Maven's -q still emits colour codes); shown on failure.
  if ! JAVA_HOME="$ES_JAVA_HOME" mvn -B -q "$MAVEN_DEPENDENCY_PLUGIN:copy" \
      -Dartifact="$gav" -DoutputDirectory="$tmp" -Dmdep.stripVersion=false \
      -Dmaven.repo.local="$SERVICES_CACHE/m2" >"$mvn_log" 2>&1 9>&-; then
    rm -rf "$tmp"
    sed 's/\x1b\[[0-9;]*m//g' "$mvn_log" | grep -m 1 '^\[ERROR\]' >&2 || show_log_tail "$mvn_log"
    echo "(full Maven output: $mvn_log)" >&2
    die "Maven could not download $gav (is Maven Central reachable?)"
  fi
  mv "$tmp"/* "$dest"
  rm -rf "$tmp"
}

# Zip extraction; unzip keeps the executable bits of bin/*, the fallbacks don't.
extract_zip() {
  local zip="$1" dest="$2"
  command -v unzip >/dev/null || apt_install unzip || true
  if command -v unzip >/dev/null; then
    unzip -q "$zip" -d "$dest"
  elif command -v python3 >/dev/null; then
    python3 -m zipfile -e "$zip" "$dest"
  else
    (cd "$dest" && "$ES_JAVA_HOME/bin/jar" xf "$zip")
  fi
}

# ---------------------------------------------------------------------------
# MySQL / MariaDB
# ---------------------------------------------------------------------------
mysql_config() {
  parse_url "$DATABASE_URL"
  MYSQL_HOST="$U_HOST"; MYSQL_PORT="${U_PORT:-3306}"
  MYSQL_USER="${U_USER:-root}"; MYSQL_PASS="$U_PASS"
  MYSQL_DB="${U_PATH#/}"
}

# "Answers" means a MySQL server replied, even if it then refused our user
# (1045 access denied, 1130 host not allowed): starting another one would not
# help, and mysql_up reports the login problem separately.
mysql_ping() {
  if command -v mysqladmin >/dev/null; then
    local out
    out="$(MYSQL_PWD="$MYSQL_PASS" mysqladmin --protocol=TCP -h "$MYSQL_HOST" -P "$MYSQL_PORT" \
      -u "$MYSQL_USER" --connect-timeout=2 ping 2>&1)" && return 0
    grep -Eq "error: '.*(1045|1130|Access denied|is not allowed)" <<<"$out"
  else
    tcp_open "$MYSQL_HOST" "$MYSQL_PORT"
  fi
}

mysql_client() {
  MYSQL_PWD="$MYSQL_PASS" mysql --protocol=TCP -h "$MYSQL_HOST" -P "$MYSQL_PORT" \
    -u "$MYSQL_USER" --connect-timeout=5 "$@"
}

mysql_server_bin() {
  local b
  for b in /usr/sbin/mariadbd /usr/sbin/mysqld "$(command -v mariadbd 2>/dev/null)" "$(command -v mysqld 2>/dev/null)"; do
    [[ -n "$b" && -x "$b" ]] && { echo "$b"; return 0; }
  done
  return 1
}

mysql_start() {
  local bin bind pids
  is_local_host "$MYSQL_HOST" ||
    die "MySQL is not answering at $MYSQL_HOST:$MYSQL_PORT, which is not a local address; start it there or point DATABASE_URL at a reachable server"
  bin="$(mysql_server_bin)" ||
    die "MySQL is not answering at $MYSQL_HOST:$MYSQL_PORT and no server is installed; install one (apt-get install mariadb-server) or point DATABASE_URL at a running server"
  [[ $EUID -eq 0 ]] || die "MySQL is not answering at $MYSQL_HOST:$MYSQL_PORT; starting $bin needs root"
  # A second mariadbd on the same datadir would fail on its locks; say so
  # plainly instead of timing out.
  if command -v pgrep >/dev/null && pids="$(pgrep -x 'mariadbd|mysqld' | paste -sd, -)" && [[ -n "$pids" ]]; then
    die "a MySQL/MariaDB server is already running (pid $pids) but not answering on $MYSQL_HOST:$MYSQL_PORT; fix DATABASE_URL or that server"
  fi
  bind="$MYSQL_HOST"; [[ "$bind" == localhost ]] && bind=127.0.0.1
  # /run is a tmpfs: after a reboot the socket directory is gone.
  install -d -o mysql -g mysql /run/mysqld 2>/dev/null || mkdir -p /run/mysqld
  touch "$LOG_DIR/mysql.log"; chown mysql: "$LOG_DIR/mysql.log" 2>/dev/null || true
  log "starting $bin on $bind:$MYSQL_PORT"
  start-stop-daemon --start --background --make-pidfile --pidfile "$MYSQL_PID_FILE" \
    --exec "$bin" -- --port="$MYSQL_PORT" --bind-address="$bind" --log-error="$LOG_DIR/mysql.log" 9>&-
  if ! wait_started 60 "$MYSQL_PID_FILE" 'mariadbd|mysqld' mysql_ping; then
    show_log_tail "$LOG_DIR/mysql.log"
    rm -f "$MYSQL_PID_FILE"
    die "MySQL did not come up on $MYSQL_HOST:$MYSQL_PORT (exited, or no answer within 60s)"
  fi
}

mysql_up() {
  local state=reused
  mysql_config
  if ! mysql_ping; then
    mysql_start
    state=started
  fi
  # The app connects to a named schema; make sure it exists (harmless if it
  # does). This is also the check that the configured user can log in at all.
  if command -v mysql >/dev/null; then
    local err sql="SELECT 1"
    [[ -n "$MYSQL_DB" ]] &&
      sql="CREATE DATABASE IF NOT EXISTS \`$MYSQL_DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
    err="$(mysql_client -e "$sql" 2>&1 >/dev/null)" ||
      log "warning: MySQL answers at $MYSQL_HOST:$MYSQL_PORT but as '$MYSQL_USER' this failed: $sql -> $err"
  fi
  report mysql "$(redact "$DATABASE_URL")" "$state"
}

mysql_down() {
  mysql_config
  if [[ -f "$MYSQL_PID_FILE" ]]; then
    stop_pidfile mysql "$MYSQL_PID_FILE" 'mariadbd|mysqld' 120
  else
    echo "mysql: left running (not started by this script)"
  fi
}

# ---------------------------------------------------------------------------
# Redis
# ---------------------------------------------------------------------------
redis_config() {
  parse_url "$REDIS_URL"
  REDIS_HOST="$U_HOST"; REDIS_PORT="${U_PORT:-6379}"; REDIS_USER="$U_USER"; REDIS_PASS="$U_PASS"
}

redis_ping() {
  if command -v redis-cli >/dev/null; then
    local out args=(-h "$REDIS_HOST" -p "$REDIS_PORT")
    # Only pass credentials that exist: an empty AUTH is itself an error reply.
    [[ -n "$REDIS_USER" ]] && args+=(--user "$REDIS_USER")
    if [[ -n "$REDIS_PASS" ]]; then
      out="$(REDISCLI_AUTH="$REDIS_PASS" timeout 3 redis-cli "${args[@]}" ping 2>&1)" || true
    else
      out="$(timeout 3 redis-cli "${args[@]}" ping 2>&1)" || true
    fi
    [[ "$out" == PONG* || "$out" == NOAUTH* ]]
  else
    tcp_open "$REDIS_HOST" "$REDIS_PORT"
  fi
}

redis_start() {
  local bind
  is_local_host "$REDIS_HOST" ||
    die "Redis is not answering at $REDIS_HOST:$REDIS_PORT, which is not a local address; start it there or point REDIS_URL at a reachable server"
  command -v redis-server >/dev/null ||
    die "Redis is not answering at $REDIS_HOST:$REDIS_PORT and redis-server is not installed; install it (apt-get install redis-server) or point REDIS_URL at a running server"
  case "$REDIS_HOST" in 127.0.0.1|localhost) bind="127.0.0.1 -::1" ;; *) bind="$REDIS_HOST" ;; esac
  mkdir -p "$SERVICES_DIR/redis"
  local args=(--daemonize yes --bind "$bind" --port "$REDIS_PORT" --save "" --appendonly no
    --dir "$SERVICES_DIR/redis" --logfile "$LOG_DIR/redis.log" --pidfile "$REDIS_PID_FILE")
  [[ -n "$REDIS_PASS" ]] && args+=(--requirepass "$REDIS_PASS")
  log "starting redis-server on $REDIS_HOST:$REDIS_PORT"
  redis-server "${args[@]}" >/dev/null 9>&-
  if ! wait_started 30 "$REDIS_PID_FILE" redis-server redis_ping; then
    show_log_tail "$LOG_DIR/redis.log"
    die "Redis did not come up on $REDIS_HOST:$REDIS_PORT (exited, or no answer within 30s)"
  fi
}

redis_up() {
  local state=reused
  redis_config
  if ! redis_ping; then
    redis_start
    state=started
  fi
  report redis "$(redact "$REDIS_URL")" "$state"
}

redis_down() {
  if [[ -f "$REDIS_PID_FILE" ]]; then
    stop_pidfile redis "$REDIS_PID_FILE" 'redis-server' 15
  else
    echo "redis: left running (not started by this script)"
  fi
}

# ---------------------------------------------------------------------------
# Elasticsearch (integ-test-zip: real server, minimal module set, no JDK)
# ---------------------------------------------------------------------------
es_config() {
  # ELASTICSEARCH_URL may list a cluster's nodes separated by commas, as the application takes it:
  # the first is node 1; the second, if any, is where elasticsearch-2 answers.
  local first="${ELASTICSEARCH_URL%%,*}" second=''
  [[ "$ELASTICSEARCH_URL" == *,* ]] && second="${ELASTICSEARCH_URL#*,}" && second="${second%%,*}"
  first="${first// /}"; second="${second// /}"
  parse_url "$first"
  ES_SCHEME="$U_SCHEME"; ES_HOST="$U_HOST"; ES_PORT="${U_PORT:-9200}"
  ES_BASE="${first%/}"
  if [[ -n "$second" ]]; then
    parse_url "$second"
    ES2_SCHEME="$U_SCHEME"; ES2_HOST="$U_HOST"; ES2_PORT="${U_PORT:-9200}"
    ES2_BASE="${second%/}"
  else
    ES2_SCHEME="$ES_SCHEME"; ES2_HOST="$ES_HOST"; ES2_PORT=$((ES_PORT + 1))
    ES2_BASE="$ES_SCHEME://$(host_port "$ES_HOST" "$ES2_PORT")"
  fi
}

# host_port HOST PORT: "host:port", with an IPv6 host in brackets.
host_port() { if [[ "$1" == *:* ]]; then echo "[$1]:$2"; else echo "$1:$2"; fi; }

# HTTP status of the health call; 000 when nothing answers.
es_health_code() {
  curl -s -o /dev/null -w '%{http_code}' --max-time "${2:-3}" \
    "$ES_BASE/_cluster/health?wait_for_status=yellow&timeout=${1:-1s}" 2>/dev/null || true
}

es_ready() { [[ "$(es_health_code 1s)" == 200 ]]; }

# Something that speaks the ES health API (even if not yellow yet).
es_answering() {
  curl -s --max-time 3 "$ES_BASE/_cluster/health?timeout=1s" 2>/dev/null | grep -q '"cluster_name"'
}

es_ensure_installed() {
  [[ -x "$ES_HOME/bin/elasticsearch" ]] && return 0
  maven_fetch "org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" "$ES_ZIP"
  log "extracting $(basename "$ES_ZIP")"
  local tmp; tmp="$(mktemp -d "$SERVICES_CACHE/.extract.XXXXXX")"
  extract_zip "$ES_ZIP" "$tmp"
  [[ -d "$tmp/elasticsearch-$ES_VERSION/bin" ]] || { rm -rf "$tmp"; die "unexpected layout in $ES_ZIP"; }
  chmod +x "$tmp/elasticsearch-$ES_VERSION/bin/"*
  # The server runs as $ES_USER, so the (root-owned) install must be world-readable.
  chmod -R a+rX "$tmp/elasticsearch-$ES_VERSION"
  mv "$tmp/elasticsearch-$ES_VERSION" "$ES_HOME"
  rm -rf "$tmp"
}

# Elasticsearch refuses to run as root, so root runs it as a dedicated
# unprivileged system user; anyone else simply runs it as themselves.
es_run_as() {
  if [[ $EUID -eq 0 ]]; then
    setpriv --reuid="$ES_USER" --regid="$ES_USER" --init-groups -- "$@"
  else
    "$@"
  fi
}

es_ensure_user() {
  [[ $EUID -eq 0 ]] || return 0
  id -u "$ES_USER" >/dev/null 2>&1 && return 0
  log "creating system user $ES_USER"
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin --comment "local Elasticsearch for videos backend" "$ES_USER"
}

# es_prepare_node DIR LOG_DIR SETTINGS: a node's data, tmp and run directories, its log directory,
# and its elasticsearch.yml, written on every start.
es_prepare_node() {
  local dir="$1" logs="$2" settings="$3" conf="$1/config"
  mkdir -p "$dir/data" "$dir/tmp" "$dir/run" "$logs"
  # Config lives with the data (ES_PATH_CONF) so the cached install stays pristine
  # and ES can create its keystore there.
  if [[ ! -f "$conf/jvm.options" ]]; then
    mkdir -p "$conf"
    cp -R "$ES_HOME/config/." "$conf/"
  fi
  printf '%s\n%s\n' "# Generated by scripts/services.sh on every start; edit the script, not this file." \
    "$settings" >"$conf/elasticsearch.yml"
  if [[ $EUID -eq 0 ]]; then
    chown -R "$ES_USER:$ES_USER" "$dir" "$logs"
  fi
  es_install_reachable
  if [[ $EUID -eq 0 ]]; then
    es_grant_traverse "$dir" "$logs"
  fi
  es_run_as test -w "$dir/data" ||
    die "user $ES_USER cannot write $dir/data; put SERVICES_DIR somewhere it can reach"
}

# What every node of ours shares: security off, no disk watermarks, wildcard deletes for tests.
ES_COMMON_SETTINGS='xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
action.destructive_requires_name: false'

# Node 1. A single node (the default) uses single-node discovery, as it always has. Able to form
# a cluster (ES_NODES=2, or elasticsearch-2 named), it listens for nodes on a fixed transport port
# and, on data that has never belonged to a cluster, bootstraps one with itself as the master.
es_write_config() {
  local discovery='discovery.type: single-node'
  if ((ES_CLUSTER)); then
    discovery="transport.port: $ES_TRANSPORT_PORT
discovery.seed_hosts: [\"$(host_port "$ES_HOST" "$ES_TRANSPORT_PORT")\"]"
    # Naming the first master again on data already in a cluster could bootstrap a second cluster.
    [[ -d "$ES_DIR/data/_state" ]] || discovery+=$'\ncluster.initial_master_nodes: ["videos-local-1"]'
  fi
  es_prepare_node "$ES_DIR" "$LOG_DIR/elasticsearch" "cluster.name: videos-local
node.name: videos-local-1
path.data: $ES_DIR/data
path.logs: $LOG_DIR/elasticsearch
network.host: $ES_HOST
http.port: $ES_PORT
$discovery
$ES_COMMON_SETTINGS"
}

# A checkout in a private directory (mktemp -d makes them 0700) hides the install
# from the unprivileged user: as root, let it pass through (o+x: enter, not list)
# the parent directories that stop it. Then fail clearly if it still cannot.
es_install_reachable() {
  es_ensure_user
  if [[ $EUID -eq 0 ]]; then
    es_grant_traverse "$ES_HOME"
  fi
  es_run_as test -x "$ES_HOME/bin/elasticsearch" ||
    die "user $ES_USER cannot read $ES_HOME; put SERVICES_CACHE somewhere world-readable"
}

# Adds o+x to each ancestor of the given paths that the ES user cannot enter.
es_grant_traverse() {
  local path dir
  for path in "$@"; do
    dir="$(dirname "$path")"
    while [[ "$dir" != "/" ]]; do
      if ! es_run_as test -x "$dir"; then
        log "letting $ES_USER pass through $dir (chmod o+x)"
        chmod o+x "$dir"
      fi
      dir="$(dirname "$dir")"
    done
  done
}

# es_can_start BASE HOST PORT SCHEME: only a plain-http node on a free local port; then the install.
es_can_start() {
  is_local_host "$2" || die "Elasticsearch is not answering at $1, which is not a local address"
  [[ "$4" == http ]] || die "can only start a plain-http Elasticsearch ($1)"
  if tcp_open "$2" "$3"; then
    die "port $2:$3 is taken by something that is not Elasticsearch"
  fi
  require_cmd setpriv util-linux
  java_bin >/dev/null
  es_ensure_installed
  es_ensure_user
}

# es_launch DIR PIDFILE LOG_DIR LAUNCHER_LOG: starts the node configured in DIR/config.
es_launch() {
  local dir="$1" pidfile="$2" logs="$3" launcher_log="$4"
  rm -f "$pidfile"
  # -d daemonizes after the node has started (or failed); -p records the server pid.
  if ! es_run_as env -u JAVA_HOME \
      ES_JAVA_HOME="$ES_JAVA_HOME" ES_PATH_CONF="$dir/config" ES_TMPDIR="$dir/tmp" \
      ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP ${ES_EXTRA_JAVA_OPTS:-}" \
      timeout "$ES_START_TIMEOUT" "$ES_HOME/bin/elasticsearch" -d -p "$pidfile" \
      </dev/null >>"$launcher_log" 2>&1 9>&-; then
    show_log_tail "$launcher_log"
    show_log_tail "$logs/$(es_log_name "$dir")"
    die "Elasticsearch failed to start"
  fi
}

# The server log of the node configured in DIR: ES names it after the cluster.
es_log_name() { echo "$(sed -n 's/^cluster\.name: //p' "$1/config/elasticsearch.yml" 2>/dev/null || true).log"; }

es_start() {
  es_can_start "$ES_BASE" "$ES_HOST" "$ES_PORT" "$ES_SCHEME"
  if ((ES_CLUSTER)) && tcp_open "$ES_HOST" "$ES_TRANSPORT_PORT"; then
    die "transport port $ES_HOST:$ES_TRANSPORT_PORT is taken; set ES_TRANSPORT_PORT to a free one"
  fi
  es_write_config
  echo "$ES_BASE" >"$ES_URL_FILE"
  log "starting Elasticsearch $ES_VERSION on $ES_HOST:$ES_PORT (heap $ES_HEAP$( ((ES_CLUSTER)) && echo ", able to form a cluster"))"
  es_launch "$ES_DIR" "$ES_PID_FILE" "$LOG_DIR/elasticsearch" "$LOG_DIR/elasticsearch-launcher.log"
  es_wait_until es_ready "reach yellow at $ES_BASE" "$ES_DIR" "$LOG_DIR/elasticsearch" "$LOG_DIR/elasticsearch-launcher.log"
}

# es_wait_until CHECK WHAT DIR LOG_DIR LAUNCHER_LOG: polls CHECK for ES_START_TIMEOUT seconds.
es_wait_until() {
  local check="$1" what="$2" deadline=$((SECONDS + ES_START_TIMEOUT))
  until "$check"; do
    if ((SECONDS >= deadline)); then
      show_log_tail "$5"
      show_log_tail "$4/$(es_log_name "$3")"
      die "Elasticsearch did not $what within ${ES_START_TIMEOUT}s"
    fi
    sleep 1
  done
}

es_wait_ready() {
  es_wait_until es_ready "reach yellow at $ES_BASE" "$ES_DIR" "$LOG_DIR/elasticsearch" "$LOG_DIR/elasticsearch-launcher.log"
}

es_up() {
  local state=reused
  es_config
  if es_ready; then
    :
  elif pid_alive "$ES_PID_FILE" 'org\.elasticsearch'; then
    same_url "$ES_URL_FILE" "$ES_BASE" elasticsearch
    # Ours and still booting (e.g. a concurrent `up`): wait, never start a second one.
    es_wait_ready
  elif es_answering; then
    es_wait_ready   # someone else's node, not yellow yet
  else
    es_start
    state=started
  fi
  report elasticsearch "$ES_BASE" "$state"
}

es_down() {
  stop_pidfile elasticsearch "$ES_PID_FILE" 'org\.elasticsearch' 60
  rm -f "$ES_URL_FILE"
}

# ---------------------------------------------------------------------------
# elasticsearch-2: a second node (data only) that joins node 1's cluster
# ---------------------------------------------------------------------------

# What node 1 says of itself: its cluster, its transport address and its discovery type.
es_node1_facts() {
  local facts
  facts="$(curl -s --max-time 5 "$ES_BASE/_nodes/_local?filter_path=nodes.*.transport_address,nodes.*.settings.cluster.name,nodes.*.settings.discovery.type" 2>/dev/null || true)"
  ES1_CLUSTER="$(sed -n 's/.*"cluster":{"name":"\([^"]*\)".*/\1/p' <<<"$facts")"
  ES1_TRANSPORT="$(sed -n 's/.*"transport_address":"\([^"]*\)".*/\1/p' <<<"$facts")"
  ES1_DISCOVERY="$(sed -n 's/.*"discovery":{"type":"\([^"]*\)".*/\1/p' <<<"$facts")"
  [[ -n "$ES1_CLUSTER" && -n "$ES1_TRANSPORT" ]]
}

# Node 2 answers as a member of node 1's cluster (it has found the master).
es2_joined() {
  curl -s --max-time 3 "$ES2_BASE/_cluster/health?timeout=1s&master_timeout=1s" 2>/dev/null |
    grep -q "\"cluster_name\":\"$ES1_CLUSTER\""
}

# Any cluster's node answers there.
es2_answering() {
  curl -s --max-time 3 "$ES2_BASE/_cluster/health?timeout=1s&master_timeout=1s" 2>/dev/null | grep -q '"cluster_name"'
}

# Data only: with two nodes Elasticsearch lets only one vote anyway, so node 1 stays the master,
# and stopping node 2 (down elasticsearch-2) is always safe for the cluster.
es2_start() {
  es_can_start "$ES2_BASE" "$ES2_HOST" "$ES2_PORT" "$ES2_SCHEME"
  if tcp_open "$ES2_HOST" "$ES2_TRANSPORT_PORT"; then
    die "transport port $ES2_HOST:$ES2_TRANSPORT_PORT is taken; set ES2_TRANSPORT_PORT to a free one"
  fi
  es_prepare_node "$ES2_DIR" "$LOG_DIR/elasticsearch-2" "cluster.name: $ES1_CLUSTER
node.name: videos-local-2
node.roles: [data]
path.data: $ES2_DIR/data
path.logs: $LOG_DIR/elasticsearch-2
network.host: $ES2_HOST
http.port: $ES2_PORT
transport.port: $ES2_TRANSPORT_PORT
discovery.seed_hosts: [\"$ES1_TRANSPORT\"]
$ES_COMMON_SETTINGS"
  echo "$ES2_BASE" >"$ES2_URL_FILE"
  log "starting a second Elasticsearch node on $ES2_HOST:$ES2_PORT (heap $ES_HEAP), joining $ES1_CLUSTER at $ES1_TRANSPORT"
  es_launch "$ES2_DIR" "$ES2_PID_FILE" "$LOG_DIR/elasticsearch-2" "$LOG_DIR/elasticsearch-2-launcher.log"
  es2_wait_joined
}

es2_wait_joined() {
  es_wait_until es2_joined "join the cluster $ES1_CLUSTER at $ES2_BASE" "$ES2_DIR" "$LOG_DIR/elasticsearch-2" \
    "$LOG_DIR/elasticsearch-2-launcher.log"
}

es2_up() {
  local state=reused
  es_config
  es_ready || die "elasticsearch-2 joins the node at $ES_BASE, which is not running"
  es_node1_facts || die "cannot read node 1's cluster and transport address from $ES_BASE/_nodes/_local"
  if es2_joined; then
    :
  elif pid_alive "$ES2_PID_FILE" 'org\.elasticsearch'; then
    same_url "$ES2_URL_FILE" "$ES2_BASE" elasticsearch-2
    es2_wait_joined   # ours and still booting
  elif es2_answering; then
    die "the node at $ES2_BASE belongs to another cluster than the one at $ES_BASE ($ES1_CLUSTER)"
  else
    # A single node refuses every node that would join it: it has to be restarted, which this
    # script never does to a node that others may be using.
    [[ "$ES1_DISCOVERY" != single-node ]] ||
      die "the node at $ES_BASE runs as a single node (discovery.type: single-node), which no other node can join; restart it able to form a cluster: bash scripts/services.sh down elasticsearch && ES_NODES=2 bash scripts/services.sh up"
    es2_start
    state=started
  fi
  report elasticsearch-2 "$ES2_BASE" "$state"
}

es2_down() {
  stop_pidfile elasticsearch-2 "$ES2_PID_FILE" 'org\.elasticsearch' 60
  rm -f "$ES2_URL_FILE"
}

# ---------------------------------------------------------------------------
# S3Proxy (S3 API backed by plain directories: one per bucket)
# ---------------------------------------------------------------------------
s3_config() {
  parse_url "$S3_ENDPOINT"
  S3_HOST="$U_HOST"; S3_PORT="${U_PORT:-80}"
  S3_BASE="${S3_ENDPOINT%/}"
}

s3_http_code() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$S3_BASE/" 2>/dev/null || true
}

s3_answering() { [[ "$(s3_http_code)" != 000 ]]; }

# An S3 server tags every answer with a request id; used to tell S3 from
# some unrelated web server squatting on the port.
s3_looks_like_s3() {
  curl -s -o /dev/null -D - --max-time 3 "$S3_BASE/" 2>/dev/null | grep -qi '^x-amz-request-id:'
}

# Signed S3 request (SigV4) using curl only, so no AWS CLI is needed.
s3_request() {
  local method="$1" path="$2"
  curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X "$method" \
    --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY_ID:$S3_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$S3_BASE/$path" 2>/dev/null || true
}

s3_ensure_bucket() {
  local code
  code="$(s3_request HEAD "$S3_BUCKET")"
  [[ "$code" == 200 ]] && return 0
  if [[ "$code" == 404 ]]; then
    log "creating bucket $S3_BUCKET"
    code="$(s3_request PUT "$S3_BUCKET")"
    [[ "$code" == 200 ]] && return 0
  fi
  die "bucket '$S3_BUCKET' is not usable at $S3_BASE (HTTP $code); check S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY"
}

s3_start() {
  is_local_host "$S3_HOST" || die "S3 is not answering at $S3_BASE, which is not a local address"
  [[ "$U_SCHEME" == http ]] || die "can only start a plain-http S3Proxy (S3_ENDPOINT=$S3_BASE)"
  local java; java="$(java_bin)"
  maven_fetch "org.gaul:s3proxy:$S3PROXY_VERSION:jar:jar-with-dependencies" "$S3PROXY_JAR"
  mkdir -p "$S3PROXY_DIR" "$S3_DATA_DIR"
  local conf="$S3PROXY_DIR/s3proxy.conf"
  # Regenerated each start so changed credentials/ports take effect; holds the
  # secret, hence private.
  (umask 077 && cat >"$conf" <<EOF
s3proxy.endpoint=http://$S3_HOST:$S3_PORT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$S3_ACCESS_KEY_ID
s3proxy.credential=$S3_SECRET_ACCESS_KEY
s3proxy.virtual-host=
jclouds.provider=filesystem
jclouds.identity=$S3_ACCESS_KEY_ID
jclouds.credential=$S3_SECRET_ACCESS_KEY
jclouds.filesystem.basedir=$S3_DATA_DIR
EOF
  )
  log "starting S3Proxy $S3PROXY_VERSION on $S3_HOST:$S3_PORT"
  # setsid: keep it out of the caller's session so Ctrl-C/terminal hangup won't kill it.
  setsid "$java" -Xms64m -Xmx"$S3PROXY_HEAP" -jar "$S3PROXY_JAR" --properties "$conf" \
    </dev/null >>"$LOG_DIR/s3proxy.log" 2>&1 9>&- &
  echo $! >"$S3PROXY_PID_FILE"
  echo "$S3_BASE" >"$S3PROXY_URL_FILE"
  if ! wait_started 60 "$S3PROXY_PID_FILE" s3proxy s3_answering; then
    show_log_tail "$LOG_DIR/s3proxy.log"
    rm -f "$S3PROXY_PID_FILE"
    die "S3Proxy did not come up on $S3_BASE (exited, or no answer within 60s)"
  fi
}

s3_up() {
  local state=reused
  s3_config
  if s3_answering; then
    s3_looks_like_s3 || die "port $S3_HOST:$S3_PORT answers HTTP but is not an S3 server"
  elif pid_alive "$S3PROXY_PID_FILE" s3proxy; then
    same_url "$S3PROXY_URL_FILE" "$S3_BASE" s3proxy
    wait_until 60 s3_answering || die "S3Proxy (pid $(cat "$S3PROXY_PID_FILE")) is running but not answering on $S3_BASE"
  else
    s3_start
    state=started
  fi
  s3_ensure_bucket
  report s3proxy "$S3_BASE/$S3_BUCKET" "$state"
}

s3_down() {
  stop_pidfile s3proxy "$S3PROXY_PID_FILE" s3proxy 20
  rm -f "$S3PROXY_URL_FILE"
}

# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------
report() { printf '%-14s %-8s %s\n' "$1" "$3" "$2"; }

status_line() {
  local name="$1" url="$2" up="$3" pidfile="$4" pattern="$5" who=external
  pid_alive "$pidfile" "$pattern" && who="started by this script, pid $(tr -dc '0-9' <"$pidfile")"
  if [[ "$up" == 1 ]]; then
    printf '%-14s %-5s %s (%s)\n' "$name" up "$url" "$who"
  else
    printf '%-14s %-5s %s\n' "$name" down "$url"
    STATUS_RC=3
  fi
}

# One `up`/`down` at a time: two concurrent `up`s must not start two of anything.
# Every daemon is launched with `9>&-`, otherwise it would inherit the lock and
# hold it for its whole life.
take_lock() {
  mkdir -p "$SERVICES_DIR" "$LOG_DIR" "$PID_DIR"
  exec 9>"$SERVICES_DIR/.services.lock"
  if ! flock -n 9; then
    log "waiting for another services.sh run to finish"
    flock -w 300 9 || die "another services.sh still holds $SERVICES_DIR/.services.lock after 300s"
  fi
}

ALL_SERVICES=(mysql redis elasticsearch elasticsearch-2 s3proxy)
[[ "$ES_NODES" == 1 || "$ES_NODES" == 2 ]] || die "ES_NODES must be 1 or 2, not '$ES_NODES'"

# The second node belongs to the defaults with ES_NODES=2, or while one this script started runs
# (so a plain `down` or `status` never forgets it).
es2_in_defaults() { [[ "$ES_NODES" == 2 ]] || pid_alive "$ES2_PID_FILE" 'org\.elasticsearch'; }

# select_services [NAME...]: the named services (validated), or the defaults.
select_services() {
  SELECTED=("$@")
  local n
  if ((${#SELECTED[@]} == 0)); then
    for n in "${ALL_SERVICES[@]}"; do
      [[ "$n" != elasticsearch-2 ]] || es2_in_defaults || continue
      SELECTED+=("$n")
    done
  fi
  for n in "${SELECTED[@]}"; do
    [[ " ${ALL_SERVICES[*]} " == *" $n "* ]] || die "unknown service '$n' (expected: ${ALL_SERVICES[*]})"
  done
  # Node 1 is started able to form a cluster only when a second node is wanted: the single node
  # everyone else uses stays exactly as it was.
  ES_CLUSTER=0
  if [[ "$ES_NODES" == 2 ]] || selected elasticsearch-2; then ES_CLUSTER=1; fi
}

selected() { [[ " ${SELECTED[*]} " == *" $1 "* ]]; }

# Stop order is the reverse of start order.
cmd_up() {
  select_services "$@"
  require_cmd curl
  take_lock
  if selected mysql; then mysql_up; fi
  if selected redis; then redis_up; fi
  # elasticsearch-2 joins node 1, so naming it brings node 1 up (or reuses it) first.
  if selected elasticsearch || selected elasticsearch-2; then es_up; fi
  if selected elasticsearch-2; then es2_up; fi
  if selected s3proxy; then s3_up; fi
}

cmd_down() {
  select_services "$@"
  take_lock
  if selected s3proxy; then s3_down; fi
  if selected elasticsearch-2; then es2_down; fi
  if selected elasticsearch; then es_down; fi
  if selected redis; then redis_down; fi
  if selected mysql; then mysql_down; fi
}

# Downloads and unpacks Elasticsearch without starting it: tests that stop a node start their own
# from this install, even where the shared one runs from elsewhere. Prints the install's path and
# the Java it runs on, one per line, so the version and the Java rule live only in this script.
cmd_install() {
  take_lock
  require_cmd setpriv util-linux
  java_bin >/dev/null
  es_ensure_installed
  es_install_reachable
  printf '%s\n%s\n' "$ES_HOME" "$ES_JAVA_HOME"
}

# Exit status 0 when every service listed is up, 3 (LSB "not running") otherwise.
cmd_status() {
  STATUS_RC=0
  local up
  mysql_config; up=0; mysql_ping && up=1
  status_line mysql "$(redact "$DATABASE_URL")" "$up" "$MYSQL_PID_FILE" 'mariadbd|mysqld'
  redis_config; up=0; redis_ping && up=1
  status_line redis "$(redact "$REDIS_URL")" "$up" "$REDIS_PID_FILE" redis-server
  es_config; up=0; es_answering && up=1
  status_line elasticsearch "$ES_BASE" "$up" "$ES_PID_FILE" 'org\.elasticsearch'
  if es2_in_defaults; then
    # Up only as a member of a cluster: a node that has not found its master does not count.
    up=0; es_answering && es_node1_facts && es2_joined && up=1
    status_line elasticsearch-2 "$ES2_BASE" "$up" "$ES2_PID_FILE" 'org\.elasticsearch'
  fi
  s3_config; up=0; s3_answering && up=1
  status_line s3proxy "$S3_BASE" "$up" "$S3PROXY_PID_FILE" s3proxy
  return "$STATUS_RC"
}

usage() {
  cat >&2 <<EOF
usage: $0 up [SERVICE...]     start (or reuse) services; default: all but elasticsearch-2
       $0 down [SERVICE...]   stop what this script started; default: all
       $0 status              one line per service: NAME up|down URL
       $0 install             download and unpack Elasticsearch without starting it
services: ${ALL_SERVICES[*]}
elasticsearch-2 is a second Elasticsearch node that joins the first (port + 1, or the second URL
in ELASTICSEARCH_URL); ES_NODES=2 makes it one of the defaults. See docs/local-services.md.
EOF
  exit 2
}

cmd="${1:-}"
(($#)) && shift
case "$cmd" in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status ;;
  install) cmd_install ;;
  *) usage ;;
esac
