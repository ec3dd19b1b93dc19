#!/bin/sh
# Load + validate + expand every corpus profile: pts-native cold (no cache) and warm (profile parse
# cache filled by a previous run) vs the real PTS, medians of N runs each, interleaved.
# usage: bench/bench_profiles.sh [BUILD_DIR] [RUNS]     (needs php-cli, php-xml and a PTS checkout in
#        $PTS_SRC, default /tmp/pts, at commit 84227e6aac22; ../shared for the corpus and schemas)
# Goal (issue #3): < 1 s and >= 50x faster than PTS. Also runs bench_profiles_floor (libxml2 alone
# parsing + validating the same files on all cores): the floor under any cold pass.
# Both binaries are linked like pts-native (static archives, PTSN_STATIC_LINK), so "process wall"
# carries pts-native's start-up; bench_profiles expands each profile's options on the thread that
# loaded it and exits without freeing the loaded model, as a CLI command would.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
runs=${2:-5}
shared=${PTSN_SHARED_DIR:-$here/../../shared}
corpus=$shared/corpus/test-profiles
schemas=$shared/reference/schemas
pts=${PTS_SRC:-/tmp/pts}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/profile-parse-cache.bin
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ms_of() { sed -n 's/.* in \([0-9.]*\) ms (cpu .*/\1/p'; }
cpu_of() { sed -n 's/.*(cpu \([0-9.]*\) ms)$/\1/p'; }
have_pts=0
if [ -f "$pts/pts-core/pts-core.php" ] && command -v php >/dev/null; then have_pts=1; fi

echo "corpus: $corpus ($(ls -d "$corpus"/*/*/ | wc -l) profiles), $runs runs each; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bench_profiles" "$corpus" --schemas "$schemas" --cache "$cache" >/dev/null  # fills the cache
for kind in cold warm floor ref; do eval "${kind}_ms=''; ${kind}_cpu=''; ${kind}_wall=''"; done
for i in $(seq "$runs"); do
  for kind in cold warm floor ref; do
    case $kind in
      cold) set -- "$build/bench_profiles" "$corpus" --schemas "$schemas" ;;
      floor) set -- "$build/bench_profiles_floor" "$corpus" "$schemas" ;;
      warm) set -- "$build/bench_profiles" "$corpus" --schemas "$schemas" --cache "$cache" ;;
      ref) [ $have_pts = 1 ] || continue
           set -- php "$here/pts_profiles.php" --pts "$pts" --boot "$shared/reference/tools/pts-boot.inc.php" --root "$corpus" --schemas "$schemas" ;;
    esac
    t0=$(date +%s.%N)
    out=$("$@")
    t1=$(date +%s.%N)
    eval "${kind}_out=\$out"
    eval "${kind}_ms=\"\$${kind}_ms $(echo "$out" | ms_of)\""
    eval "${kind}_cpu=\"\$${kind}_cpu $(echo "$out" | cpu_of)\""
    eval "${kind}_wall=\"\$${kind}_wall $(echo "$t1 - $t0" | bc -l)\""
  done
done
echo "$cold_out"
echo "$warm_out"
echo "$floor_out"
[ $have_pts = 1 ] && echo "$ref_out"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
report() {  # label ms cpu wall
  printf '%-22s median %7.1f ms wall, %7.1f ms cpu (process wall %.3f s)\n' "$1" "$2" "$3" "$4"
}
cm=$(echo $cold_ms | median); cc=$(echo $cold_cpu | median); cw=$(echo $cold_wall | median)
wm=$(echo $warm_ms | median); wc=$(echo $warm_cpu | median); ww=$(echo $warm_wall | median)
report "pts-native cold:" "$cm" "$cc" "$cw"
report "pts-native warm cache:" "$wm" "$wc" "$ww"
fm=$(echo $floor_ms | median); fc=$(echo $floor_cpu | median); fw=$(echo $floor_wall | median)
report "libxml2 floor (cold):" "$fm" "$fc" "$fw"
if [ $have_pts = 1 ]; then
  rm_=$(echo $ref_ms | median); rc=$(echo $ref_cpu | median); rw=$(echo $ref_wall | median)
  report "real PTS:" "$rm_" "$rc" "$rw"
  ratio() { echo "$1 / $2" | bc -l | xargs printf %.1f; }
  for kind in cold warm; do
    if [ $kind = cold ]; then m=$cm c=$cc w=$cw; else m=$wm c=$wc w=$ww; fi
    r=$(ratio "$rm_" "$m")
    verdict=$(echo "$r >= 50 && $m < 1000" | bc -l)
    [ "$verdict" = 1 ] && verdict="goal met" || verdict="goal NOT met"
    echo "ratio $kind: ${r}x wall, $(ratio "$rc" "$c")x cpu (work only); $(ratio "$rw" "$w")x process wall  [$verdict: <1 s and >=50x wall]"
  done
  echo "cold floor: libxml2 parse+validate alone is $(ratio "$rm_" "$fm")x PTS wall, $(ratio "$rc" "$fc")x cpu: the most any cold pass built on it can reach"
else
  echo "real PTS not available (php-cli/php-xml and a PTS checkout in \$PTS_SRC are needed)"
fi
