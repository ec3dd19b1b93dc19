#!/bin/sh
# A batch-run across plain and each encrypted kind on Debian's kernel: one result file with one
# System per target, trials interleaved; then a run killed with SIGKILL while its targets are up,
# and the next command's cleanup (mappings, loop devices, lowered cipher priorities).
# vm-env: VM_TIMEOUT=420
. ./lib.sh
# One instance of each target: this scenario is about the kinds and their cleanup, not verdicts.
export TEST_RESULTS_NAME=kinds FORCE_TIMES_TO_RUN=2 PTS_NATIVE_TARGET_INSTANCES=1
export PRESET_OPTIONS='disk-seq-write.record-size=1MB;disk-seq-write.direct=No'
export PRESET_OPTIONS_VALUES='disk-seq-write.file-size=16m'

step "batch-run across plain and every kind"
run_ok batch pts-native batch-run native/disk-seq-write \
  --targets 'plain,fscrypt,dm-crypt,Stock=dm-crypt:impl=generic,ecryptfs,EC-stock=ecryptfs:impl=generic' --target-size 160m
expect_clean "after batch-run"
run_ok json pts-native result-file-to-json kinds
for system in "plain ext4" "fscrypt AES-256-XTS ext4" "dm-crypt LUKS2 AES-256-XTS ext4" Stock "ecryptfs AES-128 ext4" EC-stock; do
  expect_in /out/json.log "\"$system\""
done
cp "$PTS_NATIVE_HOME/test-results/kinds/composite.xml" /out/kinds.xml
# The hypervisor is in the System Notes: figures from a VM without KVM are no measure of speed.
expect_in /out/kinds.xml "QEMU"

step "kill -9 while the targets are up, then the next command cleans up"
kill_mid_run /out/killed.log env PTS_NATIVE_HOME=/root/killed FORCE_TIMES_TO_RUN=30 TEST_RESULTS_NAME=killed \
  pts-native batch-run native/disk-seq-write --targets 'dm-crypt,Stock=ecryptfs:impl=generic' --target-size 160m
ls /dev/mapper | grep -q ptsn || fail "kill -9 left no mapping: the cleanup below proves nothing"
run_ok cleanup env PTS_NATIVE_HOME=/root/killed pts-native targets --cleanup
expect_in /out/cleanup.log "dm-crypt mapping ptsn-"
expect_in /out/cleanup.log "the priority of cipher driver"
PTS_NATIVE_HOME=/root/killed expect_clean "after kill -9 and cleanup"
finish
