#!/usr/bin/env bash
# Storage targets (docs/targets.md), two figures, each beside its goal (issue 22):
#
# 1. Set-up and tear-down of a 1 GiB loop target (plain ext4 and fscrypt), from
#    `pts-native targets --check plain,fscrypt --target-size 1g --json`, REPEATS times: medians.
#    Goal: under 2 s each.
#
# 2. Speed of confidence: how long it takes to tell "fscrypt costs X % +- GOAL % (95 %)" against
#    plain ext4 on a sequential write (native/disk-seq-write, SIZE with 1 MiB O_DIRECT blocks,
#    fsync at the end), measured as wall time of whole commands, target set-up included:
#    (a) ours: one `batch-run --targets plain,fscrypt`, trials interleaved, rounds added until the
#        paired ratio's 95 % interval is within +-GOAL % (run.paired_ci_goal), at most MAX_ROUNDS;
#    (b) PTS's way: `--target-order sequential` (all trials on plain, then all on fscrypt, with
#        PTS's dynamic run count: TimesToRun 3, more while sd >= 2.5 %, its own cap of 15), and
#        as a PTS user would, the whole comparison run again (a new pass) until the trials of
#        all passes so far give a Welch 95 % interval of the ratio within +-GOAL % (at most PASSES).
#    bench/time_to_confidence reads the --json-events streams: for (a) the round at which the
#    paired interval got within the goal, for (b) the pooled interval after each pass.
#    When a way does not get there within MAX_ROUNDS / PASSES, its time to the goal is
#    extrapolated from its last interval (half-width ~ 1/sqrt(trials), so time ~ (half/GOAL)^2).
#    The two ways alternate which goes first, REPEATS times; the figures are per repeat and the
#    median of the per-repeat ratios time(b) / time(a). Goal: (a) in at most a third of (b)'s time.
#
#   bench/bench_targets.sh [build-dir]
#   env: REPEATS=3 GOAL=2 SIZE=256m MAX_ROUNDS=60 PASSES=6 WORK=<dir on the disk to test, default build-dir/bench-targets>
#   WORK on a tmpfs (e.g. /dev/shm/bench-targets) puts the loop files in RAM: both targets are then
#   CPU/memory-bound, and the noise of the machine is what both share (loop direct I/O works on
#   tmpfs since Linux 6.6; the line before the figures says whether it is on).
# Needs root (loop devices, mounts), like the targets themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPEATS=${REPEATS:-3}
GOAL=${GOAL:-2}
SIZE=${SIZE:-256m}
MAX_ROUNDS=${MAX_ROUNDS:-60}
PASSES=${PASSES:-6}
WORK=${WORK:-$BUILD/bench-targets}
# What an earlier benchmark that was killed left (its record is in WORK/home), released first;
# never descend into a mount.
if [ -d "$WORK/home/targets" ]; then
  PTS_NATIVE_HOME=$WORK/home PTS_NATIVE_CONFIG=$WORK/none.yaml "$BUILD/pts-native" targets --cleanup || true
fi
rm -rf --one-file-system "$WORK"
mkdir -p "$WORK/scratch" "$WORK/bin"
WORK=$(realpath "$WORK")
# Copies, so a rebuild while the benchmark runs does not change (or break) what it measures.
cp "$BUILD/pts-native" "$BUILD/bench/time_to_confidence" "$WORK/bin/"
# Outside its build tree the binary reads its bundled profiles from ../share/pts-native/, as installed.
mkdir -p "$WORK/share/pts-native"
rm -rf "$WORK/share/pts-native/profiles" && cp -r "$(dirname "$0")/../profiles" "$WORK/share/pts-native/"
BIN=$WORK/bin/pts-native
TTC=$WORK/bin/time_to_confidence
[ "$(id -u)" -eq 0 ] || { echo "bench_targets: needs root (loop devices and mounts)"; exit 1; }
"$BIN" targets | grep -q '^fscrypt: available' || { "$BIN" targets; echo "bench_targets: fscrypt targets are not available here"; exit 1; }
export PTS_NATIVE_HOME=$WORK/home PTS_NATIVE_TEST_DIR=$WORK/scratch PTS_NATIVE_CONFIG=$WORK/none.yaml
unset MONITOR PRESET_OPTIONS FORCE_TIMES_TO_RUN TEST_RESULTS_IDENTIFIER
export PRESET_OPTIONS_VALUES="disk-seq-write.record-size=1m;disk-seq-write.file-size=$SIZE;disk-seq-write.direct=--direct --fsync end"
export PTS_NATIVE_MAX_RUNS=$MAX_ROUNDS PTS_NATIVE_PAIRED_CI_GOAL=$GOAL PTS_NATIVE_TIME_BUDGET=3600
"$BIN" install native/disk-seq-write >/dev/null

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }

