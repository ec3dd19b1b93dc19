#!/usr/bin/env bash
# Native disk workload vs Debian's fio on the same directory, side by side in one run: for each
# pattern (sequential 1 MiB write/read, random 4 KiB read/write; buffered and O_DIRECT) fio and
# `pts-native workload disk` run alternately REPEATS times (which one goes first alternates too);
# prints median MiB/s, our/fio ratio (goal: within +-10 %) and median CPU use of each while the
# disk works (goal: ours below fio's).
# Read rows read the very same file: fio lays it out once per row (buffered write + fsync), then
# each repeat fio and `workload disk --file` read it — so layout and placement cannot differ. The
# script drops the file from the page cache (POSIX_FADV_DONTNEED) before every read run and tells
# both tools not to (fio --invalidate=0, ours --keep-cache): fio invalidates inside its timed run,
# we did it before ours, and dropping 512 MiB of cached pages takes long enough to tilt the ratio.
# fio gets --iomem_align=4k: its default buffer is malloc'd at a 16-byte offset from a page, and on
# this AMD EPYC the kernel's copy to/from such a buffer (rep movsb) runs at ~1.5 GiB/s instead of
# ~7.5 GiB/s (bench/copy_align.c measures it: last line) — which capped fio's buffered seq-read once the
# (host-cached) disk delivers more than that. Our engine's buffers are page-aligned, as fio's are
# for O_DIRECT; aligning fio's makes both do the same copy. The `fio-default-buffer` row shows the
# cost of fio's unaligned default for the record.
#   bench/bench_disk.sh [build-dir] [directory]
#   env: REPEATS=5 SEQ_SIZE=512m RAND_SIZE=128m ONLY=<regex on "pattern mode">, e.g. ONLY='seq-read buffered'
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DIR=${2:-$BUILD/bench-disk-scratch}
BIN=$BUILD/pts-native
REPEATS=${REPEATS:-5}
SEQ_SIZE=${SEQ_SIZE:-512m}
RAND_SIZE=${RAND_SIZE:-128m}
command -v fio >/dev/null || { echo "fio not found (apt-get install fio)"; exit 1; }
mkdir -p "$DIR"
trap 'rm -rf "$DIR"/fio-*' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
spread() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {printf "%.0f%%", (a[NR]-a[1])/a[int((NR+1)/2)]*100}'; }

# fio's JSON -> "MiB/s CPU%" (bandwidth of the direction that moved data; usr+sys CPU of the job)
fio_run() {
  local rw=$1 bs=$2 size=$3 direct=$4
  local fsync=0 extra=()
  [[ $rw == *write ]] && fsync=1
  [[ $rw == *read ]] && drop_cache && extra=(--invalidate=0)
  fio --name=bench --directory="$DIR" --filename=fio-data --rw="$rw" --bs="$bs" --size="$size" \
      --ioengine=psync --direct="$direct" --end_fsync="$fsync" --iomem_align="${FIO_ALIGN:-4k}" "${extra[@]}" \
      --output-format=json 2>/dev/null |
    python3 -c "
import json,sys
j=json.load(sys.stdin)['jobs'][0]
d=j['write'] if j['write']['io_bytes'] else j['read']
print('%.2f %.2f' % (d['io_bytes']/1048576/(d['runtime']/1000.0), j['usr_cpu']+j['sys_cpu']))"
  [[ $rw == *write ]] && rm -f "$DIR/fio-data"
  return 0
}
drop_cache() {
  python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$DIR/fio-data"
}
# The shared file the read rows read (fio's layout: buffered 1 MiB writes, fsync at the end).
lay_out() {
  fio --name=layout --directory="$DIR" --filename=fio-data --rw=write --bs=1m --size="$1" \
      --end_fsync=1 --output=/dev/null >/dev/null 2>&1
}
ours_run() {
  local pattern=$1 bs=$2 size=$3 direct=$4
  local flags=(--dir "$DIR")
  [[ $pattern == *read ]] && drop_cache && flags=(--file "$DIR/fio-data" --keep-cache)
  [ "$direct" = 1 ] && flags+=(--direct)
  "$BIN" workload disk --pattern "$pattern" --block-size "$bs" --size "$size" "${flags[@]}" --json |
    python3 -c "
import json,sys
j=json.load(sys.stdin)
if j.get('cached_at_start_bytes'): print('warning: %d bytes were cached before the timed read' % j['cached_at_start_bytes'], file=sys.stderr)
print('%.2f %.2f' % (j['mib_per_s'], j['cpu_percent']))"
}

