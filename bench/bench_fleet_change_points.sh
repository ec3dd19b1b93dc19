#!/usr/bin/env bash
# The fleet's regression detector (change points, server/fleet_regression) beside the rule it
# replaced, on synthetic histories drawn from real A/A trials (issue 30 item 6; docs/fleet-regressions.md).
#
#   bench/bench_fleet_change_points.sh [BUILD_DIR]   HISTORIES=200 LENGTH=100 TRIALS=3 SCALES="1 0.1"
#     runs build/bench/fleet_change_points on each data file in bench/data/aa-*.txt, at each spread
#     in SCALES (1: the data as measured; 0.1: the same noise shrunk tenfold on the log scale, as a
#     quiet machine would give): false alarms per 100 results (goal <= 1) and the share of
#     histories where a 5 % step is found within 5 results after it (goal >= 90 %), with 3 % and
#     10 % rows; then the disk data in time order (its drift kept); then the time to judge
#     100-300 results.
#   bench/bench_fleet_change_points.sh collect [BUILD_DIR]   RUNS=600 KIND=disk|cipher
#     collects the A/A data: RUNS repeated runs of the native workload on this machine, one
#     throughput per line, into bench/data/aa-KIND.txt (its header says how and when).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = collect ]; then
  BUILD="${2:-build}" RUNS="${RUNS:-600}" KIND="${KIND:-disk}"
  CLI="$BUILD/pts-native"
  [ -x "$CLI" ] || { echo "build pts-native first" >&2; exit 1; }
  case "$KIND" in
    disk) CMD=(workload disk --pattern seq-write --block-size 1m --size 64m --direct --dir /tmp/ptsn-aa --json) KEY=mib_per_s ;;
    cipher) CMD=(workload cipher --seconds 1 --json) KEY=encrypt_mib_per_s ;;
    *) echo "KIND: disk or cipher" >&2; exit 2 ;;
  esac
  mkdir -p /tmp/ptsn-aa bench/data
  OUT="bench/data/aa-$KIND.txt"
  {
    echo "# A/A trials: $RUNS runs of 'pts-native ${CMD[*]}', value $KEY, in the order measured."
    echo "# Collected by bench/bench_fleet_change_points.sh collect on $(date -u +%Y-%m-%d), $(nproc) cores,"
    echo "# $(uname -r), load average at start $(cut -d' ' -f1-3 /proc/loadavg), other work running beside it."
    for _ in $(seq "$RUNS"); do
      "$CLI" "${CMD[@]}" | python3 -c "import json,sys; print(json.load(sys.stdin)['$KEY'])"
    done
  } > "$OUT.tmp"
  mv "$OUT.tmp" "$OUT"
  rm -rf /tmp/ptsn-aa
  echo "$OUT: $(grep -vc '^#' "$OUT") trials"
  exit 0
fi
BUILD="${1:-build}"
TOOL="$BUILD/bench/fleet_change_points"
[ -x "$TOOL" ] || { echo "build fleet_change_points first (cmake --build $BUILD --target fleet_change_points)" >&2; exit 1; }
ARGS=(--histories "${HISTORIES:-200}" --length "${LENGTH:-100}" --trials "${TRIALS:-3}")
for data in bench/data/aa-*.txt; do
  for scale in ${SCALES:-1 0.1}; do
    "$TOOL" "$data" "${ARGS[@]}" --scale "$scale"
    echo
  done
done
"$TOOL" bench/data/aa-disk.txt "${ARGS[@]}" --scale 0.1 --ordered
echo
"$TOOL" bench/data/aa-disk.txt --timing