echo "== 1. set-up and tear-down of a 1 GiB loop target (median of $REPEATS; goal < 2 s each)"
: > "$WORK/check.txt"
for i in $(seq "$REPEATS"); do
  "$BIN" targets --check plain,fscrypt --target-size 1g --json > "$WORK/check.json"
  sed -n 's/.*"identifier": "\(.*\)",/\1/p; s/.*"setup_seconds": \([0-9.e-]*\).*/setup \1/p; s/.*"teardown_seconds": \([0-9.e-]*\).*/teardown \1/p' \
    "$WORK/check.json" | paste - - - >> "$WORK/check.txt"
done
for id in "plain ext4" "fscrypt AES-256-XTS ext4"; do
  up=$(grep -F "$id" "$WORK/check.txt" | awk '{print $(NF-2)}' | median)
  down=$(grep -F "$id" "$WORK/check.txt" | awk '{print $NF}' | median)
  printf "  %-26s set-up %6.3f s   tear-down %6.3f s   goal < 2 s: %s\n" "$id" "$up" "$down" \
    "$(awk -v a="$up" -v b="$down" 'BEGIN {print (a < 2 && b < 2) ? "yes" : "NO"}')"
done

echo "== 2. loop backing files on $(stat -f -c %T "$WORK/scratch") ($WORK); $(sed -n 's/.*"Device": "\(.*\)".*/\1/p' "$WORK/check.json" | head -n 1)"
echo "== 2. time to tell fscrypt's cost +-$GOAL % (95 %): sequential write $SIZE, 1 MiB O_DIRECT blocks"
run_paired() {  # -> "<seconds> <reached-line>"
  local start end
  start=$(now)
  TEST_RESULTS_NAME=paired-$1 "$BIN" batch-run native/disk-seq-write --targets plain,fscrypt --target-size 1g \
    --json-events > "$WORK/paired-$1.jsonl" 2> "$WORK/paired-$1.err" || true
  end=$(now)
  "$TTC" paired "$GOAL" "$WORK/paired-$1.jsonl" > "$WORK/paired-$1.ttc" || true
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}') $(tail -n 1 "$WORK/paired-$1.ttc")"
}
run_pts_way() {  # -> "<seconds> <reached-line>"
  local total=0 start end files=() p
  for p in $(seq "$PASSES"); do
    start=$(now)
    TEST_RESULTS_NAME=pts-$1-$p "$BIN" batch-run native/disk-seq-write --targets plain,fscrypt --target-size 1g \
      --target-order sequential --json-events > "$WORK/pts-$1-$p.jsonl" 2> "$WORK/pts-$1-$p.err" || true
    end=$(now)
    total=$(awk -v t="$total" -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", t + b - a}')
    files+=("$WORK/pts-$1-$p.jsonl")
    if "$TTC" unpaired "$GOAL" "${files[@]}" > "$WORK/pts-$1.ttc"; then break; fi
  done
  echo "$total $(tail -n 1 "$WORK/pts-$1.ttc") [$p pass(es)]"
}
to_goal() { sed -n 's/^\(not \)\{0,1\}reached: ~\{0,1\}\([0-9.]*\) s.*/\2/p' <<< "$1"; }
: > "$WORK/ratios.txt"
for r in $(seq "$REPEATS"); do
  if [ $((r % 2)) -eq 1 ]; then a=$(run_paired "$r"); b=$(run_pts_way "$r"); else b=$(run_pts_way "$r"); a=$(run_paired "$r"); fi
  echo "  repeat $r: (a) interleaved+paired, ran ${a%% *} s: ${a#* }"
  echo "            (b) PTS's way,          ran ${b%% *} s: ${b#* }"
  # Time to the goal: when it was reached, else extrapolated at the run's pace (time_to_confidence).
  ta=$(to_goal "${a#* }"); tb=$(to_goal "${b#* }")
  awk -v a="$ta" -v b="$tb" 'BEGIN {printf "%.3f\n", b / a}' >> "$WORK/ratios.txt"
  echo "            time to +-$GOAL %: (a) $ta s, (b) $tb s"
  # Where the noise is: pairing narrows the interval only as far as the two targets' trials of a
  # round move together (a positive within-round correlation).
  echo "            (a) $(grep '^noise' "$WORK/paired-$r.ttc")"
  echo "            (b) $(grep '^noise' "$WORK/pts-$r.ttc")"
done
ratio=$(median < "$WORK/ratios.txt")
echo "  time(b) / time(a): $(tr '\n' ' ' < "$WORK/ratios.txt")-> median $ratio   goal >= 3: $(awk -v r="$ratio" 'BEGIN {print (r >= 3 ? "yes" : "NO")}')"
echo "  ('not reached' times are extrapolated; streams and per-round lines in $WORK)"
