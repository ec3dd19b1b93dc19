#!/usr/bin/env bash
# Native disk workload vs Debian's fio on the same directory, side by side in one run: for each
# pattern (sequential 1 MiB write/read, random 4 KiB read/write; buffered and O_DIRECT) fio and
# `pts-native workload disk` run as REPEATS adjacent pairs, the order alternating A-B, B-A so that a
# drift of the disk's speed during a row falls on both alike. The goal (issue #5): ours within
# +-10 % of fio's throughput, and ours' CPU use while waiting on the disk below fio's.
#
# Same work, checked with strace by bench/disk_same_work.sh (one command, ~30 s): both open the file with the same flags,
# give the same fadvise hint (fio's fadvise_hint=1: SEQUENTIAL / RANDOM), fallocate a new file before
# writing it and fsync it at the end, issue one pread/pwrite per block with a page-aligned buffer
# (psync, queue depth 1), and touch every block exactly once (random patterns: a random permutation
# of the blocks; fio's random map does the same with another generator). Only the random order
# differs; replaying our exact order through fio (--read_iolog) measured no difference beyond noise.
# Same scheduling: fio runs each job in a process that calls setsid(), so with the kernel's session
# autogroups (sched_autogroup_enabled=1, Debian's default) the job is a fresh scheduling group of its
# own, while a command started from this script shares the script's group, which has just spent CPU
# (fio's own start-up spin among it): on a busy machine ours was then preempted inside its writes
# more often (buffered rand-write 4k: pair 0.80 without, 0.93 with setsid, at load 5-6). So ours
# runs under `setsid -w` too. On a quiet machine this changes nothing.
# Read rows read the very same file: fio lays it out once per row (buffered write + fsync), then
# each repeat fio and `workload disk --file` read it — so layout and placement cannot differ. The
# script drops the file from the page cache (POSIX_FADV_DONTNEED) before every read run and tells
# both tools not to (fio --invalidate=0, ours --keep-cache): fio invalidates inside its timed run,
# we did it before ours, and dropping 512 MiB of cached pages takes long enough to tilt the ratio.
# fio gets --iomem_align=4k: its default buffer is malloc'd at a 16-byte offset from a page, and on
# this AMD EPYC the kernel's copy to/from such a buffer (rep movsb) runs at ~1.5 GiB/s instead of
# ~7.5 GiB/s (bench/copy_align.c measures it: last line) — which capped fio's buffered seq-read once the
# (host-cached) disk delivers more than that. Our engine's buffers are page-aligned, as fio's are
# for O_DIRECT; aligning fio's makes both do the same copy. The `fio-default-buffer` line shows the
# cost of fio's unaligned default for the record.
#
# Columns: medians of each tool's MiB/s and `ratio` = median(ours) / median(fio); `pair` = median of the per-pair ratios ours/fio, `IQR` their
# interquartile range and `95% CI` a distribution-free confidence interval of that median (order
# statistics of the sign test, n >= 6); `+-10%?` = yes when the whole CI lies within 0.90-1.10, no when
# it lies wholly outside, else unresolved (the machine's noise is wider than the goal: more REPEATS).
# CPU: user+system time / wall time of the timed phase (medians, %); `cpu/MiB` = median over pairs of
# ours' CPU per MiB moved over fio's (the faster tool shows a higher CPU % for the same per-operation
# cost, mostly the kernel's; goal <= 1 as well as ours' CPU % below fio's); `s` = seconds the row took.
# CONTROL=1 runs fio against itself (the `ours` column is a second fio run): the spread and CI it
# prints are this machine's noise floor, what the ours/fio rows can resolve at best.
#   bench/bench_disk.sh [build-dir] [directory]
#   env: REPEATS=10 SEQ_SIZE=256m RAND_SIZE=64m ONLY=<regex on "pattern mode">, e.g. ONLY='seq-read buffered'
#        CONTROL=1   PAIRS_LOG=<file>: appends each pair ("pattern bs mode: fio-MiB/s fio-cpu% ours-MiB/s ours-cpu%"),
#        so that several runs can be pooled
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DIR=${2:-$BUILD/bench-disk-scratch}
BIN=$BUILD/pts-native
REPEATS=${REPEATS:-10}
SEQ_SIZE=${SEQ_SIZE:-256m}
RAND_SIZE=${RAND_SIZE:-64m}
CONTROL=${CONTROL:-0}
command -v fio >/dev/null || { echo "fio not found (apt-get install fio)"; exit 1; }
[ -x "$BIN" ] || { echo "build pts-native first ($BIN)"; exit 1; }
mkdir -p "$DIR"
trap 'rm -rf "$DIR"/fio-*' EXIT
started=$SECONDS

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
spread() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {printf "%.0f%%", (a[NR]-a[1])/a[int((NR+1)/2)]*100}'; }

