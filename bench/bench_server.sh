#!/usr/bin/env bash
# Results-server benchmark on loopback: fetch of one stored result and protocol upload of a
# 100-result file, 50 concurrent keep-alive clients, SQLite and PostgreSQL side by side.
# Prints requests/s and p99 latency per case (median of RUNS runs). Goal: p99 < 50 ms.
#   bench/bench_server.sh [BUILD_DIR]      RUNS=3 FETCHES=5000 UPLOADS=1000 CONCURRENCY=50
# The real PTS's Phoromatic server is not driven here (see the report in the commit/README).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
RUNS="${RUNS:-3}" FETCHES="${FETCHES:-5000}" UPLOADS="${UPLOADS:-1000}" C="${CONCURRENCY:-50}"
SERVER="$BUILD/pts-native-server" LOAD="$BUILD/bench_load_client"
[ -x "$SERVER" ] && [ -x "$LOAD" ] || { echo "build pts-native-server and bench_load_client first" >&2; exit 1; }
WORK="$(mktemp -d /tmp/ptsn-bench-server.XXXXXX)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

run_backend() {  # NAME ARGS...
  local name="$1"; shift
  "$SERVER" "$@" token create bench >"$WORK/token" 2>&1
  local token; token="$(tail -1 "$WORK/token")"
  "$SERVER" "$@" --listen 127.0.0.1:0 --write-rate 0 >"$WORK/server.out" 2>&1 &
  PIDS+=($!)
  local pid=$!
  for _ in $(seq 50); do grep -q listening "$WORK/server.out" && break; sleep 0.1; done
  local port; port="$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/server.out" | head -1)"
  # One stored 100-result file to fetch.
  local one; one="$("$LOAD" upload 127.0.0.1 "$port" "$token" 1 1 100 >/dev/null && \
    curl -s "http://127.0.0.1:$port/api/v1/results?limit=1" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
  local fr=() fp=() ur=() up=()
  for _ in $(seq "$RUNS"); do
    out="$("$LOAD" fetch 127.0.0.1 "$port" "/api/v1/results/$one/composite.xml" "$C" "$FETCHES")"
    fr+=("$(echo "$out" | field rps)"); fp+=("$(echo "$out" | field p99_ms)")
    out="$("$LOAD" upload 127.0.0.1 "$port" "$token" "$C" "$UPLOADS" 100)"
    ur+=("$(echo "$out" | field rps)"); up+=("$(echo "$out" | field p99_ms)")
  done
  printf "%-11s fetch  %8s req/s  p99 %7s ms | upload(100 results) %7s req/s  p99 %7s ms\n" "$name" \
    "$(printf '%s\n' "${fr[@]}" | median)" "$(printf '%s\n' "${fp[@]}" | median)" \
    "$(printf '%s\n' "${ur[@]}" | median)" "$(printf '%s\n' "${up[@]}" | median)"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

echo "pts-native-server, $C concurrent clients, median of $RUNS runs ($FETCHES fetches, $UPLOADS uploads each)"
run_backend SQLite --data "$WORK/sqlite"
if [ -x contrib/start-test-services.sh ]; then
  eval "$(contrib/start-test-services.sh)"
  schema="bench_$$"
  psql "$PTSN_TEST_PG" -qc "CREATE SCHEMA $schema" >/dev/null
  run_backend PostgreSQL --database "$PTSN_TEST_PG options='-csearch_path=$schema'" --data "$WORK/pg"
  psql "$PTSN_TEST_PG" -qc "DROP SCHEMA $schema CASCADE" >/dev/null
fi
