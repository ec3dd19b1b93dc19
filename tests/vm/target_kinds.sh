#!/bin/sh
# Every target kind and option, created, described and removed on Debian's kernel
# (pts-native targets --check): plain ext4/xfs/btrfs/reiserfs; fscrypt AES-256-XTS and Adiantum, the
# generic AES and AES-NI; dm-crypt LUKS2 and plain with impl=generic, impl=aesni, impl=DRIVER
# and cipher=; eCryptfs with the generic AES and AES-NI; the I/O scheduler (sched=). The System
# Notes must name the driver and the scheduler asked for.
# vm-env: VM_TIMEOUT=420
. ./lib.sh
step "what this kernel offers"
run_ok kinds pts-native targets
expect_in /out/kinds.log "dm-crypt: available"
expect_in /out/kinds.log "ecryptfs: available"

step "plain ext4 and btrfs, fscrypt, eCryptfs"
run_ok small pts-native targets --check \
  'plain,plain:btrfs,fscrypt,fscrypt:adiantum,FS-stock=fscrypt:impl=generic,FS-aesni=fscrypt:impl=aesni,ecryptfs,EC-stock=ecryptfs:impl=generic,EC-aesni=ecryptfs:impl=aesni:key-bytes=32' \
  --target-size 128m
expect_in /out/small.log "Cipher Driver: adiantum(xchacha12,aes)"
# The stock targets: the generic AES chosen, the AES-NI drivers lowered and named
expect_in /out/small.log "FS-stock: set up"
expect_in /out/small.log "xts(aes): xts(ecb(aes-generic))"
expect_in /out/small.log "Implementation: the generic AES: fscrypt cannot name a driver"
expect_in /out/small.log "cbc(aes): cbc(aes-generic)"
expect_in /out/small.log "xts(aes): xts-aes-aesni"
expect_in /out/small.log "cbc(aes): cbc-aes-aesni"
expect_in /out/small.log "Encryption: eCryptfs over ext4, cipher AES-256"
expect_clean "after --check"

step "loop-AES volumes, as cryptsetup opens them (the loop-AES module is no longer packaged)"
run_ok loopaes pts-native targets --check 'LA=dm-crypt:loopaes,LA128=dm-crypt:loopaes:key-size=128:xfs' --target-size 320m
expect_in /out/loopaes.log "loop-AES v3 volume (64 sector keys and an IV key, random per run, sha512-hashed), AES-256"
expect_in /out/loopaes.log "sha256-hashed), AES-128"
expect_in /out/loopaes.log "dm-crypt cipher aes:64-cbc-lmk"
expect_in /out/loopaes.log "cbc(aes): "
expect_clean "after loopaes"

step "the I/O scheduler of the target's loop device (sched=)"
run_ok sched pts-native targets --check 'B=plain:sched=bfq,D=dm-crypt:plain:sched=mq-deadline,N=plain:sched=none' --target-size 64m
expect_in /out/sched.log "I/O Scheduler: bfq"
expect_in /out/sched.log "I/O Scheduler: mq-deadline"
expect_in /out/sched.log "I/O Scheduler: none"
expect_clean "after sched="

step "ReiserFS with the deadline scheduler, plain and beneath dm-crypt (the published comparison 3's)"
run_ok reiser pts-native targets --check 'R=plain:reiserfs:sched=mq-deadline,RC=dm-crypt:reiserfs' --target-size 128m
expect_in /out/reiser.log "File System: reiserfs (mkfs.reiserfs -f -f -q)"
expect_in /out/reiser.log "I/O Scheduler: mq-deadline"
expect_clean "after reiserfs"

step "plain xfs (mkfs.xfs wants 300 MB at least)"
run_ok xfs pts-native targets --check plain:xfs --target-size 320m
expect_in /out/xfs.log "File System: xfs"

step "dm-crypt: LUKS2 and plain, each implementation"
run_ok dm pts-native targets --check \
  'dm-crypt,dm-crypt:plain,Stock=dm-crypt:impl=generic,AES-NI=dm-crypt:impl=aesni,Driver=dm-crypt:plain:impl=xts-aes-aesni,Capi=dm-crypt:plain:cipher=capi:xts(aes)-plain64,CBC=dm-crypt:plain:key-size=256:cipher=aes-cbc-essiv:sha256' \
  --target-size 64m
expect_in /out/dm.log "cipher capi:xts(ecb(aes-generic))-plain64"
expect_in /out/dm.log "xts(aes): xts(ecb(aes-generic))"
expect_in /out/dm.log "cipher capi:xts-aes-aesni-plain64"
expect_in /out/dm.log "Encryption: dm-crypt plain, cipher aes-cbc-essiv:sha256, 256-bit key"
expect_clean "after dm-crypt --check"

step "an implementation the kernel lacks is refused, naming what it has"
if pts-native targets --check dm-crypt:impl=aes-ce --target-size 64m > /out/refused.log 2>&1; then
  fail "impl=aes-ce was accepted"
fi
expect_in /out/refused.log "no AES driver aes-ce in /proc/crypto (aes cipher drivers here: "
finish
