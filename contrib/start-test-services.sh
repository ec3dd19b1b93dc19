#!/usr/bin/env bash
# Starts the services the tests need and prints, as shell assignments, how to reach them:
#   eval "$(contrib/start-test-services.sh)"
# Today that is one throwaway PostgreSQL cluster on 127.0.0.1 (trust auth, loopback only) in
# /tmp, for the PostgreSQL storage tests. Idempotent: a cluster already answering is reused.
#   PTSN_PG_DIR (default /tmp/ptsn-test-pg)   PTSN_PG_PORT (default 55432)
# `contrib/start-test-services.sh --restart-pg` restarts that cluster (fast shutdown: open
# connections are cut), for the test of the server riding out a database restart.
set -euo pipefail
PGDATA="${PTSN_PG_DIR:-/tmp/ptsn-test-pg}"
PORT="${PTSN_PG_PORT:-55432}"
CONNINFO="host=127.0.0.1 port=$PORT user=postgres dbname=postgres"

PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [ -z "$PGBIN" ]; then
  echo "start-test-services: PostgreSQL is not installed (contrib/setup.sh installs it)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root: run it as the postgres user when we are root.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "${1:-}" = "--restart-pg" ]; then
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -w -t 60 -m fast restart >/dev/null
  exit 0
fi

if ! "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    rm -rf "$PGDATA"
    mkdir -p "$PGDATA"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$PGDATA"
    as_pg "$PGBIN/initdb" -D "$PGDATA" -A trust -U postgres --no-sync -E UTF8 >/dev/null
  fi
  # fsync off: a test database, thrown away; crash-safety of our own server is tested on
  # process kills, which do not need it.
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k /tmp -c fsync=off -c max_connections=200" start >/dev/null
fi
"$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"
echo "export PTSN_TEST_PG='$CONNINFO'"
# Started here, so the storage tests must use it: a PostgreSQL test that cannot fails.
echo "export PTSN_REQUIRE=${PTSN_REQUIRE:+$PTSN_REQUIRE,}pg"