# fio's JSON -> "MiB/s CPU%" (bandwidth of the direction that moved data; usr+sys CPU of the job)
fio_run() {
  local rw=$1 bs=$2 size=$3 direct=$4 file=${5:-fio-data}
  local fsync=0 extra=()
  [[ $rw == *write ]] && fsync=1
  [[ $rw == *read ]] && drop_cache && extra=(--invalidate=0)
  fio --name=bench --directory="$DIR" --filename="$file" --rw="$rw" --bs="$bs" --size="$size" \
      --ioengine=psync --direct="$direct" --end_fsync="$fsync" --iomem_align="${FIO_ALIGN:-4k}" "${extra[@]}" \
      --output-format=json 2>/dev/null |
    python3 -c "
import json,sys
j=json.load(sys.stdin)['jobs'][0]
d=j['write'] if j['write']['io_bytes'] else j['read']
print('%.2f %.2f' % (d['io_bytes']/1048576/(d['runtime']/1000.0), j['usr_cpu']+j['sys_cpu']))"
  [[ $rw == *write ]] && rm -f "$DIR/$file"
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
  local rw=$1 pattern=$2 bs=$3 size=$4 direct=$5
  # A/A control: a second fio run (its own file for writes, the shared one for reads) in ours' slot.
  [ "$CONTROL" = 1 ] && { fio_run "$rw" "$bs" "$size" "$direct" "$([[ $rw == *write ]] && echo fio-data2 || echo fio-data)"; return; }
  local flags=(--dir "$DIR")
  [[ $pattern == *read ]] && drop_cache && flags=(--file "$DIR/fio-data" --keep-cache)
  [ "$direct" = 1 ] && flags+=(--direct)
  setsid -w "$BIN" workload disk --pattern "$pattern" --block-size "$bs" --size "$size" "${flags[@]}" --json |
    python3 -c "
import json,sys
j=json.load(sys.stdin)
if j.get('cached_at_start_bytes'): print('warning: %d bytes were cached before the timed read' % j['cached_at_start_bytes'], file=sys.stderr)
print('%.2f %.2f' % (j['mib_per_s'], j['cpu_percent']))"
}

# One table row from the pairs: lines "fio-MiB/s fio-cpu% ours-MiB/s ours-cpu%" on stdin.
row_stats() {
  python3 -c '
import sys, math, statistics as st
label, secs = sys.argv[1], int(sys.argv[2])
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
n = len(rows)
fb, fc, ob, oc = ([r[i] for r in rows] for i in range(4))
ratio = sorted(o / f for f, o in zip(fb, ob))
cpu_mib = sorted((c2 / b2) / (c1 / b1) if c1 > 0 else float("nan") for b1, c1, b2, c2 in rows)
q1, _, q3 = st.quantiles(ratio, n=4, method="inclusive") if n > 1 else (ratio[0],) * 3
# Distribution-free CI of the median: the k-th smallest and k-th largest ratio, k the largest with
# P(Binomial(n, 1/2) < k) <= 2.5 % (so the CI covers >= 95 %).
k, tail = 0, 0.0
while True:
    p = math.comb(n, k) / 2 ** n
    if tail + p > 0.025: break
    tail += p; k += 1
if k >= 1:
    lo, hi = ratio[k - 1], ratio[n - k]
    ci = "%.3f-%.3f" % (lo, hi)
    verdict = "yes" if lo >= 0.9 and hi <= 1.1 else "NO" if hi < 0.9 or lo > 1.1 else "unresolved"
else:
    ci, verdict = "(n<6)", "unresolved"
spread = lambda v: "%.0f%%" % ((max(v) - min(v)) / st.median(v) * 100)
print("%-23s %8.1f %8.1f %6.3f %6.3f %11s %11s %-10s %6.1f %6.1f %7.3f %5s/%-5s %4d" % (
    label, st.median(fb), st.median(ob), st.median(ob) / st.median(fb), st.median(ratio), "%.3f-%.3f" % (q1, q3), ci,
    verdict, st.median(fc), st.median(oc), st.median(cpu_mib), spread(fb), spread(ob), secs))
' "$1" "$2"
}

