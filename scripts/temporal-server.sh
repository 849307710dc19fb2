#!/usr/bin/env bash
# A production-shaped Temporal for tests: the Temporal server itself (not the dev server) on
# PostgreSQL, for persistence and SQL visibility, on 127.0.0.1 only.
#
#   scripts/temporal-server.sh build                  build the server and temporal-sql-tool once
#   scripts/temporal-server.sh start <run-dir> [url]  PostgreSQL (or the one at postgres://url),
#                                                     schema, server, namespace, search attributes;
#                                                     prints the frontend address (host:port)
#   scripts/temporal-server.sh stop <run-dir>         stop the server, then its PostgreSQL
#   scripts/temporal-server.sh restart-server <run-dir>  stop and start the server only
#   scripts/temporal-server.sh address <run-dir>      print the frontend address if it is up
#
# The server is the Go module go.temporal.io/server at the version the cached Temporal CLI
# embeds (CLI v1.5.1 -> server v1.29.1), built with `go install` into
# ${XDG_CACHE_HOME:-~/.cache}/webdata-temporal/temporal-server-<version>/bin, keyed by version,
# like the CLI (scripts/setup.sh). Its schema files come from the module's source in the Go
# module cache. PostgreSQL is scripts/postgres.sh with its own data folder (<run-dir>/pg).
#
# Settings: WEBDATA_TEMPORAL_NAMESPACE (default "default"), WEBDATA_TEMPORAL_START_TIMEOUT
# (seconds to wait for the frontend, default 300: a busy machine is slow),
# WEBDATA_TEMPORAL_WATCH_PID (stop everything when this process dies; the test harness sets it).
# Only the address goes to stdout; progress goes to stderr.
set -euo pipefail

SERVER_VERSION=v1.29.1
SERVER_MODULE=go.temporal.io/server
CLI_VERSION=v1.5.1
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/webdata-temporal"
SERVER_DIR="$CACHE_ROOT/temporal-server-$SERVER_VERSION"
BIN_DIR="$SERVER_DIR/bin"
SERVER_BIN="$BIN_DIR/temporal-server"
SQL_TOOL="$BIN_DIR/temporal-sql-tool"
NAMESPACE="${WEBDATA_TEMPORAL_NAMESPACE:-default}"
START_TIMEOUT="${WEBDATA_TEMPORAL_START_TIMEOUT:-300}"

say() { echo "temporal-server.sh: $*" >&2; }
die() { say "$*"; exit 1; }

find_go() {
  if command -v go >/dev/null 2>&1; then command -v go; return 0; fi
  if [[ -x /usr/local/go/bin/go ]]; then echo /usr/local/go/bin/go; return 0; fi
  return 1
}

find_cli() {
  if [[ -n "${TEMPORAL_CLI_PATH:-}" && -x "$TEMPORAL_CLI_PATH" ]]; then echo "$TEMPORAL_CLI_PATH"; return 0; fi
  if command -v temporal >/dev/null 2>&1; then command -v temporal; return 0; fi
  local cached="$CACHE_ROOT/temporal-cli-$CLI_VERSION/temporal"
  if [[ ! -x "$cached" ]]; then
    say "building the Temporal CLI $CLI_VERSION (once)"
    (cd "$ROOT" && node --conditions=webdata-source --import tsx scripts/ensure-temporal-cli.ts >&2)
  fi
  [[ -x "$cached" ]] || return 1
  echo "$cached"
}

# The server module's source folder in the Go module cache (downloaded through the proxy once).
module_dir() {
  local go dir
  go="$(find_go)" || die "go is not installed (scripts/setup.sh installs it)"
  dir="$("$go" mod download -json "$SERVER_MODULE@$SERVER_VERSION" | sed -nE 's/^\s*"Dir": "(.*)",?$/\1/p')"
  [[ -d "$dir" ]] || die "go mod download $SERVER_MODULE@$SERVER_VERSION gave no folder"
  echo "$dir"
}

