#!/bin/bash
# Monitor overhead, ours beside PTS's, on an idle system.
#   bench/bench_monitor.sh [BUILD_DIR]      (env: DURATION=30 RUNS=3 PTS_SRC=<PTS 10.8.6 checkout>)
# Ours: bench_monitor (one sampler thread; CPU time of that thread and of the process, % of one
# core, median of RUNS runs of DURATION idle seconds) for MONITOR=all and MONITOR=cpu.usage,memory.usage
# at 1 s and 0.1 s, PTS mode and native mode.
# PTS: bench/pts_system_monitor.php runs the real PTS sensor classes in PTS's process-per-sensor
# layout (needs php-cli with pcntl/posix and PTS_SRC); PTS cannot sample faster than 1 s
# (MONITOR_INTERVAL < 0.5 is ignored, and its sleep() takes whole seconds), so it runs at 1 s.
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
DURATION=${DURATION:-30}
RUNS=${RUNS:-3}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for sensors in all cpu.usage,memory.usage; do
  echo "== ours: MONITOR=$sensors, PTS mode"
  "$build/bench/bench_monitor" --sensors "$sensors" --intervals 1,0.1 --duration "$DURATION" --runs "$RUNS"
  echo "== ours: MONITOR=$sensors, native mode"
  "$build/bench/bench_monitor" --sensors "$sensors" --intervals 1,0.1 --duration "$DURATION" --runs "$RUNS" --native
done

if [ -n "$PTS_SRC" ] && command -v php >/dev/null; then
  for sensors in all cpu.usage,memory.usage; do
    echo "== PTS 10.8.6 (process per sensor): MONITOR=$sensors @1s, $RUNS runs of ${DURATION}s"
    values=""
    for r in $(seq "$RUNS"); do
      line=$(php "$here/pts_system_monitor.php" --pts "$PTS_SRC" --duration "$DURATION" --interval 1 --sensors "$sensors" | tail -1)
      echo "   $line"
      values="$values $(echo "$line" | sed -n 's/.* = \([0-9.]*\)% of one core.*/\1/p')"
    done
    echo "   median: $(echo $values | tr ' ' '\n' | median)% of one core"
  done
else
  echo "== PTS: skipped (set PTS_SRC to a PTS 10.8.6 checkout and install php-cli)"
fi
