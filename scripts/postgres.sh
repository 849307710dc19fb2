#!/usr/bin/env bash
# A throwaway PostgreSQL server for the storage tests, on 127.0.0.1 only.
#
#   scripts/postgres.sh [start]   install if needed, start (or reuse), print its postgres:// URL
#   scripts/postgres.sh url       print the URL if the server is running, else exit 1
#   scripts/postgres.sh stop      stop it (the data folder is kept for a fast restart)
#   scripts/postgres.sh destroy   stop it and delete the data folder
#
# Settings: WEBDATA_PG_DIR (default /tmp/webdata-pg, or /tmp/webdata-pg-$USER when not
# root; outside the repo), WEBDATA_PG_PORT
# (default: the port used last time, else the first free one from 54329), WEBDATA_PG_DB
# (default webdata_test). Only the URL goes to stdout; progress goes to stderr.
# Trust authentication on loopback and fsync off: for tests only, never for real data.
set -euo pipefail

# Per user when not root: the folder of another user could not be written.
if [[ "$(id -u)" == 0 ]]; then DEFAULT_DIR=/tmp/webdata-pg; else DEFAULT_DIR="/tmp/webdata-pg-$(id -un)"; fi
DIR="${WEBDATA_PG_DIR:-$DEFAULT_DIR}"
DB="${WEBDATA_PG_DB:-webdata_test}"
DATA="$DIR/data"
SOCK="$DIR/sock"
LOG="$DIR/server.log"
PORT_FILE="$DIR/port"
PGUSER_NAME=postgres

say() { echo "postgres.sh: $*" >&2; }
die() { say "$*"; exit 1; }

find_bindir() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then echo "$dir"; return 0; fi
  fi
  # Debian keeps the server binaries out of PATH, one folder per major version.
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"; return 0
  fi
  return 1
}

install_postgres() {
  command -v apt-get >/dev/null 2>&1 || die "PostgreSQL is not installed and apt-get is not available: install the PostgreSQL server (initdb, pg_ctl) and retry"
  [[ "$(id -u)" == 0 ]] || die "PostgreSQL is not installed: run 'apt-get install -y postgresql' as root, or this script as root"
  say "installing PostgreSQL with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # Try the cached package lists first; refresh them only if that fails.
  if ! apt-get install -y -q postgresql >&2; then
    apt-get update -q >&2 && apt-get install -y -q postgresql >&2 || die "apt-get install postgresql failed"
  fi
}

# Postgres refuses to run as root: as root, run the server tools as the postgres user.
as_pg() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u "$PGUSER_NAME" -- "$@"
  else
    "$@"
  fi
}

ensure_user() {
  [[ "$(id -u)" == 0 ]] || return 0
  if ! id "$PGUSER_NAME" >/dev/null 2>&1; then
    say "creating system user $PGUSER_NAME"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PGUSER_NAME"
  fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  if [[ -n "${WEBDATA_PG_PORT:-}" ]]; then echo "$WEBDATA_PG_PORT"; return; fi
  local port
  # The port of last time, unless another program took it meanwhile.
  if [[ -s "$PORT_FILE" ]]; then
    port="$(cat "$PORT_FILE")"
    if ! port_in_use "$port"; then echo "$port"; return; fi
  fi
  for port in $(seq 54329 54429); do
    if ! port_in_use "$port"; then echo "$port"; return; fi
  done
  die "no free port in 54329-54429; set WEBDATA_PG_PORT"
}

running() { [[ -d "$DATA" ]] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

url() { echo "postgres://$PGUSER_NAME@127.0.0.1:$(cat "$PORT_FILE")/$DB"; }

start() {
  ensure_user
  mkdir -p "$DIR"
  if [[ "$(id -u)" == 0 ]]; then chown "$PGUSER_NAME" "$DIR"; fi
  as_pg mkdir -p "$SOCK"
  # A data folder of another major version (the machine's PostgreSQL changed) is thrown away.
  local major
  major="$("$BIN/postgres" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"
  if [[ -s "$DATA/PG_VERSION" && "$(cat "$DATA/PG_VERSION")" != "$major" ]] && ! running; then
    say "data folder is for PostgreSQL $(cat "$DATA/PG_VERSION"), server is $major: re-creating it"
    rm -rf "$DATA"
  fi
  if [[ ! -s "$DATA/PG_VERSION" ]]; then
    rm -rf "$DATA"
    say "initdb in $DATA"
    as_pg "$BIN/initdb" -D "$DATA" -U "$PGUSER_NAME" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >&2 \
      || as_pg "$BIN/initdb" -D "$DATA" -U "$PGUSER_NAME" --auth=trust --encoding=UTF8 --locale=C >&2
  fi
  local port
  if running; then
    port="$(cat "$PORT_FILE")"
    say "already running on 127.0.0.1:$port"
  else
    local attempt
    for attempt in 1 2 3 4 5; do
      port="$(pick_port)"
      if port_in_use "$port"; then die "port $port on 127.0.0.1 is in use by another program; set WEBDATA_PG_PORT"; fi
      echo "$port" > "$PORT_FILE"
      say "starting on 127.0.0.1:$port (log: $LOG)"
      local mark
      mark=$(wc -l < "$LOG" 2>/dev/null || echo 0)
      # 9>&-: the server must not inherit (and so hold forever) the lock taken below.
      if as_pg "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start \
          -o "-c listen_addresses=127.0.0.1 -p $port -k $SOCK -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" >&2 9>&-; then
        break
      fi
      # Another server (another clone's, another user's) bound the port between the check and
      # the start: take the next free one, unless the port was asked for.
      if [[ -z "${WEBDATA_PG_PORT:-}" && $attempt -lt 5 ]] && tail -n "+$((mark + 1))" "$LOG" 2>/dev/null | grep -q "Address already in use"; then
        say "port $port was taken meanwhile; trying another"
        continue
      fi
      tail -n 20 "$LOG" >&2 || true
      die "pg_ctl start failed (see $LOG)"
    done
  fi
  local psql="$BIN/psql"
  [[ -x "$psql" ]] || psql="psql"
  if [[ "$(as_pg "$psql" -h 127.0.0.1 -p "$port" -U "$PGUSER_NAME" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]]; then
    say "creating database $DB"
    as_pg "$psql" -h 127.0.0.1 -p "$port" -U "$PGUSER_NAME" -d postgres -qc "CREATE DATABASE \"$DB\"" >&2
  fi
  url
}

stop() {
  if running; then
    say "stopping"
    as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2
  fi
}

cmd="${1:-start}"
BIN="$(find_bindir || true)"
if [[ -z "$BIN" ]]; then
  [[ "$cmd" == start ]] || { [[ "$cmd" == url ]] && exit 1; exit 0; }
  install_postgres
  BIN="$(find_bindir)" || die "PostgreSQL was installed but initdb/pg_ctl were not found"
fi

# The postgres user may not be able to enter the caller's folder.
cd /

# One caller at a time: parallel test processes may all try to start the server.
mkdir -p "$(dirname "$DIR")"
exec 9>"$DIR.lock"
flock -w 120 9 || die "timed out waiting for $DIR.lock"

case "$cmd" in
  start) start ;;
  url) running || exit 1; url ;;
  stop) stop ;;
  destroy) stop; rm -rf "$DIR" ;;
  *) die "unknown command '$cmd' (start, url, stop, destroy)" ;;
esac