echo "directory: $DIR ($(df -T "$DIR" | awk 'NR==2 {print $2" on "$1}')); load $(cut -d' ' -f1-3 /proc/loadavg); $REPEATS repeats, interleaved"
# ratio = median(ours) / median(fio); pair = median of ours/fio over the side-by-side pairs (steadier
# when the load drifts during a row). cpu = user+system time / wall time of the timed phase, %;
# cpu/MiB = ours' CPU per MiB moved over fio's (the CPU% of the faster tool is higher for the same
# per-operation cost, mostly the kernel's: goal <= 1 as well as ours-cpu < fio-cpu).
printf "%-11s %-6s %-8s %10s %10s %7s %6s %8s %8s %7s %13s\n" pattern bs mode fio-MiB/s ours-MiB/s ratio pair fio-cpu ours-cpu cpu/MiB "spread f/o"
unaligned=""  # fio with its default (unaligned) buffer, buffered seq-read: informational
for direct in 0 1; do
  for c in "write:seq-write:1m:$SEQ_SIZE" "read:seq-read:1m:$SEQ_SIZE" "randread:rand-read:4k:$RAND_SIZE" "randwrite:rand-write:4k:$RAND_SIZE"; do
    IFS=: read -r rw pattern bs size <<< "$c"
    mode=$([ "$direct" = 1 ] && echo direct || echo buffered)
    [[ "$pattern $mode" =~ ${ONLY:-.} ]] || continue
    fb="" fc="" ob="" oc="" ub=""
    [[ $rw == *read ]] && lay_out "$size"
    for ((i = 0; i < REPEATS; i++)); do
      if ((i % 2)); then
        read -r b u <<< "$(ours_run "$pattern" "$bs" "$size" "$direct")"; ob+=" $b"; oc+=" $u"
        read -r b u <<< "$(fio_run "$rw" "$bs" "$size" "$direct")"; fb+=" $b"; fc+=" $u"
      else
        read -r b u <<< "$(fio_run "$rw" "$bs" "$size" "$direct")"; fb+=" $b"; fc+=" $u"
        read -r b u <<< "$(ours_run "$pattern" "$bs" "$size" "$direct")"; ob+=" $b"; oc+=" $u"
      fi
      if [ "$rw:$direct" = read:0 ]; then
        read -r b u <<< "$(FIO_ALIGN=0 fio_run "$rw" "$bs" "$size" "$direct")"; ub+=" $b"
      fi
    done
    rm -f "$DIR/fio-data"
    fm=$(echo "$fb" | median); om=$(echo "$ob" | median)
    pairs=$(paste -d' ' <(echo "$ob" | tr ' ' '\n' | grep -v '^$') <(echo "$fb" | tr ' ' '\n' | grep -v '^$') | awk '{printf " %f", $1 / $2}')
    fcm=$(echo "$fc" | median); ocm=$(echo "$oc" | median)
    printf "%-11s %-6s %-8s %10s %10s %7.3f %6.3f %8s %8s %7.3f %6s/%-6s\n" "$pattern" "$bs" "$mode" \
      "$fm" "$om" "$(awk -v o="$om" -v f="$fm" 'BEGIN {print o / f}')" "$(echo "$pairs" | median)" "$fcm" "$ocm" \
      "$(awk -v oc="$ocm" -v om="$om" -v fc="$fcm" -v fm="$fm" 'BEGIN {print (oc / om) / (fc / fm)}')" \
      "$(echo "$fb" | spread)" "$(echo "$ob" | spread)"
    [ -n "$ub" ] && unaligned="fio with its default buffer (page+16 bytes), buffered seq-read 1m: median $(echo "$ub" | median) MiB/s, spread $(echo "$ub" | spread)"
  done
done
[ -n "$unaligned" ] && echo "$unaligned"
# The floor behind --iomem_align: copying the page cache into a page-aligned buffer vs one 16 bytes past a page.
if cc -O2 -o "$BUILD/copy_align" bench/copy_align.c 2>/dev/null; then
  head -c 256M /dev/urandom > "$DIR/fio-align" && "$BUILD/copy_align" "$DIR/fio-align" 256; rm -f "$DIR/fio-align"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
