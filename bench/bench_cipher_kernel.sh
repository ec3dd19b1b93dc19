#!/bin/sh
# The kernel cipher backend (AF_ALG) beside `cryptsetup benchmark`, cipher for cipher, through
# the same kernel driver (the kernel's choice: the highest priority, which both get), single
# thread, 64 KiB requests as cryptsetup makes them. Issue 32's goal: ours at least 0.9x its
# figure. Prints, per cipher and direction, the median of TRIALS (3) alternating runs of each and
# the ratio ours / cryptsetup.
#   On a kernel with AF_ALG (algif_skcipher) and cryptsetup:  PTSN=build/pts-native sh bench/bench_cipher_kernel.sh
#   On Debian's kernel in the VM:                              bash contrib/vm.sh bench/bench_cipher_kernel.sh
# Under TCG (no KVM) the speeds are emulated: only the ratio means something there, and only
# roughly; on KVM or bare metal this is the benchmark.
PTSN=${PTSN:-pts-native}
TRIALS=${TRIALS:-3}
SECONDS_EACH=${SECONDS_EACH:-1}
# The driver the kernel hands out for ALGORITHM ("cbc(aes)"): the highest priority in /proc/crypto.
kernel_choice() {
  awk -v want="$1" '/^name/ {n=$3} /^driver/ {d=$3} /^priority/ {p=$3} /^type/ && n == want && $3 == "skcipher" && p > best {best=p; pick=d} END {print pick}' /proc/crypto
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
command -v cryptsetup >/dev/null || { echo "bench_cipher_kernel: cryptsetup not found (Debian package cryptsetup-bin)"; exit 77; }
if ! "$PTSN" workload cipher --cipher aes-128-cbc --backend kernel --seconds 0.05 >/dev/null 2>&1; then
  echo "bench_cipher_kernel: the kernel backend cannot run here: $("$PTSN" workload cipher --cipher aes-128-cbc --backend kernel --seconds 0.05 2>&1 | tail -1)"
  exit 77
fi
echo "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs; $TRIALS alternating trials of ${SECONDS_EACH} s (ours) and one cryptsetup benchmark each"
printf '%-12s %5s  %-24s %11s %11s %6s  %11s %11s %6s\n' cipher key driver "enc ours" "enc cs" ratio "dec ours" "dec cs" ratio
failed=0
# ours (pts-native's name) / cryptsetup's cipher and key size
for row in aes-128-cbc:aes-cbc:128 aes-256-cbc:aes-cbc:256 aes-128-xts:aes-xts:256 aes-256-xts:aes-xts:512 \
           serpent-cbc:serpent-cbc:256 twofish-cbc:twofish-cbc:256; do
  ours=${row%%:*}; rest=${row#*:}; cs=${rest%%:*}; bits=${rest#*:}
  oe=""; od=""; ce=""; cd=""; driver=""
  i=0
  while [ $i -lt "$TRIALS" ]; do
    json=$("$PTSN" workload cipher --cipher "$ours" --key-bits "$bits" --backend kernel --threads 1 --block-size 65536 \
      --seconds "$SECONDS_EACH" --json 2>/dev/null) || { json=""; }
    oe="$oe $(echo "$json" | sed -n 's/.*"encrypt_mib_per_s":\([0-9.]*\).*/\1/p')"
    od="$od $(echo "$json" | sed -n 's/.*"decrypt_mib_per_s":\([0-9.]*\).*/\1/p')"
    line=$(cryptsetup benchmark --cipher "$cs" --key-size "$bits" 2>/dev/null | awk -v c="$cs" '$1 == c {print $3, $5}')
    ce="$ce ${line%% *}"; cd="$cd ${line##* }"
    i=$((i + 1))
  done
  driver=$(kernel_choice "${cs#*-}(${cs%%-*})")  # aes-cbc -> cbc(aes), listed once either has used it
  me=$(echo "$oe" | median); md=$(echo "$od" | median); mce=$(echo "$ce" | median); mcd=$(echo "$cd" | median)
  if [ -z "$me" ] || [ -z "$mce" ]; then
    printf '%-12s %5s  %s\n' "$ours" "$bits" "not measured (ours: '${oe# }', cryptsetup: '${ce# }')"
    continue
  fi
  re=$(awk -v a="$me" -v b="$mce" 'BEGIN {printf "%.2f", a / b}')
  rd=$(awk -v a="$md" -v b="$mcd" 'BEGIN {printf "%.2f", a / b}')
  printf '%-12s %5s  %-24s %11s %11s %6s  %11s %11s %6s\n' "$ours" "$bits" "$driver" "$me" "$mce" "$re" "$md" "$mcd" "$rd"
  awk -v r="$re" -v s="$rd" 'BEGIN {exit !(r < 0.9 || s < 0.9)}' && failed=$((failed + 1))
done
echo "goal: ours >= 0.9x cryptsetup benchmark for every row; rows below it: $failed"
