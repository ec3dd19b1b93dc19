#!/usr/bin/env bash
# Native cipher workload vs its anchors, side by side in one run:
#   openssl speed -elapsed -evp CIPHER -bytes SECTOR   (OpenSSL's own loop, no per-sector IV)
#   bench/gcrypt_ref CIPHER SECTOR                     (plain libgcrypt loop, IV per sector)
#   pts-native workload cipher --cipher CIPHER --threads 1 --direction encrypt
# each REPEATS times, interleaved, single-threaded; prints medians, the ratio of ours to the faster
# anchor (goal >= 0.95), and the 2-thread scaling of ours (goal >= 1.8 on 2 cores).
#   bench/bench_cipher.sh [build-dir]   env: REPEATS=5 SECONDS_EACH=2 SECTOR=4096 CIPHERS="..."
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BIN=$BUILD/pts-native
REPEATS=${REPEATS:-5}
SECS=${SECONDS_EACH:-2}
SECTOR=${SECTOR:-4096}
CIPHERS=${CIPHERS:-"aes-128-cbc aes-256-cbc aes-128-xts aes-256-xts aes-256-gcm chacha20-poly1305 serpent-xts twofish-xts"}
REF=$BUILD/gcrypt_ref
cc -O2 -o "$REF" bench/gcrypt_ref.c $(pkg-config --cflags --libs libgcrypt)
[ -x "$BIN" ] || { echo "build pts-native first ($BIN)"; exit 1; }

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
spread() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {printf "%.0f%%", (a[NR]-a[1])/a[int((NR+1)/2)]*100}'; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sector $SECTOR bytes, $SECS s per measurement, $REPEATS repeats interleaved; MiB/s medians (spread = (max-min)/median)"
printf "%-18s %12s %12s %12s %9s %-8s %7s\n" cipher openssl-speed gcrypt-loop ours ours/best backend spread
for c in $CIPHERS; do
  o="" g="" n="" backend=""
  for ((i = 0; i < REPEATS; i++)); do
    if [[ $c != serpent* && $c != twofish* ]]; then
      kb=$(openssl speed -elapsed -seconds "$SECS" -bytes "$SECTOR" -evp "$c" 2>/dev/null | tail -1 | awk '{print $2}' | tr -d k)
      o+=" $(awk -v k="$kb" 'BEGIN {printf "%.2f", k * 1000 / 1048576}')"
    fi
    g+=" $("$REF" "$c" "$SECTOR" "$SECS" | awk '{print $2}')"
    out=$("$BIN" workload cipher --cipher "$c" --block-size "$SECTOR" --seconds "$SECS" --direction encrypt --threads 1 --json)
    n+=" $(echo "$out" | json encrypt_mib_per_s)"
    backend=$(echo "$out" | json backend)
  done
  om=$( [ -n "$o" ] && echo "$o" | median || echo "-")
  gm=$(echo "$g" | median); nm=$(echo "$n" | median)
  best=$(awk -v a="${om/-/0}" -v b="$gm" 'BEGIN {print (a > b ? a : b)}')
  printf "%-18s %12s %12s %12s %9.3f %-8s %7s\n" "$c" "$om" "$gm" "$nm" "$(awk -v n="$nm" -v b="$best" 'BEGIN {print n / b}')" "$backend" "$(echo "$n" | spread)"
done

echo
echo "thread scaling (ours, aes-256-xts encrypt, $SECTOR-byte sectors)"
t1="" t2=""
for ((i = 0; i < REPEATS; i++)); do
  t1+=" $("$BIN" workload cipher --cipher aes-256-xts --seconds "$SECS" --direction encrypt --threads 1 --json | json encrypt_mib_per_s)"
  t2+=" $("$BIN" workload cipher --cipher aes-256-xts --seconds "$SECS" --direction encrypt --threads 2 --json | json encrypt_mib_per_s)"
done
m1=$(echo "$t1" | median); m2=$(echo "$t2" | median)
echo "1 thread: $m1 MiB/s (spread $(echo "$t1" | spread)); 2 threads: $m2 MiB/s (spread $(echo "$t2" | spread)); scaling $(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.2f", a / b}')x"
