#!/usr/bin/env bash
# Collects the raw data of the verdict harness (issue 30, docs/verdicts.md): many small A/A
# comparisons on this machine, each trial one CSV row, so that every verdict method can be
# evaluated offline on the same data (bench/verdicts_eval.cc).
#
# Each run is one of (DESIGN=aa, the default: targets runs with a systems run every SYSTEMS_EVERY-th):
#  * targets: `batch-run native/disk-seq-write --targets A=plain,B=plain` with ROUNDS interleaved
#    rounds (FORCE_TIMES_TO_RUN), two freshly made identical targets: the design of the issue.
#  * systems (every SYSTEMS_EVERY-th run): PTS's way, the same profile run as two systems one after
#    the other in the ordinary test directory (no targets), each with PTS's dynamic run count
#    (TimesToRun 3, more while sd >= 2.5 %, at most 15 trials as PTS caps it).
#  * instances (DESIGN=instances): the honest design, `--targets A=plain,B=plain` with
#    run.target_instances=INSTANCES (targets A, B, A #2, B #2 ...), ROUNDS rounds in a random
#    order within each round; its verdict is the one batch-run prints.
#  * stopping (DESIGN=stopping): the product's own stopping, as a user runs it: INSTANCES pairs
#    to start with, a pair added while the verdict is unknown up to MAX_INSTANCES
#    (run.max_target_instances); the verdict `compare-results --paired` prints for the saved file
#    goes to OUT with .csv -> -verdicts.csv (design,run,verdict,ratio,low,high,pairs). Only A/A:
#    whether to add a pair depends on the data, so a known difference cannot be made afterwards by
#    scaling B's figures.
#  * defaults (DESIGN=defaults, issue 50): `--targets A=plain,B=plain` with nothing set, as a user
#    runs it: the default instances (run.target_instances, run.max_target_instances) and the
#    profile's own rounds; its printed verdict goes to -verdicts.csv as for stopping. WORKLOAD=disk
#    (the write below) or fs (native/fs-files: FILES files of FILE_SIZE, each fsynced).
#  * runs (DESIGN=runs, issue 50): separately run systems as a user runs them after reading
#    compare-results' advice: RUNS_EACH runs of A and of B (each a batch-run of its own in the
#    ordinary test directory, PTS's dynamic run count), in a random order, saved to one result as
#    "A", "A run 2" ... "B", "B run 2" ...; the verdict `compare-results` prints for B goes to -verdicts.csv
#    (design,run,verdict,ratio,low,high,runs).
# The disk workload is a SIZE sequential write, 1 MiB O_DIRECT blocks, fsync at the end.
#
#   bench/verdicts_collect.sh [build-dir]
#   env: DESIGN=aa|instances|stopping|defaults|runs WORKLOAD=disk|fs RUNS_EACH=3 FILES=200 FILE_SIZE=16k
#        INSTANCES=6 MAX_INSTANCES=12 RUNS=600 ROUNDS=5 SIZE=64m TARGET_SIZE=256m SYSTEMS_EVERY=3 WORK=<build-dir>/bench-verdicts
#        OUT=<WORK>/trials.csv (appended to: a collection can be stopped and resumed)
# Writes OUT (one row per trial) and OUT with .csv -> -runs.csv (one row per run):
#   trials: design,run,system,round,value,seconds
#   runs:   design,run,epoch,wall_seconds,load1,setup_seconds,teardown_seconds,rc
# Needs root (loop devices, mounts), like the targets themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${RUNS:-600}
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-64m}
TARGET_SIZE=${TARGET_SIZE:-256m}
SYSTEMS_EVERY=${SYSTEMS_EVERY:-3}
DESIGN=${DESIGN:-aa}
INSTANCES=${INSTANCES:-6}
MAX_INSTANCES=${MAX_INSTANCES:-12}
WORKLOAD=${WORKLOAD:-disk}
RUNS_EACH=${RUNS_EACH:-3}
FILES=${FILES:-200}
FILE_SIZE=${FILE_SIZE:-16k}
case "$WORKLOAD" in
  disk) PROFILE=native/disk-seq-write ;;
  fs) PROFILE=native/fs-files ;;
  *) echo "verdicts_collect: WORKLOAD=$WORKLOAD: expected disk or fs"; exit 2 ;;
