#!/usr/bin/env bash
# Native cipher workload vs its anchors, side by side in one run:
#   openssl speed -elapsed -evp CIPHER -bytes SECTOR   (OpenSSL's own loop, no per-sector IV)
#     AEAD ciphers (aes-256-gcm, chacha20-poly1305): openssl speed -evp streams one endless message
#     (one nonce, no tag per block) and even -aead reuses one nonce and never reads the tag, so their
#     openssl column is instead `gcrypt_ref CIPHER SECTOR SECS openssl`: an EVP loop with a new
#     nonce, final and tag read per sector — the work our engine and dm-crypt's AEAD modes do.
#   bench/gcrypt_ref CIPHER SECTOR                     (plain libgcrypt loop, IV per sector)
#   pts-native workload cipher --cipher CIPHER --threads 1 --direction encrypt
# each REPEATS times, interleaved, single-threaded; prints medians, the ratio of ours to the faster
# anchor (goal >= 0.95), and the 2-thread scaling of ours (goal >= 1.8 on 2 cores).
# Two tables: wall-clock MiB/s (openssl speed -elapsed) and MiB per CPU-second (openssl speed
# without -elapsed, i.e. its CPU-time mode; the others' own CPU clocks): on a machine shared with
# other jobs the second is the fair comparison, the first is what a user sees.
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
cc -O2 -o "$REF" bench/gcrypt_ref.c $(pkg-config --cflags --libs libgcrypt libcrypto)
[ -x "$BIN" ] || { echo "build pts-native first ($BIN)"; exit 1; }

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
spread() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {printf "%.0f%%", (a[NR]-a[1])/a[int((NR+1)/2)]*100}'; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sector $SECTOR bytes, $SECS s per measurement, $REPEATS repeats interleaved; MiB/s medians (spread = (max-min)/median)"
speed() {  # openssl speed in MiB/s; $1 = -elapsed or nothing (CPU time)
  local kb
  kb=$(openssl speed $1 -seconds "$SECS" -bytes "$SECTOR" -evp "$2" 2>/dev/null | tail -1 | awk '{print $2}' | tr -d k)
  awk -v k="$kb" 'BEGIN {printf "%.2f", k * 1000 / 1048576}'
}
row() {  # name openssl-values gcrypt-values ours-values backend
  local om gm nm best
  om=$( [ -n "$2" ] && echo "$2" | median || echo "-")
  gm=$(echo "$3" | median); nm=$(echo "$4" | median)
  best=$(awk -v a="${om/-/0}" -v b="$gm" 'BEGIN {print (a > b ? a : b)}')
  printf "%-18s %12s %12s %12s %9.3f %-8s %6s/%-6s/%-6s\n" "$1" "$om" "$gm" "$nm" "$(awk -v n="$nm" -v b="$best" 'BEGIN {print n / b}')" "$5" \
    "$( [ -n "$2" ] && echo "$2" | spread || echo -)" "$(echo "$3" | spread)" "$(echo "$4" | spread)"
}
header() { printf "%-18s %12s %12s %12s %9s %-8s %s\n" cipher "openssl(*)" gcrypt-loop ours ours/best backend "spread o/g/ours"; }
ours_run() {  # appends to n, nc, backends
  local out
  out=$("$BIN" workload cipher --cipher "$1" --block-size "$SECTOR" --seconds "$SECS" --direction encrypt --threads 1 --json)
  n+=" $(echo "$out" | json encrypt_mib_per_s)"; nc+=" $(echo "$out" | json encrypt_mib_per_cpu_s)"
  backends+=" $(echo "$out" | json backend)"
}
wall_rows="" cpu_rows=""
for c in $CIPHERS; do
  o="" oc="" g="" gc="" n="" nc="" backends=""
  for ((i = 0; i < REPEATS; i++)); do
    if [[ $c == *gcm || $c == *poly1305 ]]; then
      read -r _ ow ocpu <<< "$("$REF" "$c" "$SECTOR" "$SECS" openssl)"
      o+=" $ow"; oc+=" $ocpu"
    elif [[ $c != serpent* && $c != twofish* ]]; then
      o+=" $(speed -elapsed "$c")"
      oc+=" $(speed "" "$c")"
    fi
    # The reference loop and ours take turns going first (no position bias between the two).
    ((i % 2)) && ours_run "$c"
    read -r _ gw gcpu <<< "$("$REF" "$c" "$SECTOR" "$SECS")"
    g+=" $gw"; gc+=" $gcpu"
    ((i % 2)) || ours_run "$c"
  done
  # Auto backend choice per run; a row whose runs did not all pick the same backend says so.
  backend=$(echo "$backends" | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | awk '{printf "%s%s", (NR > 1 ? "+" : ""), ($1 == '"$REPEATS"' ? $2 : $2 "x" $1)}')
  wall_rows+="$(row "$c" "$o" "$g" "$n" "$backend")"$'\n'
  cpu_rows+="$(row "$c" "$oc" "$gc" "$nc" "$backend")"$'\n'
