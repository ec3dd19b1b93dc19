#!/bin/bash
# Runner overhead benchmark: the trivial local profile (prints one number; 3 trials) run end to
# end in batch mode with the result saved, by pts-native and, when available, by the real PTS
# 10.8.6, side by side. The profile is the one shared/reference/tools/pts-setup.sh installs for
# PTS (its run script logs start/end timestamps to $TRIVIAL_TS), so the time spent inside the
# three trials can be subtracted: overhead per trial = (wall - time inside the run script) / 3.
#
#   bench/bench_runner.sh [BUILD_DIR]     (default: build)
#   env: RUNS (ours, default 7), PTS_RUNS (default 3; 0 = quote the 17.2 s anchor),
#        PTS_SRC (a PTS v10.8.6 checkout; without it the anchor is quoted), WORK (scratch)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
BUILD=$(cd "${1:-$REPO/build}" && pwd)
BIN="$BUILD/pts-native"
RUNS=${RUNS:-7}; PTS_RUNS=${PTS_RUNS:-3}
WORK=${WORK:-/tmp/ptsn-bench-runner}
SHARED=${SHARED:-$REPO/../shared}
ANCHOR=17.2
[ -x "$BIN" ] || { echo "build pts-native first (cmake --build $BUILD --target pts-native)" >&2; exit 2; }

rm -rf "$WORK"; mkdir -p "$WORK/home/test-profiles/local"
# The same profile pts-setup.sh gives PTS (copied out of that script's here-documents).
P="$WORK/home/test-profiles/local/trivial-1.0.0"; mkdir -p "$P"
awk -v dir="$P" '
  /^cat > "\$T\/test-definition.xml" <</ {f=dir "/test-definition.xml"; next}
  /^cat > "\$T\/results-definition.xml" <</ {f=dir "/results-definition.xml"; next}
  /^cat > "\$T\/install.sh" <</ {f=dir "/install.sh"; next}
  f && /^X$/ {f=""; next}
  f {print > f}' "$SHARED/reference/tools/pts-setup.sh"
[ -s "$P/install.sh" ] || { echo "could not extract the trivial profile from $SHARED/reference/tools/pts-setup.sh" >&2; exit 2; }

export PTS_NATIVE_HOME="$WORK/home" PTS_NATIVE_PTS_HOME="$WORK/no-pts" PTS_NATIVE_CONFIG="$WORK/none.yaml"
unset MONITOR PRESET_OPTIONS
"$BIN" install local/trivial > /dev/null

now() { date +%s.%N; }
# inside TS_FILE -> seconds spent between each "start" and its "end"
inside() { awk '$1=="start"{s=$2} $1=="end"{t+=$2-s} END{printf "%.4f", t}' "$1"; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

: > "$WORK/ours.txt"
for i in $(seq 1 "$RUNS"); do
  ts="$WORK/ts-$i"; : > "$ts"
  t0=$(now)
  TRIVIAL_TS="$ts" TEST_RESULTS_NAME="bench-$i" TEST_RESULTS_IDENTIFIER=bench FORCE_TIMES_TO_RUN=3 \
    "$BIN" batch-run local/trivial-1.0.0 > "$WORK/ours-$i.log" 2>&1 < /dev/null
  t1=$(now)
  [ -f "$WORK/home/test-results/bench-$i/composite.xml" ] || { echo "run $i saved nothing" >&2; cat "$WORK/ours-$i.log"; exit 1; }
  echo "$(echo "$t1 - $t0" | bc -l) $(inside "$ts")" >> "$WORK/ours.txt"
done
OUR_WALL=$(awk '{print $1}' "$WORK/ours.txt" | median)
OUR_INSIDE=$(awk '{print $2}' "$WORK/ours.txt" | median)
OUR_OVERHEAD_MS=$(awk '{print ($1-$2)/3*1000}' "$WORK/ours.txt" | median)

PTS_WALL=""; PTS_OVERHEAD_MS=""
if [ "$PTS_RUNS" -gt 0 ] && [ -n "${PTS_SRC:-}" ] && [ -x "$PTS_SRC/phoronix-test-suite" ] && command -v php > /dev/null; then
  PTS_HOME="$WORK/pts-home"
  PTS_SRC="$PTS_SRC" PTS_HOME="$PTS_HOME" sh "$SHARED/reference/tools/pts-setup.sh" > /dev/null
  : > "$WORK/pts.txt"
  for i in $(seq 1 "$PTS_RUNS"); do
    ts="$WORK/pts-ts-$i"; : > "$ts"
    t0=$(now)
    TRIVIAL_TS="$ts" TEST_RESULTS_NAME="bench-$i" TEST_RESULTS_IDENTIFIER=bench FORCE_TIMES_TO_RUN=3 \
      PTS_SRC="$PTS_SRC" PTS_HOME="$PTS_HOME" sh "$SHARED/reference/tools/pts-isolated.sh" \
      batch-benchmark local/trivial-1.0.0 > "$WORK/pts-$i.log" 2>&1 < /dev/null || true
    t1=$(now)
    [ -f "$PTS_HOME/.phoronix-test-suite/test-results/bench-$i/composite.xml" ] || { echo "PTS run $i saved nothing" >&2; tail "$WORK/pts-$i.log"; exit 1; }
    echo "$(echo "$t1 - $t0" | bc -l) $(inside "$ts")" >> "$WORK/pts.txt"
  done
  PTS_WALL=$(awk '{print $1}' "$WORK/pts.txt" | median)
  PTS_OVERHEAD_MS=$(awk '{print ($1-$2)/3*1000}' "$WORK/pts.txt" | median)
fi

printf '\ntrivial profile, 3 trials, batch mode, result saved (medians; ours %s runs)\n' "$RUNS"
printf '%-12s %10s %16s %22s\n' "" "wall (s)" "inside runs (s)" "overhead/trial (ms)"
printf '%-12s %10.3f %16.4f %22.1f\n' "pts-native" "$OUR_WALL" "$OUR_INSIDE" "$OUR_OVERHEAD_MS"
if [ -n "$PTS_WALL" ]; then
  printf '%-12s %10.3f %16s %22.1f   (measured here, %s runs)\n' "PTS 10.8.6" "$PTS_WALL" "" "$PTS_OVERHEAD_MS" "$PTS_RUNS"
  REF=$PTS_WALL
else
  printf '%-12s %10.1f %16s %22s   (anchor quoted from the brief, not measured here)\n' "PTS 10.8.6" "$ANCHOR" "" ""
  REF=$ANCHOR
fi
printf 'speed-up: %.0fx less wall time (goal >= 30x); overhead per trial %.1f ms (goal < 50 ms)\n' \
  "$(echo "$REF / $OUR_WALL" | bc -l)" "$OUR_OVERHEAD_MS"