esac
WORK=${WORK:-$BUILD/bench-verdicts}
[ "$(id -u)" -eq 0 ] || { echo "verdicts_collect: needs root (loop devices and mounts)"; exit 1; }
mkdir -p "$WORK/scratch" "$WORK/bin"
WORK=$(realpath "$WORK")
OUT=${OUT:-$WORK/trials.csv}
RUNS_OUT=${OUT%.csv}-runs.csv
VERDICTS_OUT=${OUT%.csv}-verdicts.csv
# A copy, so a rebuild while the collection runs does not change what it measures; a binary
# outside its build tree reads its bundled profiles from ../share/pts-native/, as installed.
cp "$BUILD/pts-native" "$WORK/bin/"
mkdir -p "$WORK/share/pts-native"
rm -rf "$WORK/share/pts-native/profiles" && cp -r "$(dirname "$0")/../profiles" "$WORK/share/pts-native/"
BIN=$WORK/bin/pts-native
export PTS_NATIVE_HOME=$WORK/home PTS_NATIVE_TEST_DIR=$WORK/scratch PTS_NATIVE_CONFIG=$WORK/none.yaml
unset MONITOR PRESET_OPTIONS FORCE_TIMES_TO_RUN TEST_RESULTS_IDENTIFIER TEST_RESULTS_NAME
unset PTS_NATIVE_TARGET_INSTANCES PTS_NATIVE_MAX_TARGET_INSTANCES PTS_NATIVE_SAME_WITHIN PTS_NATIVE_TIME_BUDGET
export PRESET_OPTIONS_VALUES="disk-seq-write.record-size=1m;disk-seq-write.file-size=$SIZE;disk-seq-write.direct=--direct --fsync end;fs-files.test=--files $FILES --file-size $FILE_SIZE"
export PTS_NATIVE_MAX_RUNS=15
"$BIN" targets --cleanup >/dev/null 2>&1 || true
"$BIN" install "$PROFILE" >/dev/null
[ -s "$OUT" ] || echo "design,run,system,round,value,seconds" > "$OUT"
[ -s "$RUNS_OUT" ] || echo "design,run,epoch,wall_seconds,load1,setup_seconds,teardown_seconds,rc" > "$RUNS_OUT"
case "$DESIGN" in stopping|defaults|runs) [ -s "$VERDICTS_OUT" ] || echo "design,run,verdict,ratio,low,high,pairs" > "$VERDICTS_OUT" ;; esac
first=$(($(tail -n +2 "$RUNS_OUT" | wc -l) + 1))

# trial rows of one --json-events stream: design run system-override (empty: the event's target)
trials_of() {
  jq -r --arg d "$1" --arg r "$2" --arg s "$3" \
    'select(.event == "trial-finished" and .ok and (.warmup | not))
     | [$d, $r, (if $s == "" then .target else $s end), .trial, (.value | split(",")[0]), .seconds] | @csv' "$4" |
    tr -d '"'
}
sum_of() { jq -s "[.[] | select(.event == \"$1\") | .$2] | add // 0" "$3"; }
# targets_run DESIGN PROFILE [VAR=VALUE...]: one A/A run of two plain targets as a user runs it
# (with the settings given), its trials, cost and printed verdict appended to the outputs.
# "    B: different: x0.912 [0.871, 0.955] (8 instance pairs, 16 rounds)" -> different,0.912,0.871,0.955,8
targets_run() {
  local design=$1 profile=$2; shift 2
  rc=0
  env "$@" TEST_RESULTS_NAME=aa "$BIN" batch-run "$profile" --targets A=plain,B=plain \
    --target-size "$TARGET_SIZE" --json-events > "$WORK/events.jsonl" 2>"$WORK/stderr.txt" || rc=$?
  wall=$(echo "$(date +%s.%N) - $epoch" | bc)
  trials_of "$design" "$run" "" "$WORK/events.jsonl" >> "$OUT"
  echo "$design,$run,$epoch,$wall,$load,$(sum_of target-ready setup_seconds "$WORK/events.jsonl"),$(sum_of target-removed teardown_seconds "$WORK/events.jsonl"),$rc" >> "$RUNS_OUT"
  "$BIN" compare-results aa --paired 2>/dev/null | sed -n 's/^    B: \([a-z]*\)[^:]*: x\([0-9.]*\) \[\([0-9.]*\), \([0-9.]*\)\] (\([0-9]*\) instance pairs.*/\1,\2,\3,\4,\5/p' |
    head -n 1 | sed "s/^/$design,$run,/" >> "$VERDICTS_OUT"
}

