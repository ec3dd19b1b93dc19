#!/bin/sh
# pts-native encryption-cost on Debian's kernel, where dm-crypt exists: the probe sees
# device-mapper's crypt target, cryptsetup and the AES drivers; the plan lists every default
# set-up as buildable and refuses one the kernel cannot build (naming why); a short real run
# builds plain, fscrypt, dm-crypt and eCryptfs as named (the kernel's own report in the System
# Notes), ends with the cost table and the cheapest set-up, and leaves nothing behind. Under TCG
# the figures are no measure of speed: only that the answer comes from the measured data.
# vm-env: VM_TIMEOUT=600
. ./lib.sh
export TEST_RESULTS_NAME=enccost FORCE_TIMES_TO_RUN=2 PTS_NATIVE_TARGET_INSTANCES=2 PTS_NATIVE_MAX_TARGET_INSTANCES=2

step "the probe and the plan (--dry-run builds nothing)"
run_ok plan pts-native encryption-cost --dry-run --setups 'fscrypt,fscrypt:adiantum,dm-crypt,dm-crypt:plain,dm-crypt:loopaes,ecryptfs,Bad=dm-crypt:impl=aes-ce'
expect_in /out/plan.log "device-mapper: yes (targets: "
expect_in /out/plan.log "crypt"
expect_in /out/plan.log "cryptsetup: cryptsetup 2."
expect_in /out/plan.log "eCryptfs: yes"
expect_in /out/plan.log "Will build (7):"
expect_in /out/plan.log "dm-crypt LUKS2 AES-256-XTS ext4  [dm-crypt]"
expect_in /out/plan.log "Cannot build here:"
expect_in /out/plan.log "Bad=dm-crypt:impl=aes-ce: no AES driver aes-ce in /proc/crypto"
expect_in /out/plan.log "dm-crypt no_read_workqueue/no_write_workqueue: the kernel has it (Linux 5.9+)"
expect_in /out/plan.log "dm-crypt high_priority: needs Linux 6.10, this is 6.1"
[ -z "$(losetup -a 2>/dev/null)" ] || fail "--dry-run made loop devices: $(losetup -a)"

step "a short real run: plain, fscrypt, dm-crypt LUKS2, eCryptfs"
# eCryptfs has no O_DIRECT on this kernel (open gives EINVAL): its trials of an O_DIRECT workload
# fail, the run says so and exits 1, and the answer gives it no ratio and never names it cheapest.
before=$failures
run_ok run pts-native encryption-cost --setups fscrypt,dm-crypt,ecryptfs --workloads rand-read-4k-qd1 --target-size 256m &&
  fail "the run exited 0 although eCryptfs's trials cannot open with O_DIRECT"
[ "$failures" = $((before + 1)) ] && grep -qF "cannot open with O_DIRECT: Invalid argument" /out/run.log && failures=$before
expect_clean "after encryption-cost"
expect_in /out/run.log "Encryption cost here against plain ext4"
for setup in "fscrypt AES-256-XTS ext4" "dm-crypt LUKS2 AES-256-XTS ext4"; do
  expect_in /out/run.log "  $setup  "
done
grep -qE "^  +ecryptfs AES-128 ext4 +rand-read-4k-qd1 \(MiB/s\) +no values: its trials failed" /out/run.log ||
  fail "no row saying eCryptfs has no values"
expect_in /out/run.log "Costs least here: "
# Cost, not only speed: the latency and CPU block, dm-crypt's p50 latency and CPU time per GiB
# against plain; eCryptfs's failed trials say so there too. Caches dropped (run as root).
expect_in /out/run.log "Latency and CPU time per GiB against plain ext4 (each over plain's; above 1 costs more):"
grep -qE "^  dm-crypt LUKS2 AES-256-XTS ext4$" /out/run.log || fail "no latency and CPU block for dm-crypt"
grep -qE "^      CPU system per GiB +(different|same|unknown)" /out/run.log || fail "no CPU system per GiB verdict"
grep -qE "^      p50 Latency +no values: its trials failed" /out/run.log || fail "eCryptfs's p50 row does not say its trials failed"
expect_in /out/run.log "Caches: dropped before every trial (run.drop_caches"
# Honest I/O: fscrypt served the O_DIRECT workload buffered: marked, not ranked with dm-crypt.
expect_in /out/run.log "O_DIRECT becomes buffered I/O (fscrypt without inline encryption): rand-read-4k-qd1"
expect_in /out/run.log "O_DIRECT refused (eCryptfs has no direct I/O): rand-read-4k-qd1 will fail on it"
grep -qE "^  +fscrypt AES-256-XTS ext4 +rand-read-4k-qd1 \(MiB/s\) +buffered: not ranked with direct I/O; " /out/run.log ||
  fail "fscrypt's buffered row is not marked"
grep -q "Costs least here: fscrypt" /out/run.log && fail "a buffered set-up was ranked with direct I/O"
# The answer in words, with the commands for the dm-crypt set-up it recommends.
expect_in /out/run.log "In words: dm-crypt LUKS2 AES-256-XTS ext4 costs least here; it protects the whole device"
expect_in /out/run.log "cryptsetup luksFormat --type luks2 --cipher aes-xts-plain64 --key-size 512 /dev/DEVICE"
expect_in /out/run.log "/etc/crypttab: NAME UUID="
grep -q "Costs least here: ecryptfs" /out/run.log && fail "a set-up without values was named cheapest"
# Built as named: the kernel's own report of each set-up is in its System Notes.
run_ok json pts-native result-file-to-json enccost
expect_in /out/json.log "fscrypt v2 policy, contents AES-256-XTS"
expect_in /out/json.log "dm-crypt LUKS2"
finish
