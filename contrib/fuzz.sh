#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, ASan and UBSan in build-fuzz/, writes their
# seed corpora (from ../shared when it is beside the checkout, else built-in samples), then either
# replays or explores. Fails on any finding (crash, sanitizer report, oracle failure, timeout, out
# of memory).
#
#   contrib/fuzz.sh --replay    what CI runs (.ci/run): every seed and every past finding
#                               (fuzz/regressions/<target>/) through each target once, nothing new
#                               tried. Deterministic: the same commit gives the same answer.
#   contrib/fuzz.sh             explore: mutate from the seeds for FUZZ_RUNS inputs (100,000), at
#                               most FUZZ_SECONDS (120) per target, two targets at a time. Run it
#                               before a change lands, and on demand for longer:
#   FUZZ_SEED=0 FUZZ_RUNS=-1 FUZZ_SECONDS=1800 contrib/fuzz.sh     random seed, 30 min each
#
# Exploration is bounded but not repeatable, even with the same FUZZ_SEED: that fixes libFuzzer's
# own choices only. libxml2 seeds its hash tables from the clock, and heap addresses (ASLR) reach
# the fuzzer through the comparisons it traces, so two runs of the same command try different
# inputs after the first few thousand (measured: same command, 30,000 inputs, coverage 1,748 vs
# 1,782). That is why it does not decide whether a submission lands. Its input that caused a
# finding is left in build-fuzz/fuzz/findings/<target>/: add it to fuzz/regressions/<target>/
# with the fix and a unit test, in the same commit, and the replay keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=explore
case "${1:-}" in
  --replay) MODE=replay ;;
  "") ;;
  *) echo "contrib/fuzz.sh: unknown option '$1' (--replay, or nothing to explore)" >&2; exit 2 ;;
esac
SECONDS_EACH=${FUZZ_SECONDS:-120}
RUNS=${FUZZ_RUNS:-100000}
SEED=${FUZZ_SEED:-1}
BUILD=${FUZZ_BUILD:-build-fuzz}
TARGETS=(result_file upload_form decompress results_parser profile_zip ob_answers request_stream path_below viewer_options)

# (Only the fuzz targets and what they link are built; the test targets are configured, not built.)
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DPTSN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target ptsn_fuzzers

OUT="$BUILD/fuzz"
rm -rf "$OUT/seeds" "$OUT/findings"
SHARED=../shared
[ -d "$SHARED/reference" ] || SHARED=""
"$OUT/fuzz_make_seeds" "$OUT/seeds" $SHARED

replay() {  # TARGET: every seed and past finding once; its log goes to $OUT/TARGET.log
  local t=$1 inputs=("$OUT/seeds/$t")
  [ -d "fuzz/regressions/$t" ] && inputs+=("fuzz/regressions/$t")
  # An empty first directory: libFuzzer may add inputs to the first one it is given, and the
  # seeds stay as written. -runs=0: run what is given, mutate nothing.
  rm -rf "$OUT/replay/$t"
  mkdir -p "$OUT/replay/$t" "$OUT/findings/$t"
  "$OUT/fuzz_$t" "$OUT/replay/$t" "${inputs[@]}" -runs=0 -seed=1 -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$OUT/findings/$t/" > "$OUT/$t.log" 2>&1
}

run() {  # TARGET: runs it for RUNS inputs or SECONDS_EACH; its log goes to $OUT/TARGET.log
  local t=$1
  # A fresh corpus each time: inputs kept from an earlier run would change what this one tries.
  rm -rf "$OUT/corpus/$t"
  mkdir -p "$OUT/corpus/$t" "$OUT/findings/$t"
  local extra=()
  [ -f "fuzz/$t.dict" ] && extra+=(-dict="fuzz/$t.dict")
  [ -d "fuzz/regressions/$t" ] && extra=("fuzz/regressions/$t" "${extra[@]}")
  "$OUT/fuzz_$t" "$OUT/corpus/$t" "$OUT/seeds/$t" "${extra[@]}" -seed="$SEED" -runs="$RUNS" \
    -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$OUT/findings/$t/" > "$OUT/$t.log" 2>&1
}

failed=()
pending=("${TARGETS[@]}")
while [ ${#pending[@]} -gt 0 ]; do
  batch=("${pending[@]:0:2}")
  pending=("${pending[@]:2}")
  pids=()
  for t in "${batch[@]}"; do
    if [ "$MODE" = replay ]; then replay "$t" & else run "$t" & fi
    pids+=($!)
  done
  for i in "${!batch[@]}"; do
    t=${batch[$i]}
    if wait "${pids[$i]}"; then
      n=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/$t.log" | grep -o '[0-9]*$')
      if [ "$MODE" = replay ]; then echo "fuzz_$t: replayed $n inputs (seeds and past findings), no finding"
      else echo "fuzz_$t: $n inputs (seed $SEED), no finding"; fi
    else
      failed+=("$t")
      echo "fuzz_$t: FINDING (input in $OUT/findings/$t/):" >&2
      grep -E -m20 'ERROR|runtime error|oracle failed|SUMMARY|Test unit written' "$OUT/$t.log" >&2 || tail -n 30 "$OUT/$t.log" >&2
    fi
  done
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzzing found problems in: ${failed[*]}" >&2; exit 1; }