for run in $(seq "$first" "$RUNS"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  epoch=$(date +%s.%N)
  rm -rf --one-file-system "$WORK/home/test-results"
  if [ "$DESIGN" = instances ]; then
    rc=0
    PTS_NATIVE_TARGET_INSTANCES=$INSTANCES FORCE_TIMES_TO_RUN=$ROUNDS TEST_RESULTS_NAME=aa "$BIN" batch-run \
      native/disk-seq-write --targets A=plain,B=plain --target-size "$TARGET_SIZE" --json-events \
      > "$WORK/events.jsonl" 2>"$WORK/stderr.txt" || rc=$?
    wall=$(echo "$(date +%s.%N) - $epoch" | bc)
    trials_of instances "$run" "" "$WORK/events.jsonl" >> "$OUT"
    echo "instances,$run,$epoch,$wall,$load,$(sum_of target-ready setup_seconds "$WORK/events.jsonl"),$(sum_of target-removed teardown_seconds "$WORK/events.jsonl"),$rc" >> "$RUNS_OUT"
  elif [ "$DESIGN" = stopping ]; then
    targets_run stopping native/disk-seq-write PTS_NATIVE_TARGET_INSTANCES="$INSTANCES" \
      PTS_NATIVE_MAX_TARGET_INSTANCES="$MAX_INSTANCES" FORCE_TIMES_TO_RUN="$ROUNDS"
  elif [ "$DESIGN" = defaults ]; then
    targets_run defaults "$PROFILE"
  elif [ "$DESIGN" = runs ]; then
    rc=0
    order=$(for k in $(seq "$RUNS_EACH"); do echo "A $k"; echo "B $k"; done | shuf)
    while read -r s k; do
      id=$s
      [ "$k" -eq 1 ] || id="$s run $k"
      TEST_RESULTS_NAME=aa TEST_RESULTS_IDENTIFIER=$id "$BIN" batch-run "$PROFILE" --json-events \
        > "$WORK/events-run.jsonl" 2>"$WORK/stderr.txt" || rc=$?
      trials_of runs "$run" "$id" "$WORK/events-run.jsonl" >> "$OUT"
    done <<< "$order"
    wall=$(echo "$(date +%s.%N) - $epoch" | bc)
    echo "runs,$run,$epoch,$wall,$load,0,0,$rc" >> "$RUNS_OUT"
    # "    B: unknown: x1.034 [0.95, 1.12] (3 runs against 3) ..." -> unknown,1.034,0.95,1.12,3
    "$BIN" compare-results aa 2>/dev/null | sed -n 's/^    B: \([a-z]*\)[^:]*: x\([0-9.]*\) \[\([0-9.]*\), \([0-9.]*\)\] (\([0-9]*\) runs* against.*/\1,\2,\3,\4,\5/p' |
      head -n 1 | sed "s/^/runs,$run,/" >> "$VERDICTS_OUT"
  elif [ $((run % SYSTEMS_EVERY)) -eq 0 ]; then
    rc=0
    for s in A B; do
      TEST_RESULTS_NAME=aa TEST_RESULTS_IDENTIFIER=$s "$BIN" batch-run native/disk-seq-write --json-events \
        > "$WORK/events-$s.jsonl" 2>"$WORK/stderr.txt" || rc=$?
    done
    wall=$(echo "$(date +%s.%N) - $epoch" | bc)
    for s in A B; do trials_of systems "$run" "$s" "$WORK/events-$s.jsonl" >> "$OUT"; done
    echo "systems,$run,$epoch,$wall,$load,0,0,$rc" >> "$RUNS_OUT"
  else
    rc=0
    FORCE_TIMES_TO_RUN=$ROUNDS TEST_RESULTS_NAME=aa "$BIN" batch-run native/disk-seq-write \
      --targets A=plain,B=plain --target-size "$TARGET_SIZE" --json-events > "$WORK/events.jsonl" 2>"$WORK/stderr.txt" || rc=$?
    wall=$(echo "$(date +%s.%N) - $epoch" | bc)
    trials_of targets "$run" "" "$WORK/events.jsonl" >> "$OUT"
    echo "targets,$run,$epoch,$wall,$load,$(sum_of target-ready setup_seconds "$WORK/events.jsonl"),$(sum_of target-removed teardown_seconds "$WORK/events.jsonl"),$rc" >> "$RUNS_OUT"
  fi
  [ "$rc" -eq 0 ] || echo "run $run: exit $rc: $(tail -n 1 "$WORK/stderr.txt")" >&2
done
echo "verdicts_collect: $(tail -n +2 "$RUNS_OUT" | wc -l) runs in $RUNS_OUT, trials in $OUT"