ours_name=$([ "$CONTROL" = 1 ] && echo "fio#2" || echo ours)
echo "directory: $DIR ($(df -T "$DIR" | awk 'NR==2 {print $2" on "$1}')); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$REPEATS pairs per row, order alternating; sequential $SEQ_SIZE, random $RAND_SIZE per run; fio $(fio --version)$([ "$CONTROL" = 1 ] && echo '; CONTROL: fio against itself')"
printf "%-23s %8s %8s %6s %6s %11s %11s %-10s %6s %6s %7s %11s %4s\n" "pattern bs mode" fio-MiB/s "$ours_name" ratio pair "pair IQR" "95% CI" "+-10%?" fio-cpu "$ours_name" cpu/MiB "spread f/o" s
unaligned=""  # fio with its default (unaligned) buffer, buffered seq-read: informational
for direct in 0 1; do
  for c in "write:seq-write:1m:$SEQ_SIZE" "read:seq-read:1m:$SEQ_SIZE" "randread:rand-read:4k:$RAND_SIZE" "randwrite:rand-write:4k:$RAND_SIZE"; do
    IFS=: read -r rw pattern bs size <<< "$c"
    mode=$([ "$direct" = 1 ] && echo direct || echo buffered)
    [[ "$pattern $mode" =~ ${ONLY:-.} ]] || continue
    pairs="" ub="" row_start=$SECONDS
    [[ $rw == *read ]] && lay_out "$size"
    for ((i = 0; i < REPEATS; i++)); do
      if ((i % 2)); then
        o=$(ours_run "$rw" "$pattern" "$bs" "$size" "$direct"); f=$(fio_run "$rw" "$bs" "$size" "$direct")
      else
        f=$(fio_run "$rw" "$bs" "$size" "$direct"); o=$(ours_run "$rw" "$pattern" "$bs" "$size" "$direct")
      fi
      pairs+="$f $o"$'\n'
      if [ "$rw:$direct:$CONTROL" = read:0:0 ]; then
        read -r b _ <<< "$(FIO_ALIGN=0 fio_run "$rw" "$bs" "$size" "$direct")"; ub+=" $b"
      fi
    done
    rm -f "$DIR/fio-data"
    printf "%s" "$pairs" | row_stats "$pattern $bs $mode" $((SECONDS - row_start))
    [ -n "${PAIRS_LOG:-}" ] && printf "%s" "$pairs" | sed "s/^/$pattern $bs $mode: /" >> "$PAIRS_LOG"
    [ -n "$ub" ] && unaligned="fio-default-buffer (page+16 bytes), buffered seq-read 1m: median $(echo "$ub" | median) MiB/s, spread $(echo "$ub" | spread)"
  done
done
[ -n "$unaligned" ] && echo "$unaligned"
# The floor behind --iomem_align: copying the page cache into a page-aligned buffer vs one 16 bytes past a page.
if [ "$CONTROL" = 0 ] && cc -O2 -o "$BUILD/copy_align" bench/copy_align.c 2>/dev/null; then
  head -c 256M /dev/urandom > "$DIR/fio-align" && "$BUILD/copy_align" "$DIR/fio-align" 256; rm -f "$DIR/fio-align"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); $((SECONDS - started)) s"