done
echo "(*) openssl speed -evp; for aes-256-gcm and chacha20-poly1305 an EVP loop with nonce+tag per sector (gcrypt_ref ... openssl)"
echo "== wall clock, MiB/s"; header; printf "%s" "$wall_rows"
echo "== per CPU-second, MiB/s"; header; printf "%s" "$cpu_rows"

echo
echo "thread scaling (ours, aes-256-xts encrypt, $SECTOR-byte sectors)"
t1="" t2="" c1="" c2=""
for ((i = 0; i < REPEATS; i++)); do
  out=$("$BIN" workload cipher --cipher aes-256-xts --backend gcrypt --seconds "$SECS" --direction encrypt --threads 1 --json)
  t1+=" $(echo "$out" | json encrypt_mib_per_s)"; c1+=" $(echo "$out" | json encrypt_mib_per_cpu_s)"
  out=$("$BIN" workload cipher --cipher aes-256-xts --backend gcrypt --seconds "$SECS" --direction encrypt --threads 2 --json)
  t2+=" $(echo "$out" | json encrypt_mib_per_s)"; c2+=" $(echo "$out" | json encrypt_mib_per_cpu_s)"
done
m1=$(echo "$t1" | median); m2=$(echo "$t2" | median)
echo "wall: 1 thread $m1 MiB/s (spread $(echo "$t1" | spread)), 2 threads $m2 MiB/s (spread $(echo "$t2" | spread)): scaling $(awk -v a="$m2" -v b="$m1" 'BEGIN {printf "%.2f", a / b}')x"
# Per CPU-second of each worker: equal figures mean the threads do not slow each other down, so
# the wall-clock scaling is bounded only by how many cores are free.
p1=$(echo "$c1" | median); p2=$(echo "$c2" | median)
echo "per CPU-second and thread: 1 thread $p1, 2 threads $p2 MiB/s: per-thread efficiency $(awk -v a="$p2" -v b="$p1" 'BEGIN {printf "%.2f", a / b}') (scaling = 2 x this on 2 idle cores)"

# PBKDF2, measured as cryptsetup measures it (iterations per user-CPU-second of one long derivation).
if command -v cryptsetup >/dev/null; then
  echo
  echo "PBKDF2 iterations per second, 256-bit key (cryptsetup benchmark --pbkdf pbkdf2 vs ours, OpenSSL backend)"
  for h in sha256 sha512; do
    cs="" ns=""
    for ((i = 0; i < REPEATS; i++)); do
      cs+=" $(cryptsetup benchmark --pbkdf pbkdf2 --hash "$h" 2>/dev/null | awk '/^PBKDF2/ {print $2}')"
      ns+=" $("$BIN" workload pbkdf2 --hash "$h" | awk '/^PBKDF2/ {print $2}')"
    done
    cm=$(echo "$cs" | median); nm=$(echo "$ns" | median)
    printf "%-14s cryptsetup %10s  ours %10s  ratio %.3f  spread %s/%s\n" "PBKDF2-$h" "$cm" "$nm" \
      "$(awk -v n="$nm" -v c="$cm" 'BEGIN {print n / c}')" "$(echo "$cs" | spread)" "$(echo "$ns" | spread)"
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
