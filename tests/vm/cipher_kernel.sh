#!/bin/sh
# The kernel cipher backend (AF_ALG) on Debian's kernel: every implementation of the published
# cipher table (comparison 5: AES-CBC-128/256, AES-XTS-256, Serpent and Twofish in CBC and XTS)
# that this kernel has, each named by its driver (workload cipher --driver, and the whole table
# with workload cipher-table), encrypting and decrypting (the workload checks decrypt(encrypt(x))
# = x before it reports a figure); a driver of another algorithm is refused; `cryptsetup
# benchmark` runs beside it. Under emulation (no KVM) the figures check that it works, they are
# no measure of speed.
# vm-env: VM_TIMEOUT=420
. ./lib.sh
step "the implementations this kernel has"
for m in serpent_generic serpent-sse2-x86_64 serpent-avx-x86_64 serpent-avx2 twofish_generic twofish-x86_64 \
  twofish-x86_64-3way twofish-avx-x86_64 aes_generic aesni-intel cbc xts ecb; do
  modprobe "$m" 2>/dev/null || echo "  (no module $m)"
done
run_ok list pts-native workload list-ciphers
expect_in /out/list.log "backends: openssl, gcrypt, kernel"
expect_in /out/list.log "xts-aes-aesni"
expect_in /out/list.log "xts(ecb(aes-generic))"
expect_in /out/list.log "cbc(aes-generic)"
expect_in /out/list.log "cbc-serpent-sse2"
expect_in /out/list.log "cbc-twofish-3way"
expect_in /out/list.log "cbc(twofish-generic)"

step "each cipher of the table through each implementation"
printf '%-12s %-32s %12s %12s\n' cipher driver "enc MiB/s" "dec MiB/s" > /out/table.txt
runs=0
for cipher in aes-128-cbc aes-256-cbc aes-128-xts serpent-cbc serpent-xts twofish-cbc twofish-xts; do
  drivers=$(awk -v c="$cipher" '$1 == c {want=1; next} want && /kernel drivers:/ {sub(/.*kernel drivers: /, ""); gsub(/, /, " "); print; exit} {want=0}' /out/list.log)
  [ -n "$drivers" ] || fail "$cipher: no kernel drivers listed"
  for d in $drivers; do
    if pts-native workload cipher --cipher "$cipher" --driver "$d" --seconds 0.1 --block-size 65536 --json \
        > /out/run.json 2>/out/run.err; then
      enc=$(sed 's/.*"encrypt_mib_per_s":\([0-9.]*\).*/\1/' /out/run.json)
      dec=$(sed 's/.*"decrypt_mib_per_s":\([0-9.]*\).*/\1/' /out/run.json)
      grep -qF "\"kernel_driver\":\"$d\"" /out/run.json || fail "$cipher $d: the report does not name the driver"
      printf '%-12s %-32s %12s %12s\n' "$cipher" "$d" "$enc" "$dec" >> /out/table.txt
      runs=$((runs + 1))
    else
      fail "$cipher through $d: $(cat /out/run.err)"
    fi
  done
done
cat /out/table.txt
[ "$runs" -ge 20 ] || fail "only $runs implementations ran"

step "the whole table in one command (2 trials each, with 95 % intervals)"
run_ok table pts-native workload cipher-table --trials 2 --seconds 0.1 --save kernel-ciphers
expect_in /out/table.log "serpent-cbc  cbc-serpent-sse2"
expect_in /out/table.log "twofish-xts  xts(ecb-twofish-3way)"
expect_in /out/table.log "aes-128-xts  xts(ecb(aes-generic))"
expect_in /out/table.log "Saved "
step "the table as a result file: one system per implementation, the usual views"
run_ok table-text pts-native result-file-to-text kernel-ciphers
expect_in /out/table-text.log "Cipher: SERPENT-CBC - Direction: Encrypt"
for impl in generic aesni sse2 3way asm; do expect_in /out/table-text.log "$impl"; done
run_ok table-xml cat "$PTS_NATIVE_HOME/test-results/kernel-ciphers/composite.xml"
expect_in /out/table-xml.log "<Identifier>sse2</Identifier>"
expect_in /out/table-xml.log "Kernel cipher drivers (AF_ALG): "
if pts-native workload cipher-table --trials 1 --seconds 0.1 --save kernel-ciphers > /out/again.log 2>&1; then
  fail "a second --save kernel-ciphers overwrote the first"
fi
expect_in /out/again.log "exists (choose another name"

step "a driver of another algorithm is refused"
if pts-native workload cipher --cipher aes-128-cbc --driver xts-aes-aesni --seconds 0.1 > /out/wrong.log 2>&1; then
  fail "aes-128-cbc ran through xts-aes-aesni"
fi
expect_in /out/wrong.log "kernel driver xts-aes-aesni implements xts(aes), not cbc(aes)"
if pts-native workload cipher --cipher aes-128-cbc --driver no-such-driver --seconds 0.1 > /out/missing.log 2>&1; then
  fail "a driver the kernel lacks ran"
fi
expect_in /out/missing.log "the kernel has no no-such-driver"

step "cryptsetup benchmark beside it (the same kernel API; emulated CPU: no speed comparison)"
run_ok cryptsetup cryptsetup benchmark --cipher aes-xts-plain64 --key-size 256
finish
