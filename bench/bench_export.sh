#!/bin/bash
# Export benchmark: one generated result file of 1,000 results x 10 systems (every 4th result
# with a 60-sample CPU-usage monitor child) exported to text, CSV and JSON by pts-native and,
# when available, by the real PTS 10.8.6 (PHP), side by side.
#
#   bench/bench_export.sh [BUILD_DIR]          (default: build)
#   env: RUNS (ours, default 11), PTS_RUNS (default 3), PAIR_RUNS (side-by-side pairs, default 5), RESULTS (1000), SYSTEMS (10),
#        WORK (scratch, default /tmp/ptsn-bench-export),
#        PTS_SRC (a PTS v10.8.6 checkout; without it only our figures are printed),
#        SHARED (shared reference tree, default <repo>/../shared)
# PTS is measured two ways: its result-file-to-* command through
# shared/reference/tools/pts-ref.sh (root only; CSV/JSON via OUTPUT_FILE), and its
# pts_result_file_output functions alone (bench/pts_export.php). Figures are medians of wall
# time, CPU time (user+sys) and peak RSS (bench/time_run, microsecond resolution); outputs are
# compared with PTS's. Two floors are printed beside ours: `pts-native version` (process start)
# and, when xmllint is installed, libxml2's bare SAX parse of the same file.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
BUILD=$(cd "${1:-$REPO/build}" && pwd)
RUNS=${RUNS:-11}; PTS_RUNS=${PTS_RUNS:-3}; PAIR_RUNS=${PAIR_RUNS:-5}; RESULTS=${RESULTS:-1000}; SYSTEMS=${SYSTEMS:-10}
WORK=${WORK:-/tmp/ptsn-bench-export}
SHARED=${SHARED:-$REPO/../shared}
BIN="$BUILD/pts-native"; GEN="$BUILD/bench/gen_results"; TIME_RUN="$BUILD/bench/time_run"
[ -x "$BIN" ] && [ -x "$GEN" ] && [ -x "$TIME_RUN" ] || { echo "build pts-native, gen_results and time_run first (cmake --build $BUILD)" >&2; exit 2; }
WIDTH=80  # the text width for both sides (PTS's command reads TERMINAL_WIDTH)

rm -rf "$WORK"; mkdir -p "$WORK"
"$GEN" --out "$WORK/in" --files 1 --results "$RESULTS" --systems "$SYSTEMS" > /dev/null
XML="$WORK/in/file-001.xml"
XML_BYTES=$(wc -c < "$XML")

