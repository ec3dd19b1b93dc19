#!/usr/bin/env bash
# Do `pts-native workload disk` and fio (as bench_disk.sh runs them) issue the same system calls?
# Runs each pattern of bench_disk.sh once per tool, small, under strace, and prints per tool: the
# data file's open flags, fadvise hint, fallocate, fsyncs, and of the data transfers: count, bytes,
# distinct offsets (= count: every block once), offsets on a block boundary, and how many
# transfers start where the previous one ended (1 MiB sequential: all but one; 4 KiB random: a
# uniform permutation gives ~0, fio's random map a few near the end of a pass). `same` says whether
# everything but the order matches (exit status 1 when a row does not). fio's POSIX_FADV_DONTNEED on
# the file it has just created (its invalidate=1; there is nothing cached to drop) is left out.
#   bench/disk_same_work.sh [build-dir] [directory]     env: SEQ_SIZE=64m RAND_SIZE=16m
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DIR=$(realpath -m "${2:-$BUILD/bench-disk-scratch}")
BIN=$BUILD/pts-native
SEQ_SIZE=${SEQ_SIZE:-64m}
RAND_SIZE=${RAND_SIZE:-16m}
for t in fio strace; do command -v $t >/dev/null || { echo "$t not found (apt-get install $t)"; exit 1; }; done
[ -x "$BIN" ] || { echo "build pts-native first ($BIN)"; exit 1; }
mkdir -p "$DIR"
T=$(mktemp -d)
trap 'rm -rf "$T" "$DIR"/fio-data' EXIT
CALLS=trace=openat,pread64,pwrite64,fadvise64,fallocate,fsync,fdatasync

# Summary of one tool's trace files ($1 prefix) for block size $2: one line.
summarize() {
  cat "$1".* | python3 -c '
import re, sys
bs = int(sys.argv[1])
text = sys.stdin.read()
fds, flags, advice, falloc, fsyncs, xfers = set(), "?", "-", "-", 0, []
for m in re.finditer(r"openat\(AT_FDCWD, \"[^\"]*(?:fio-data|/data\.0)\", ([A-Z_|]+)[^)]*\)\s+= (\d+)", text):
    fds.add(m.group(2)); flags = "|".join(sorted(f for f in m.group(1).split("|") if f not in ("O_CLOEXEC", "O_CREAT")))
for m in re.finditer(r"fadvise64\((\d+), \d+, \d+, (POSIX_FADV_\w+)\)", text):
    if m.group(1) in fds and m.group(2) != "POSIX_FADV_DONTNEED": advice = m.group(2)[11:]
for m in re.finditer(r"fallocate\((\d+), (\d+), (\d+), (\d+)\)\s+= 0", text):
    if m.group(1) in fds: falloc = "%s+%s" % (m.group(3), m.group(4))
fsyncs = sum(1 for m in re.finditer(r"f(?:data)?sync\((\d+)\)", text) if m.group(1) in fds)
for m in re.finditer(r"p(?:read|write)64\((\d+), (?:\"(?:[^\"\\]|\\.)*\"(?:\.\.\.)?|0x[0-9a-f]+), (\d+), (\d+)\)\s+= (\d+)", text):
    if m.group(1) in fds and int(m.group(2)) == bs: xfers.append((int(m.group(3)), int(m.group(4))))
offs = [o for o, _ in xfers]
nexts = sum(1 for a, b in zip(offs, offs[1:]) if b == a + bs)
print("%-22s %-8s %-12s %6d %10d %6d %7d %6d %6d" % (flags, advice, falloc, len(xfers), sum(n for _, n in xfers),
      len(set(offs)), sum(1 for o in offs if o % bs == 0), nexts, fsyncs))
' "$2"
}

bad=0
printf "%-24s %-5s %-22s %-8s %-12s %6s %10s %6s %7s %6s %6s %s\n" "pattern bs mode" tool "open flags" fadvise fallocate calls bytes unique aligned next fsync same
for direct in 0 1; do
  for c in "write:seq-write:1m:$SEQ_SIZE" "read:seq-read:1m:$SEQ_SIZE" "randread:rand-read:4k:$RAND_SIZE" "randwrite:rand-write:4k:$RAND_SIZE"; do
    IFS=: read -r rw pattern bs size <<< "$c"
    mode=$([ "$direct" = 1 ] && echo direct || echo buffered)
    bytes=$(( ${bs%[km]} * $([[ $bs == *m ]] && echo 1048576 || echo 1024) ))
    rm -f "$T"/fio.* "$T"/ours.*
    fsync=0 extra=() flags=(--dir "$DIR")
    if [[ $rw == *read ]]; then
      fio --name=layout --directory="$DIR" --filename=fio-data --rw=write --bs=1m --size="$size" --end_fsync=1 --output=/dev/null >/dev/null 2>&1
      extra=(--invalidate=0) flags=(--file "$DIR/fio-data" --keep-cache)
    else
      fsync=1
    fi
    [ "$direct" = 1 ] && flags+=(--direct)
    strace -ff -e "$CALLS" -o "$T/fio" fio --name=bench --directory="$DIR" --filename=fio-data --rw="$rw" --bs="$bs" --size="$size" \
      --ioengine=psync --direct="$direct" --end_fsync="$fsync" --iomem_align=4k "${extra[@]}" --output=/dev/null
    strace -ff -e "$CALLS" -o "$T/ours" "$BIN" workload disk --pattern "$pattern" --block-size "$bs" --size "$size" "${flags[@]}" >/dev/null
    rm -f "$DIR/fio-data"
    f=$(summarize "$T/fio" "$bytes"); o=$(summarize "$T/ours" "$bytes")
    # Everything but the order (the `next` column) must match.
    same=$([ "$(echo "$f" | awk '{$8=""; print}')" = "$(echo "$o" | awk '{$8=""; print}')" ] && echo yes || echo NO)
    printf "%-24s %-5s %s\n%-24s %-5s %s %s\n" "$pattern $bs $mode" fio "$f" "" ours "$o" "$same"
    [ "$same" = yes ] || bad=1
  done
done
exit $bad
