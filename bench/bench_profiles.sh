#!/bin/sh
# Load + validate + expand every corpus profile: pts-native vs the real PTS, medians of N runs.
# usage: bench/bench_profiles.sh [BUILD_DIR] [RUNS]     (needs php-cli, php-xml and a PTS checkout in
#        $PTS_SRC, default /tmp/pts, at commit 84227e6aac22; ../shared for the corpus and schemas)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
runs=${2:-5}
shared=${PTSN_SHARED_DIR:-$here/../../shared}
corpus=$shared/corpus/test-profiles
schemas=$shared/reference/schemas
pts=${PTS_SRC:-/tmp/pts}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ms_of() { sed -n 's/.* in \([0-9.]*\) ms (cpu .*/\1/p'; }
cpu_of() { sed -n 's/.*(cpu \([0-9.]*\) ms)$/\1/p'; }

echo "corpus: $corpus ($(ls -d "$corpus"/*/*/ | wc -l) profiles), $runs runs each"
native=""; native_wall=""; native_cpu=""
for i in $(seq "$runs"); do
  t0=$(date +%s.%N)
  out=$("$build/bench_profiles" "$corpus" --schemas "$schemas")
  t1=$(date +%s.%N)
  native="$native $(echo "$out" | ms_of)"
  native_cpu="$native_cpu $(echo "$out" | cpu_of)"
  native_wall="$native_wall $(echo "$t1 - $t0" | bc -l)"
done
echo "$out"
if [ -f "$pts/pts-core/pts-core.php" ] && command -v php >/dev/null; then
  ref=""; ref_wall=""; ref_cpu=""
  for i in $(seq "$runs"); do
    t0=$(date +%s.%N)
    out=$(php "$here/pts_profiles.php" --pts "$pts" --boot "$shared/reference/tools/pts-boot.inc.php" --root "$corpus" --schemas "$schemas")
    t1=$(date +%s.%N)
    ref="$ref $(echo "$out" | ms_of)"
    ref_cpu="$ref_cpu $(echo "$out" | cpu_of)"
    ref_wall="$ref_wall $(echo "$t1 - $t0" | bc -l)"
  done
  echo "$out"
fi
n=$(echo $native | tr ' ' '\n' | median)
nw=$(echo $native_wall | tr ' ' '\n' | median)
nc=$(echo $native_cpu | tr ' ' '\n' | median)
echo "pts-native: median $n ms wall, $nc ms cpu (process wall $(printf %.3f "$nw") s)"
if [ -n "${ref:-}" ]; then
  r=$(echo $ref | tr ' ' '\n' | median)
  rw=$(echo $ref_wall | tr ' ' '\n' | median)
  rc=$(echo $ref_cpu | tr ' ' '\n' | median)
  echo "real PTS:   median $r ms wall, $rc ms cpu (process wall $(printf %.3f "$rw") s, boot included)"
  echo "ratio:      $(echo "$r / $n" | bc -l | xargs printf %.1f)x wall, $(echo "$rc / $nc" | bc -l | xargs printf %.1f)x cpu (work only); $(echo "$rw / $nw" | bc -l | xargs printf %.1f)x process wall"
else
  echo "real PTS not available (php-cli/php-xml and a PTS checkout in \$PTS_SRC are needed)"
fi
