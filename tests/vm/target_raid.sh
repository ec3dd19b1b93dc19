#!/bin/sh
# Software RAID (md) beneath the target kinds on Debian's kernel: raid0/1/5/10 under plain, raid1
# under dm-crypt and fscrypt, a short benchmark on one, then a run killed with SIGKILL while its
# array is up and the next command's cleanup (array stopped, superblocks wiped, loop devices gone).
# vm-env: VM_TIMEOUT=420
. ./lib.sh
# One instance of each target: this scenario is about the set-up and its cleanup, not verdicts.
export PTS_NATIVE_TARGET_INSTANCES=1
no_md() {
  grep -q '^md' /proc/mdstat && fail "$1: md arrays left: $(grep '^md' /proc/mdstat)"
  return 0
}

step "raid0, raid1, raid5, raid10 under plain; raid1 under dm-crypt and fscrypt"
run_ok levels pts-native targets --check \
  'R0=plain:raid=0:chunk=64,R1=plain:raid=1,R5=plain:raid=5,R10=plain:raid=10:sched=mq-deadline,DR=dm-crypt:raid=1,FR=fscrypt:raid=1' \
  --target-size 64m
expect_in /out/levels.log "RAID: md raid0 /dev/md"
expect_in /out/levels.log "chunk 64 KiB"
expect_in /out/levels.log "md raid1 /dev/md"
expect_in /out/levels.log ", 3 members of 64 MiB"
expect_in /out/levels.log "md raid10 /dev/md"
expect_in /out/levels.log "I/O Scheduler: mq-deadline (each RAID member)"
expect_in /out/levels.log "DR: set up"
expect_in /out/levels.log "FR: set up"
expect_clean "after --check"
no_md "after --check"

# The commands docs/targets.md gives for the published comparisons 3 and 4, their systems made
# and removed (the benchmarks themselves, bonnie++ on each, take far longer than a VM scenario).
C3_DM=plain:reiserfs:sched=mq-deadline:key-size=256:cipher=aes-cbc-essiv:sha256
C3_LA=loopaes:key-size=256:reiserfs:sched=mq-deadline
step "comparison 3: {no RAID, RAID1, RAID5} x {dm-crypt, loop-AES}, ReiserFS, deadline"
run_ok c3 pts-native targets --check "dm-crypt=dm-crypt:$C3_DM,loop-AES=dm-crypt:$C3_LA,RAID1 dm-crypt=dm-crypt:raid=1:$C3_DM,RAID1 loop-AES=dm-crypt:raid=1:$C3_LA,RAID5 dm-crypt=dm-crypt:raid=5:$C3_DM,RAID5 loop-AES=dm-crypt:raid=5:$C3_LA" \
  --target-size 128m
expect_in /out/c3.log "RAID5 loop-AES: set up"
expect_in /out/c3.log "Encryption: dm-crypt plain, cipher aes-cbc-essiv:sha256, 256-bit key"
expect_in /out/c3.log "File System: reiserfs"
expect_in /out/c3.log "I/O Scheduler: mq-deadline (each RAID member)"
expect_clean "after comparison 3"
no_md "after comparison 3"
step "comparison 4: raw vs LUKS on a 4-disk RAID10 with 16 KiB chunks"
run_ok c4 pts-native targets --check 'Raw=plain:raid=10:members=4:chunk=16,LUKS=dm-crypt:raid=10:members=4:chunk=16' --target-size 64m
expect_in /out/c4.log "md raid10 /dev/md"
expect_in /out/c4.log "chunk 16 KiB"
expect_in /out/c4.log "LUKS: set up"
expect_clean "after comparison 4"
no_md "after comparison 4"

step "a benchmark on a RAID5 target"
PRESET_OPTIONS='disk-seq-write.record-size=1MB;disk-seq-write.direct=No' \
  PRESET_OPTIONS_VALUES='disk-seq-write.file-size=16m' FORCE_TIMES_TO_RUN=1 TEST_RESULTS_NAME=raid \
  run_ok bench pts-native batch-run native/disk-seq-write --targets 'R5=plain:raid=5' --target-size 64m
run_ok xml cat "$PTS_NATIVE_HOME/test-results/raid/composite.xml"
expect_in /out/xml.log "md raid5"
expect_clean "after batch-run"
no_md "after batch-run"

step "kill -9 while the array is up, then the next command cleans up"
kill_mid_run /out/killed.log env PTS_NATIVE_HOME=/root/killed FORCE_TIMES_TO_RUN=30 TEST_RESULTS_NAME=killed \
  PRESET_OPTIONS='disk-seq-write.record-size=1MB;disk-seq-write.direct=No' PRESET_OPTIONS_VALUES='disk-seq-write.file-size=16m' \
  pts-native batch-run native/disk-seq-write --targets 'dm-crypt:raid=1' --target-size 64m
grep -q '^md' /proc/mdstat || fail "kill -9 left no array: the cleanup below proves nothing"
run_ok cleanup env PTS_NATIVE_HOME=/root/killed pts-native targets --cleanup
expect_in /out/cleanup.log "md array /dev/md"
PTS_NATIVE_HOME=/root/killed expect_clean "after kill -9 and cleanup"
no_md "after kill -9 and cleanup"
finish