# measure LABEL CMD...  -> appends "wall_s cpu_s max_rss_kb" to $WORK/LABEL.times
# (bench/time_run: wall from CLOCK_MONOTONIC, CPU user+sys and peak RSS from wait4, microseconds)
measure() {
  local label=$1; shift
  "$TIME_RUN" "$WORK/$label.times" "$@" > "$WORK/$label.stdout" 2> "$WORK/$label.err" || { cat "$WORK/$label.err" >&2; exit 1; }
}
median() {  # median of column $2 of file $1
  sort -g -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
row() {  # LABEL TIMESFILE
  printf '  %-44s %8.3f %8.3f %11d %6.2fx\n' "$1" "$(median "$2" 1)" "$(median "$2" 2)" "$(median "$2" 3)" \
    "$(echo "$(median "$2" 3)*1024/$XML_BYTES" | bc -l)"
}

goal() {  # LABEL RATIO TARGET OP  -> "GOAL LABEL RATIOx (goal OP TARGETx): met|NOT met"
  local ok; ok=$(echo "$2 $4 $3" | bc -l)
  printf '  GOAL %-48s %7.2fx (goal %s %sx): %s\n' "$1" "$2" "$4" "$3" "$( [ "$ok" = 1 ] && echo met || echo 'NOT met')"
}

printf '\nload average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '\nresult-file-to-{text,csv,json}: 1 file, %s results x %s systems, %s bytes of XML; medians\n' \
  "$RESULTS" "$SYSTEMS" "$XML_BYTES"
printf '  %-44s %8s %8s %11s %7s\n' "" "wall s" "cpu s" "peak RSS KB" "RSS/XML"
for _ in $(seq "$RUNS"); do measure version "$BIN" version; done
# Ours write with -o, as the goal's figures did until session 4: the text goes out in pieces as it is
# rendered (bounded memory; standard output is held back until the whole export succeeded) to a
# temporary file that is fsync()ed and renamed into place. PTS's commands do not fsync; on this
# disk that fsync alone takes 3-30 ms of our wall time (not CPU).
export TERMINAL_WIDTH=$WIDTH
for f in text csv json; do
  for _ in $(seq "$RUNS"); do measure "ours-$f" "$BIN" "result-file-to-$f" "$XML" -o "$WORK/ours.$f"; done
  row "pts-native result-file-to-$f ($RUNS runs)" "$WORK/ours-$f.times"
done
# `result-file-to-json` writes PTS's document; --statistics adds ours to every entry (2.4x the bytes).
for _ in $(seq "$RUNS"); do measure "ours-json-stats" "$BIN" result-file-to-json --statistics "$XML" -o "$WORK/ours-stats.json"; done
row "pts-native result-file-to-json --statistics" "$WORK/ours-json-stats.times"
# The issue's primary interface: the export on standard output (here redirected to a file on
# disk, as PTS's own command writes its file: no fsync on either side). Standard output is held
# back until the whole export succeeded (up to 1 MiB in memory, beyond in an unlinked temporary file).
for f in text csv json; do
  for _ in $(seq "$RUNS"); do measure "ours-stdout-$f" "$BIN" "result-file-to-$f" "$XML"; done
  cmp -s "$WORK/ours-stdout-$f.stdout" "$WORK/ours.$f" || echo "  WARNING: $f on standard output differs from -o"
  row "  $f on standard output (no -o)" "$WORK/ours-stdout-$f.times"
done
for _ in $(seq "$RUNS"); do measure "ours-stdout-json-stats" "$BIN" result-file-to-json --statistics "$XML"; done
cmp -s "$WORK/ours-stdout-json-stats.stdout" "$WORK/ours-stats.json" || echo "  WARNING: json --statistics on standard output differs from -o"
row "  json --statistics on standard output" "$WORK/ours-stdout-json-stats.times"
row "pts-native version (process start floor)" "$WORK/version.times"
if command -v xmllint > /dev/null; then
  for _ in $(seq "$RUNS"); do measure xmllint xmllint --sax --noout "$XML"; done
  row "xmllint --sax --noout (libxml2 parse floor)" "$WORK/xmllint.times"
fi

if [ -z "${PTS_SRC:-}" ] || ! command -v php > /dev/null; then
  echo "  (PTS_SRC not set or php missing: no PTS figures)"
  exit 0
fi
PTS_SRC=$(cd "$PTS_SRC" && pwd)
for f in text csv json; do
  for _ in $(seq "$PTS_RUNS"); do
    measure "ptslib-$f" php -d memory_limit=4G "$HERE/pts_export.php" "$PTS_SRC" "$SHARED/reference/tools" "$f" "$XML" "$WORK/ptslib.$f" "$WIDTH"
  done
  row "PTS pts_result_file_output $f ($PTS_RUNS runs)" "$WORK/ptslib-$f.times"
done
if [ "$(id -u)" = 0 ]; then
  export PTS_HOME="$WORK/pts-home"; U="$PTS_HOME/.phoronix-test-suite"; mkdir -p "$U/test-results/bench-export"
  cp "$XML" "$U/test-results/bench-export/composite.xml"
  python3 - "$PTS_SRC/pts-core/static/user-config-defaults.xml" > "$U/user-config.xml" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
for k, v in {"AnonymousUsageReporting": "FALSE", "AllowResultUploadsToOpenBenchmarking": "FALSE",
             "NoInternetCommunication": "TRUE", "UploadResults": "FALSE", "Configured": "TRUE",
             "OpenBrowser": "FALSE", "AutoLoadModules": ""}.items():
    s = re.sub(r"<%s>[^<]*</%s>|<%s/>" % (k, k, k), "<%s>%s</%s>" % (k, v, k), s)
sys.stdout.write(s)
PY
  for f in text csv json; do
    for _ in $(seq "$PTS_RUNS"); do
      measure "ptscmd-$f" env PTS_SRC="$PTS_SRC" PTS_HOME="$PTS_HOME" OUTPUT_FILE="$WORK/ptscmd.$f" \
        "$SHARED/reference/tools/pts-ref.sh" "result-file-to-$f" bench-export
    done
    row "PTS result-file-to-$f command ($PTS_RUNS runs)" "$WORK/ptscmd-$f.times"
  done

  # Side by side: the figures above are taken one after another, and on this kind of VM the speed
  # of a core changes by a third from one stretch of seconds to the next, so a ratio of two medians
  # taken apart can land anywhere in that range. Here each run of PTS's command is paired with
  # five of ours on standard output made right around it (two before, three after); a pair's
  # ratio is PTS's wall over the median of its five, and the ratio quoted is the median of
  # PAIR_RUNS pairs (min-max beside it).
  printf '\n  side by side, wall (%s pairs: one PTS command run, 5 of ours around it)   median   min-max\n' "$PAIR_RUNS"
  for pair in text csv json json-stats; do
    f=${pair%-stats}; a=(); [ "$pair" = json-stats ] && a=(--statistics)
    : > "$WORK/pair-$pair.ratios"
    for _ in $(seq "$PAIR_RUNS"); do
      rm -f "$WORK/pair-ours.times" "$WORK/pair-pts.times"
      for _ in 1 2; do measure pair-ours "$BIN" "result-file-to-$f" "${a[@]}" "$XML"; done
      measure pair-pts env PTS_SRC="$PTS_SRC" PTS_HOME="$PTS_HOME" OUTPUT_FILE="$WORK/ptscmd.$f" \
        "$SHARED/reference/tools/pts-ref.sh" "result-file-to-$f" bench-export
      for _ in 1 2 3; do measure pair-ours "$BIN" "result-file-to-$f" "${a[@]}" "$XML"; done
      echo "$(median "$WORK/pair-pts.times" 1) / $(median "$WORK/pair-ours.times" 1)" | bc -l >> "$WORK/pair-$pair.ratios"
    done
    printf '  %-72s %6.2fx  %.1f-%.1fx\n' "PTS result-file-to-$f command / ours $( [ "$pair" = json-stats ] && echo "--statistics ")on stdout" \
      "$(median "$WORK/pair-$pair.ratios" 1)" "$(sort -g "$WORK/pair-$pair.ratios" | head -1)" "$(sort -g "$WORK/pair-$pair.ratios" | tail -1)"
  done
fi

# Speed-ups by wall time and by CPU time (user+sys): on a loaded machine wall time mostly
# measures waiting for a core, CPU time what each side actually costs.
for col in 1 2; do
  echo
  [ $col = 1 ] && what="wall" || what="CPU "
  echo "  speed-up ($what, medians)              vs PTS functions   vs PTS command"
  for f in text csv json; do
    ours=$(median "$WORK/ours-$f.times" $col)
    lib=$(median "$WORK/ptslib-$f.times" $col)
    cmd=$( [ -f "$WORK/ptscmd-$f.times" ] && median "$WORK/ptscmd-$f.times" $col || echo 0)
    printf '  %-36s %14.1fx %15s\n' "result-file-to-$f" "$(echo "$lib/$ours" | bc -l)" \
      "$( [ "$cmd" != 0 ] && printf '%.1fx' "$(echo "$cmd/$ours" | bc -l)" || echo -)"
  done
done
echo "  (-o runs: ours fsync()s its file, PTS's command does not)"

# The goal (issue #2): each export at least 30x faster than PHP PTS, taken as the side-by-side
# pairs above (PTS's command as a user runs it, against ours on standard output, wall time: what a
# user waits for). json --statistics writes 2.4x PTS's bytes, so its ratio is printed beside the
# goal, not as it.
echo
for pair in text csv json; do
  [ -s "$WORK/pair-$pair.ratios" ] && goal "$pair on stdout: side by side vs PTS command, wall" "$(median "$WORK/pair-$pair.ratios" 1)" 30 '>='
done
[ -s "$WORK/pair-json-stats.ratios" ] && printf '  %-53s %7.2fx (more output than PTS: beside the goal)\n' \
  "json --statistics: side by side vs PTS command, wall" "$(median "$WORK/pair-json-stats.ratios" 1)"
for t in text csv json json-stats stdout-text stdout-csv stdout-json stdout-json-stats; do
  goal "$t: peak RSS / XML" "$(echo "$(median "$WORK/ours-$t.times" 3)*1024/$XML_BYTES" | bc -l)" 5 '<'
done
echo "  (wall and CPU from bench/time_run, microsecond resolution; load average now: $(cut -d' ' -f1-3 /proc/loadavg))"

# Same output as PTS? Text: identical. JSON: identical except the "identifier" key and the
# result hash, which PTS derives from its installed test-profile database (unknown generated
# profiles lose both); CSV: different layout by design (export_csv.h), same cells.
cmp -s "$WORK/ours.text" <(sed '$d' "$WORK/ptscmd.text" 2>/dev/null | sed '1,3d') 2>/dev/null \
  && echo "  text: identical to the PTS command's output" || true
cmp -s "$WORK/ours.text" "$WORK/ptslib.text" && echo "  text: identical to PTS's result_file_to_text()" \
  || echo "  WARNING: text differs from PTS's result_file_to_text()"
if diff <(cat "$WORK/ours.json"; echo) <(cat "$WORK/ptslib.json"; echo) | grep '^[<>]' \
     | grep -v '"identifier": "pts\\/' | grep -vqE '^[<>] +"[0-9a-f]{40}": \{'; then
  echo "  WARNING: json differs from PTS's beyond identifier/hash"
else
  echo "  json: identical to PTS's result_file_to_json() apart from profile-derived identifier/hash"
fi