build() {
  if [[ -x "$SERVER_BIN" && -x "$SQL_TOOL" ]]; then
    say "server $SERVER_VERSION already built in $BIN_DIR"
    return 0
  fi
  local go
  go="$(find_go)" || die "go is not installed (scripts/setup.sh installs it)"
  mkdir -p "$SERVER_DIR"
  # One build at a time: parallel callers wait for it. The lock lives in a subshell, so no
  # process started later (PostgreSQL, the server) inherits it.
  (
    flock -w 3600 8 || die "timed out waiting for $SERVER_DIR/.build.lock"
    if [[ -x "$SERVER_BIN" && -x "$SQL_TOOL" ]]; then exit 0; fi
    started=$(date +%s)
    tmp="$(mktemp -d "$SERVER_DIR/.build.XXXXXX")"
    say "building $SERVER_MODULE $SERVER_VERSION (cmd/server, cmd/tools/sql) with $("$go" version | awk '{print $3}') into $BIN_DIR (once; takes minutes)"
    if ! GOBIN="$tmp" GOFLAGS="${GOFLAGS:--buildvcs=false}" "$go" install \
        "$SERVER_MODULE/cmd/server@$SERVER_VERSION" "$SERVER_MODULE/cmd/tools/sql@$SERVER_VERSION" >&2 8>&-; then
      rm -rf "$tmp"
      die "go install failed"
    fi
    mkdir -p "$BIN_DIR"
    mv "$tmp/sql" "$SQL_TOOL"
    mv "$tmp/server" "$SERVER_BIN"
    rm -rf "$tmp"
    say "built in $(( $(date +%s) - started ))s: $SERVER_BIN, $SQL_TOOL"
  ) 8>"$SERVER_DIR/.build.lock"
}

# --- start / stop ---------------------------------------------------------------------------

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# N distinct free loopback ports (held open together while choosing, so they differ), drawn
# from 20000-32767: the server stores membership ports in a smallint column, and the range
# stays below Linux's ephemeral ports (32768+), so no outgoing connection takes one meanwhile.
free_ports() {
  node -e '
    const net = require("node:net");
    const n = Number(process.argv[1]);
    const servers = [];
    const tried = new Set();
    const next = () => {
      if (servers.length === n) {
        console.log(servers.map((s) => s.address().port).join(" "));
        for (const s of servers) s.close();
        return;
      }
      if (tried.size > 2000) { console.error("no free loopback ports in 20000-32767"); process.exit(1); }
      let port;
      do port = 20000 + Math.floor(Math.random() * 12768); while (tried.has(port));
      tried.add(port);
      const s = net.createServer();
      s.once("error", next);
      s.listen(port, "127.0.0.1", () => { servers.push(s); next(); });
    };
    next();
  ' "$1"
}

