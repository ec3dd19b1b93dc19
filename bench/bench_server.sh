#!/usr/bin/env bash
# Results-server benchmark on loopback: fetch of one stored result and protocol upload of a
# 100-result file, CONCURRENCY closed-loop keep-alive clients, SQLite and PostgreSQL side by side.
# Uploads are sent twice: as PTS encodes them when PHP has bzip2 (composite_xml_bz) and as on a
# stock Debian php-cli (composite_xml_gz, raw DEFLATE; also what Phoromatic accepts and what
# `pts-native upload-result` sends).
# Prints per case the median of RUNS runs: requests/s, p50 and p99 latency, server and client CPU
# per request, the server's context switches per request (voluntary + involuntary, all threads),
# for PostgreSQL the database's CPU per request (every process of the cluster; SQLite's work is in
# the server's own figure), and whether the goal (p99 < 50 ms) is met.
#   bench/bench_server.sh [BUILD_DIR]      RUNS=3 FETCHES=5000 UPLOADS=1000 CONCURRENCY=50
# Last, the per-phase CPU of one upload (bench_upload_phases: decode, bunzip2 (libbz2)/inflate,
# sha1, check, deflate for storage, insert).
# PostgreSQL: runs when PTSN_TEST_PG is set (eval "$(contrib/start-test-services.sh)").
# PHOROMATIC=1 also drives the real PTS's Phoromatic server (start-phoromatic-server, PTS source
# in PTS_SRC, default /tmp/pts-src; needs php-cli, php-xml, php-sqlite3 and root for unshare)
# with the same file as a Phoromatic client's result upload and prints the ratio (goal >= 10x).
#   PHOROMATIC_UPLOADS=100
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
RUNS="${RUNS:-3}" FETCHES="${FETCHES:-5000}" UPLOADS="${UPLOADS:-1000}" C="${CONCURRENCY:-50}"
SERVER="$BUILD/pts-native-server" LOAD="$BUILD/bench_load_client"
[ -x "$SERVER" ] && [ -x "$LOAD" ] || { echo "build pts-native-server, bench_load_client (and bench_upload_phases) first" >&2; exit 1; }
WORK="$(mktemp -d /tmp/ptsn-bench-server.XXXXXX)"
PIDS=() GROUPS_TO_KILL=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for g in "${GROUPS_TO_KILL[@]}"; do kill -- "-$g" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.*[ ]$1=\([0-9.]*\).*/\1/p"; }
cpu_ticks() { local p t=0; for p in $1; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
ctx_switches() { local p; for p in $1; do cat /proc/"$p"/task/*/status 2>/dev/null; done | awk '/ctxt_switches/ {s += $2} END {print s + 0}'; }
# The PostgreSQL cluster's processes (children of its postmaster), when one is being measured.
DB_POSTMASTER=""
db_pids() { [ -n "$DB_POSTMASTER" ] && ps -o pid= --ppid "$DB_POSTMASTER" | tr '\n' ' '; }
TICK="$(getconf CLK_TCK)"
declare -A RPS

# measure NAME "PID..." LOAD_ARGS...: RUNS runs; prints one line of medians; keeps rps in RPS[NAME].
measure() {
  local name="$1" pid="$2"; shift 2
  local rps=() p50=() p99=() scpu=() ccpu=() dcpu=() csw=() out t0 t1 d0 d1 c0 c1 n
  for _ in $(seq "$RUNS"); do
    t0="$(cpu_ticks "$pid")" c0="$(ctx_switches "$pid")" d0="$(cpu_ticks "$(db_pids)")"
    out="$("$LOAD" "$@")" || { echo "$name: load client reported errors: $out" >&2; }
    t1="$(cpu_ticks "$pid")" c1="$(ctx_switches "$pid")" d1="$(cpu_ticks "$(db_pids)")"
    n="$(echo "$out" | field requests)"
    rps+=("$(echo "$out" | field rps)"); p50+=("$(echo "$out" | field p50_ms)"); p99+=("$(echo "$out" | field p99_ms)")
    ccpu+=("$(echo "$out" | awk -v n="$n" '{for(i=1;i<=NF;i++) if($i ~ /^client_cpu_s=/){split($i,a,"="); printf "%.3f", a[2]*1000/n}}')")
    scpu+=("$(awk -v d="$((t1 - t0))" -v t="$TICK" -v n="$n" 'BEGIN {printf "%.3f", d / t * 1000 / n}')")
    dcpu+=("$(awk -v d="$((d1 - d0))" -v t="$TICK" -v n="$n" 'BEGIN {printf "%.3f", d / t * 1000 / n}')")
    csw+=("$(awk -v d="$((c1 - c0))" -v n="$n" 'BEGIN {printf "%.1f", d / n}')")
  done
  local mr mp db=""
  mr="$(printf '%s\n' "${rps[@]}" | median)"; mp="$(printf '%s\n' "${p99[@]}" | median)"
  RPS[$name]="$mr"
  [ -n "$DB_POSTMASTER" ] && db="  db $(printf '%s\n' "${dcpu[@]}" | median) ms"
  printf "%-36s %6s req/s  p50 %6s  p99 %6s ms  CPU/req: server %5s ms  client %5s ms%s  ctxsw/req %4s  p99<50ms: %s\n" \
    "$name" "$mr" "$(printf '%s\n' "${p50[@]}" | median)" "$mp" \
    "$(printf '%s\n' "${scpu[@]}" | median)" "$(printf '%s\n' "${ccpu[@]}" | median)" "$db" \
    "$(printf '%s\n' "${csw[@]}" | median)" "$(awk -v p="$mp" 'BEGIN {print (p < 50) ? "yes" : "NO"}')"
}

run_backend() {  # NAME ARGS...
  local name="$1"; shift
  "$SERVER" "$@" token create bench >"$WORK/token" 2>&1
  local token; token="$(tail -1 "$WORK/token")"
  "$SERVER" "$@" --listen 127.0.0.1:0 --write-rate 0 >"$WORK/server.out" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  # Up to 30 s: on a loaded machine a server opening its PostgreSQL pool took over 5 s once.
  for _ in $(seq 300); do grep -q listening "$WORK/server.out" && break; sleep 0.1; done
  local port; port="$(sed -n 's/.*listening.*127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/server.out" | head -1)"
  if [ -z "$port" ]; then echo "$name: the server did not start: $(tail -3 "$WORK/server.out")" >&2; return; fi
  # One stored 100-result file to fetch.
  "$LOAD" upload 127.0.0.1 "$port" "$token" 1 1 100 >/dev/null
  local one; one="$(curl -s "http://127.0.0.1:$port/api/v1/results?limit=1" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
  measure "$name fetch" "$pid" fetch 127.0.0.1 "$port" "/api/v1/results/$one/composite.xml" "$C" "$FETCHES"
  measure "$name upload (bz2, PTS+php-bz2)" "$pid" upload 127.0.0.1 "$port" "$token" "$C" "$UPLOADS" 100
  measure "$name upload (gz, stock PTS)" "$pid" upload-gz 127.0.0.1 "$port" "$token" "$C" "$UPLOADS" 100
  kill "$pid" 2>/dev/null || echo "$name: the server had exited before the end" >&2
  wait "$pid" 2>/dev/null || true
}

# The real Phoromatic server, started as `phoronix-test-suite start-phoromatic-server` does it
# for a user (throwaway PTS home, /etc read-only in a private mount namespace so that PTS, run
# as root, does not switch to its system-wide daemon paths), with one account and one approved
# system made directly in its SQLite database (what the web UI's sign-up and approval write).
run_phoromatic() {
  local src="${PTS_SRC:-/tmp/pts-src}" n="${PHOROMATIC_UPLOADS:-100}"
  local why=""
  [ -x "$src/phoronix-test-suite" ] || why="no PTS source at PTS_SRC=$src"
  [ -z "$why" ] && ! php -m 2>/dev/null | grep -qx sqlite3 && why="php-sqlite3 is not installed (apt-get install php-sqlite3)"
  [ -z "$why" ] && [ "$(id -u)" -ne 0 ] && why="needs root (unshare -m)"
  if [ -n "$why" ]; then echo "Phoromatic: not run: $why"; return; fi
  local home="$WORK/pts-home" port
  local user="$home/.phoronix-test-suite"
  mkdir -p "$user"
  python3 - "$src/pts-core/static/user-config-defaults.xml" "$user" >"$user/user-config.xml" <<'PY'
import re, sys
s = open(sys.argv[1]).read().replace("~/.phoronix-test-suite/", sys.argv[2] + "/")
for k, v in {"AnonymousUsageReporting": "FALSE", "NoInternetCommunication": "TRUE", "NoNetworkCommunication": "TRUE",
             "Configured": "TRUE", "AdvertiseServiceZeroConf": "FALSE", "AdvertiseServiceOpenBenchmarkRelay": "FALSE"}.items():
    s = re.sub(r"<%s>\w*</%s>" % (k, k), "<%s>%s</%s>" % (k, v, k), s)
sys.stdout.write(s)
PY
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  # stdin stays open (it waits for ENTER to stop); setsid gives a process group to end it by.
  # The sleep outlives the script: its stderr must not hold the caller's pipe open.
  (sleep 3600 2>/dev/null | setsid env PHOROMATIC_HTTP_PORT="$port" unshare -m sh -c \
     'mount --bind /etc /etc && mount -o remount,bind,ro /etc && exec "$@"' sh \
     env HOME="$home" PTS_USER_PATH_OVERRIDE="$user/" "$src/phoronix-test-suite" start-phoromatic-server \
     >"$WORK/phoromatic.out" 2>&1) &
  PIDS+=("$!")
  for _ in $(seq 120); do grep -q "Accessible At" "$WORK/phoromatic.out" 2>/dev/null && break; sleep 0.5; done
  local pgid; pgid="$(ps -eo pgid,cmd | awk -v p=":$port" '$0 ~ p && /php -S/ {print $1; exit}')"
  [ -n "$pgid" ] && GROUPS_TO_KILL+=("$pgid")
  if [ -z "$pgid" ]; then echo "Phoromatic: not run: the server did not start: $(tail -3 "$WORK/phoromatic.out")"; return; fi
  curl -s "http://127.0.0.1:$port/phoromatic.php?pts_core=10860&aid=BENCH1&msi=bench" >/dev/null  # creates its database
  local db="$user/phoromatic/phoromatic.db"
  mkdir -p "$user/phoromatic/accounts/BENCH1"
  python3 - "$db" <<'PY'
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1]); now = time.strftime('%Y-%m-%d %H:%M:%S')
c.execute("INSERT INTO phoromatic_accounts (AccountID, ValidateID, CreatedOn, Salt, GroupName) VALUES ('BENCH1','V',?,'s','bench')", (now,))
c.execute("INSERT INTO phoromatic_account_settings (AccountID) VALUES ('BENCH1')")
c.execute("INSERT INTO phoromatic_systems (AccountID, SystemID, Title, State, MachineSelfID, LastCommunication, CreatedOn, CoreVersion)"
          " VALUES ('BENCH1','SYS01','bench',1,'bench',?,?,10860)", (now, now))
c.commit()
PY
  local ppids; ppids="$(ps -eo pid,pgid,cmd | awk -v g="$pgid" '$2 == g && /php -S/ {print $1}' | tr '\n' ' ')"
  measure "Phoromatic upload (gz, its client)" "$ppids" phoromatic 127.0.0.1 "$port" BENCH1:bench "$C" "$n" 100 /phoromatic.php
  # Phoromatic numbers uploads MAX(UploadID)+1 outside any transaction: concurrent uploads get
  # the same number and overwrite each other, though every one was answered with an upload_id.
  local stored; stored="$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM phoromatic_results').fetchone()[0])" "$db")"
  echo "Phoromatic: $((RUNS * n)) uploads acknowledged, $stored stored (the rest overwrote each other: same UploadID)"
  local ours="${RPS[SQLite upload (gz, stock PTS)]:-0}"
  awk -v o="$ours" -v p="${RPS[Phoromatic upload (gz, its client)]}" \
    'BEGIN {r = p > 0 ? o / p : 0; ok = (r >= 10) ? "yes" : "NO"; printf "pts-native-server (SQLite, gz) / Phoromatic upload throughput: %.1fx  goal >= 10x: %s\n", r, ok}'
}

echo "pts-native-server, $C concurrent clients, median of $RUNS runs ($FETCHES fetches, $UPLOADS uploads each)"
echo "$(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_backend SQLite --data "$WORK/sqlite"
if [ -n "${PTSN_TEST_PG:-}" ]; then
  schema="bench_$$"
  psql "$PTSN_TEST_PG" -qc "CREATE SCHEMA $schema" >/dev/null
  pgdata="$(psql "$PTSN_TEST_PG" -Atqc "SHOW data_directory" 2>/dev/null || true)"
  [ -r "$pgdata/postmaster.pid" ] && DB_POSTMASTER="$(head -1 "$pgdata/postmaster.pid")"
  run_backend PostgreSQL --database "$PTSN_TEST_PG options='-csearch_path=$schema'" --data "$WORK/pg"
  DB_POSTMASTER=""
  PGOPTIONS="-c client_min_messages=warning" psql "$PTSN_TEST_PG" -qc "DROP SCHEMA $schema CASCADE" >/dev/null
else
  echo "PostgreSQL: not run (PTSN_TEST_PG is not set: eval \"\$(contrib/start-test-services.sh)\")"
fi
[ "${PHOROMATIC:-0}" = 1 ] && run_phoromatic
# Where one upload's server CPU goes, phase by phase (in-process, thread CPU time, no HTTP).
[ -x "$BUILD/bench_upload_phases" ] && "$BUILD/bench_upload_phases" 300 "$WORK/phases"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