pid_alive() { [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

# postgres://user[:password]@host[:port][/db] -> PG_USER PG_PASSWORD PG_HOST PG_PORT
parse_url() {
  local url="$1" rest userinfo hostport
  [[ "$url" =~ ^postgres(ql)?:// ]] || die "not a postgres:// URL: $url"
  rest="${url#*://}"
  rest="${rest%%/*}"
  rest="${rest%%\?*}"
  if [[ "$rest" == *@* ]]; then userinfo="${rest%@*}"; hostport="${rest##*@}"; else userinfo=postgres; hostport="$rest"; fi
  PG_USER="${userinfo%%:*}"
  if [[ "$userinfo" == *:* ]]; then PG_PASSWORD="${userinfo#*:}"; else PG_PASSWORD=""; fi
  PG_HOST="${hostport%%:*}"
  if [[ "$hostport" == *:* ]]; then PG_PORT="${hostport##*:}"; else PG_PORT=5432; fi
}

sql_tool() {
  local db="$1"; shift
  SQL_PASSWORD="$PG_PASSWORD" "$SQL_TOOL" --plugin postgres12 --endpoint "$PG_HOST" --port "$PG_PORT" \
    --user "$PG_USER" --database "$db" "$@" >>"$RUN_DIR/schema.log" 2>&1 \
    || { tail -n 20 "$RUN_DIR/schema.log" >&2; die "temporal-sql-tool $* failed on $db (see $RUN_DIR/schema.log)"; }
}

psql_q() {
  PGPASSWORD="$PG_PASSWORD" psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$1" -tAc "$2"
}

# Databases temporal and temporal_visibility with the server's schema, created with its SQL tool.
setup_schema() {
  local mod db sub
  mod="$(module_dir)"
  for db in temporal temporal_visibility; do
    if [[ "$db" == temporal ]]; then sub=temporal; else sub=visibility; fi
    if [[ "$(psql_q postgres "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]]; then
      say "creating database $db"
      sql_tool "$db" create-database
    fi
    if [[ "$(psql_q "$db" "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_version'")" != 1 ]]; then
      say "setting up the $sub schema in $db"
      sql_tool "$db" setup-schema -v 0.0
    fi
    sql_tool "$db" update-schema -d "$mod/schema/postgresql/v12/$sub/versioned"
    say "$db: schema version $(psql_q "$db" "SELECT curr_version FROM schema_version LIMIT 1")"
  done
}

write_config() {
  local ports
  read -r -a ports <<<"$(free_ports 9)"
  local fe_grpc=${ports[0]} fe_http=${ports[1]} fe_mem=${ports[2]} hi_grpc=${ports[3]} hi_mem=${ports[4]}
  local ma_grpc=${ports[5]} ma_mem=${ports[6]} wo_grpc=${ports[7]} wo_mem=${ports[8]}
  mkdir -p "$RUN_DIR/config"
  echo "127.0.0.1:$fe_grpc" >"$RUN_DIR/address"
  local conn="
        connectAddr: \"$PG_HOST:$PG_PORT\"
        connectProtocol: tcp
        user: \"$PG_USER\"
        password: \"$PG_PASSWORD\""
  cat >"$RUN_DIR/config/webdata.yaml" <<YAML
# Written by scripts/temporal-server.sh: a Temporal server $SERVER_VERSION on PostgreSQL, loopback only.
log:
  stdout: true
  level: ${WEBDATA_TEMPORAL_LOG_LEVEL:-warn}

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
      sql:
        pluginName: postgres12
        databaseName: temporal$conn
        maxConns: 12
        maxIdleConns: 12
        maxConnLifetime: 1h
    postgres-visibility:
      sql:
        pluginName: postgres12
        databaseName: temporal_visibility$conn
        maxConns: 5
        maxIdleConns: 5
        maxConnLifetime: 1h

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1

services:
  frontend:
    rpc:
      grpcPort: $fe_grpc
      httpPort: $fe_http
      membershipPort: $fe_mem
      bindOnIP: 127.0.0.1
  history:
    rpc:
      grpcPort: $hi_grpc
      membershipPort: $hi_mem
      bindOnIP: 127.0.0.1
  matching:
    rpc:
      grpcPort: $ma_grpc
      membershipPort: $ma_mem
      bindOnIP: 127.0.0.1
  worker:
    rpc:
      grpcPort: $wo_grpc
      membershipPort: $wo_mem
      bindOnIP: 127.0.0.1

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:$fe_grpc
      httpAddress: 127.0.0.1:$fe_http

dcRedirectionPolicy:
  policy: noop

dynamicConfigClient:
  filepath: $RUN_DIR/config/dynamicconfig.yaml
  pollInterval: 10s
YAML
  # What the package and its tests use: updates (raise budget), worker deployments
  # (versioning), schedules, Nexus-free. The server's defaults already allow most; set
  # explicitly so a future default change does not silently break the tests.
  cat >"$RUN_DIR/config/dynamicconfig.yaml" <<YAML
frontend.enableUpdateWorkflowExecution:
  - value: true
frontend.enableUpdateWorkflowExecutionAsyncAccepted:
  - value: true
frontend.enableExecuteMultiOperation:
  - value: true
frontend.workerVersioningDataAPIs:
  - value: true
frontend.workerVersioningWorkflowAPIs:
  - value: true
frontend.workerVersioningRuleAPIs:
  - value: true
system.enableDeploymentVersions:
  - value: true
system.enableDeployments:
  - value: true
# Tests list runs by search attribute right after they finish (the dev server raises it too).
frontend.namespaceRPS.visibility:
  - value: 100
limit.maxIDLength:
  - value: 255
# Task-queue fairness (server 1.29+): each tenant's fairnessKey gets its share of dispatch
# (src/devserver/fairness.ts names the same keys for the dev server).
matching.useNewMatcher:
  - value: true
matching.enableFairness:
  - value: true
YAML
}

start_server() {
  local addr started
  addr="$(cat "$RUN_DIR/address")"
  if pid_alive "$RUN_DIR/server.pid"; then
    say "server already running (pid $(cat "$RUN_DIR/server.pid"))"
  else
    if port_open "${addr##*:}"; then die "port ${addr##*:} on 127.0.0.1 is taken by another program"; fi
    say "starting the Temporal server $SERVER_VERSION on $addr (log: $RUN_DIR/server.log)"
    # Its own session: a Ctrl-C in the caller's terminal goes to the caller, which stops it.
    ( cd "$RUN_DIR" && exec setsid "$SERVER_BIN" --root "$RUN_DIR" --config config --env webdata --allow-no-auth start ) \
      </dev/null >>"$RUN_DIR/server.log" 2>&1 8>&- 9>&- &
    echo $! >"$RUN_DIR/server.pid"
  fi
  started=$(date +%s)
  local cli
  cli="$(find_cli)" || die "no Temporal CLI (scripts/setup.sh builds it)"
  until "$cli" operator cluster health --address "$addr" >/dev/null 2>&1; do
    if ! pid_alive "$RUN_DIR/server.pid"; then
      tail -n 30 "$RUN_DIR/server.log" >&2
      die "the server exited (see $RUN_DIR/server.log)"
    fi
    if (( $(date +%s) - started > START_TIMEOUT )); then
      tail -n 30 "$RUN_DIR/server.log" >&2
      die "the frontend did not answer on $addr within ${START_TIMEOUT}s"
    fi
    sleep 1
  done
  say "frontend serving on $addr after $(( $(date +%s) - started ))s"
}

# Keyword/Int/... names for the CLI, from the package's own list (src/search-attributes.ts).
search_attributes() {
  (cd "$ROOT" && node --conditions=webdata-source --import tsx --input-type=module -e '
    const { SEARCH_ATTRIBUTES } = await import("./src/search-attributes.ts");
    const names = { KEYWORD: "Keyword", TEXT: "Text", INT: "Int", DOUBLE: "Double", BOOL: "Bool", DATETIME: "Datetime", KEYWORD_LIST: "KeywordList" };
    for (const key of SEARCH_ATTRIBUTES) console.log(key.name, names[key.type]);
  ')
}

setup_namespace() {
  local addr cli started name type query=""
  addr="$(cat "$RUN_DIR/address")"
  cli="$(find_cli)"
  if ! "$cli" operator namespace describe --address "$addr" --namespace "$NAMESPACE" >/dev/null 2>&1; then
    say "creating namespace $NAMESPACE"
    "$cli" operator namespace create --address "$addr" --namespace "$NAMESPACE" --retention 72h >&2
  fi
  # A new namespace reaches the services' namespace registry within seconds (refreshed every 10 s).
  local existing
  started=$(date +%s)
  until existing="$("$cli" operator search-attribute list --address "$addr" --namespace "$NAMESPACE" 2>&1)"; do
    if (( $(date +%s) - started > START_TIMEOUT )); then
      echo "$existing" >&2
      die "namespace $NAMESPACE did not become usable within ${START_TIMEOUT}s"
    fi
    sleep 1
  done
  while read -r name type; do
    [[ -n "$name" ]] || continue
    if grep -qw "$name" <<<"$existing"; then continue; fi
    say "registering search attribute $name ($type)"
    "$cli" operator search-attribute create --address "$addr" --namespace "$NAMESPACE" --name "$name" --type "$type" >&2
  done < <(search_attributes)
  # Ready when visibility accepts a query on every attribute (namespace and attributes are
  # cached by the services; both refresh within seconds).
  while read -r name type; do
    [[ -n "$name" ]] || continue
    if [[ "$type" == Int ]]; then query+="${query:+ AND }$name >= 0"; else query+="${query:+ AND }$name = 'probe'"; fi
  done < <(search_attributes)
  started=$(date +%s)
  until "$cli" workflow count --address "$addr" --namespace "$NAMESPACE" --query "$query" >/dev/null 2>&1; do
    if (( $(date +%s) - started > START_TIMEOUT )); then
      "$cli" workflow count --address "$addr" --namespace "$NAMESPACE" --query "$query" >&2 || true
      die "visibility does not accept the search attributes after ${START_TIMEOUT}s"
    fi
    sleep 1
  done
  say "namespace $NAMESPACE ready, search attributes queryable after $(( $(date +%s) - started ))s"
}

stop_server() {
  local pid i
  if pid_alive "$RUN_DIR/server.pid"; then
    pid="$(cat "$RUN_DIR/server.pid")"
    say "stopping the server (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then say "still running after 60s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$RUN_DIR/server.pid"
}

pg_env() { env WEBDATA_PG_DIR="$RUN_DIR/pg" WEBDATA_PG_DB=temporal "$@"; }

# Stops everything when the process WEBDATA_TEMPORAL_WATCH_PID dies (e.g. a SIGKILLed test).
start_watchdog() {
  local watch="${WEBDATA_TEMPORAL_WATCH_PID:-}"
  [[ -n "$watch" ]] || return 0
  if pid_alive "$RUN_DIR/watch.pid"; then return 0; fi
  setsid bash "$ROOT/scripts/temporal-server.sh" _watch "$RUN_DIR" "$watch" </dev/null >>"$RUN_DIR/watch.log" 2>&1 8>&- 9>&- &
  echo $! >"$RUN_DIR/watch.pid"
}

start() {
  RUN_DIR="$(mkdir -p "$1" && cd "$1" && pwd)"
  local url="${2:-}"
  build
  # As root, PostgreSQL runs as the postgres user, which must be able to enter the run folder.
  if [[ "$(id -u)" == 0 ]]; then chmod a+x "$RUN_DIR"; fi
  start_watchdog
  # Whatever fails below (die, a failing command under set -e): stop what was started.
  START_DONE=""
  trap '[[ -n "$START_DONE" ]] || { say "start failed: stopping what it started"; stop_all; }' EXIT
  if [[ -z "$url" ]]; then
    if [[ -s "$RUN_DIR/pg-url" && -s "$RUN_DIR/pg-owned" ]]; then
      url="$(pg_env bash "$ROOT/scripts/postgres.sh" start)"
    else
      url="$(pg_env WEBDATA_PG_PORT="$(free_ports 1)" bash "$ROOT/scripts/postgres.sh" start)"
    fi
    echo yes >"$RUN_DIR/pg-owned"
  else
    rm -f "$RUN_DIR/pg-owned"
  fi
  echo "$url" >"$RUN_DIR/pg-url"
  parse_url "$url"
  setup_schema
  # Fresh ports unless this run folder's server is still up (restart-server keeps them).
  pid_alive "$RUN_DIR/server.pid" || write_config
  start_server
  setup_namespace
  START_DONE=yes
  cat "$RUN_DIR/address"
}

stop_all() {
  stop_server
  if [[ -s "$RUN_DIR/pg-owned" ]]; then
    pg_env bash "$ROOT/scripts/postgres.sh" stop || true
  fi
  if pid_alive "$RUN_DIR/watch.pid" && [[ "$(cat "$RUN_DIR/watch.pid")" != "$$" ]]; then
    kill "$(cat "$RUN_DIR/watch.pid")" 2>/dev/null || true
  fi
  rm -f "$RUN_DIR/watch.pid"
}

need_run_dir() {
  [[ -n "${1:-}" ]] || die "$cmd: give the run folder"
  [[ -d "$1" ]] || die "$cmd: no such folder: $1"
  RUN_DIR="$(cd "$1" && pwd)"
}

cmd="${1:-}"
case "$cmd" in
  build) build ;;
  start) [[ -n "${2:-}" ]] || die "start: give the run folder"; start "$2" "${3:-}" ;;
  stop) need_run_dir "${2:-}"; stop_all ;;
  restart-server)
    need_run_dir "${2:-}"
    stop_server
    parse_url "$(cat "$RUN_DIR/pg-url")"
    start_server
    setup_namespace
    cat "$RUN_DIR/address"
    ;;
  address)
    need_run_dir "${2:-}"
    pid_alive "$RUN_DIR/server.pid" || exit 1
    cat "$RUN_DIR/address"
    ;;
  _watch)
    RUN_DIR="$2"
    while kill -0 "$3" 2>/dev/null; do sleep 2; done
    echo "$(date -u +%FT%TZ) process $3 is gone: stopping" >&2
    stop_all
    ;;
  *) die "usage: $0 build | start <run-dir> [postgres-url] | stop <run-dir> | restart-server <run-dir> | address <run-dir>" ;;
esac
