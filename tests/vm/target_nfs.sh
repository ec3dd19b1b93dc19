#!/bin/sh
# The NFS client's view on Debian's kernel: targets exported by the kernel's NFS server over
# loopback and mounted by its NFSv4 client (comparison 4 as docs/targets.md gives it: raw and LUKS
# on a 4-member RAID10 with 16 KiB chunks), the NFS versions, a benchmark whose bytes are seen
# passing through the server, then a run killed with SIGKILL while its export is mounted and the
# next command's cleanup (client, export, server and its rpc.mountd, mapping, array all gone).
# vm-env: VM_TIMEOUT=480
. ./lib.sh
# One instance of each target: this scenario is about the set-up and its cleanup, not verdicts.
export PTS_NATIVE_TARGET_INSTANCES=1
no_nfs() {
  grep -qx nfsd /proc/[0-9]*/comm 2>/dev/null && fail "$1: nfsd threads left"
  grep -qx rpc.mountd /proc/[0-9]*/comm 2>/dev/null && fail "$1: rpc.mountd left"
  [ -s /var/lib/nfs/etab ] && fail "$1: exports left: $(cat /var/lib/nfs/etab)"
  grep -q '^md' /proc/mdstat && fail "$1: md arrays left: $(grep '^md' /proc/mdstat)"
  return 0
}
# Bytes the NFS server has written for its clients since the module was loaded.
nfsd_written() { awk '$1 == "io" {print $3}' /proc/net/rpc/nfsd 2>/dev/null || echo 0; }

step "comparison 4 from an NFS client: raw vs LUKS on a 4-member RAID10, 16 KiB chunks"
run_ok c4 pts-native targets --check \
  'Raw=plain:raid=10:members=4:chunk=16:nfs,LUKS=dm-crypt:raid=10:members=4:chunk=16:nfs' --target-size 64m
expect_in /out/c4.log "Raw: set up"
expect_in /out/c4.log "LUKS: set up"
expect_in /out/c4.log "NFS: the tests run on an NFSv4.2 client mount over loopback (rw,"
expect_in /out/c4.log "vers=4.2"
expect_in /out/c4.log "exportfs -o rw,sync,no_subtree_check,no_root_squash,insecure"
expect_in /out/c4.log "md raid10 /dev/md"
expect_clean "after comparison 4"
no_nfs "after comparison 4"

step "NFSv4.0 and 4.1 clients, xfs beneath"
run_ok versions pts-native targets --check 'A=plain:xfs:nfs=4.0,B=plain:nfs=4.1' --target-size 320m
expect_in /out/versions.log "vers=4.0"
expect_in /out/versions.log "vers=4.1"
expect_in /out/versions.log "File System: xfs"
expect_clean "after the versions"
no_nfs "after the versions"

step "a benchmark on dm-crypt seen from the NFS client"
before=$(nfsd_written)
PRESET_OPTIONS='disk-seq-write.record-size=1MB;disk-seq-write.direct=No' \
  PRESET_OPTIONS_VALUES='disk-seq-write.file-size=16m' FORCE_TIMES_TO_RUN=1 TEST_RESULTS_NAME=nfs \
  run_ok bench pts-native batch-run native/disk-seq-write --targets 'LUKS=dm-crypt:nfs' --target-size 128m
after=$(nfsd_written)
echo "  the NFS server wrote $((after - before)) bytes for its client"
[ $((after - before)) -ge 16777216 ] || fail "the benchmark's 16 MiB did not pass through the NFS server ($((after - before)) bytes)"
run_ok xml cat "$PTS_NATIVE_HOME/test-results/nfs/composite.xml"
expect_in /out/xml.log "client mount over loopback"
expect_in /out/xml.log "dm-crypt LUKS2"
expect_clean "after batch-run"
no_nfs "after batch-run"

step "kill -9 while the export is mounted, then the next command cleans up"
kill_mid_run /out/killed.log env PTS_NATIVE_HOME=/root/killed FORCE_TIMES_TO_RUN=30 TEST_RESULTS_NAME=killed \
  PRESET_OPTIONS='disk-seq-write.record-size=1MB;disk-seq-write.direct=No' PRESET_OPTIONS_VALUES='disk-seq-write.file-size=16m' \
  pts-native batch-run native/disk-seq-write --targets 'dm-crypt:raid=1:nfs' --target-size 128m
sleep 1
# The server's threads stop by themselves when its nfsd file system goes with the run's mount
# namespace; its export stays in exportfs's table, and the array and mapping stay held, until
# the cleanup withdraws it.
grep -qx nfsd /proc/[0-9]*/comm && echo "  nfsd threads still running after the kill"
grep -q . /var/lib/nfs/etab || fail "kill -9 left no export: the cleanup below proves nothing"
grep -q '^md' /proc/mdstat || fail "kill -9 left no array: the cleanup below proves nothing"
grep -qx rpc.mountd /proc/[0-9]*/comm && fail "rpc.mountd outlived the run it served (PR_SET_PDEATHSIG)"
started=$(date +%s)
if ! run_ok cleanup env PTS_NATIVE_HOME=/root/killed pts-native targets --cleanup; then
  # What still held the devices, for whoever reads this failure (the kernel's side of it).
  echo "  cleanup took $(( $(date +%s) - started )) s; what the kernel still holds:"
  mkdir -p /tmp/nfsd-probe && mount -t nfsd nfsd /tmp/nfsd-probe 2>/dev/null &&
    echo "  nfsd threads: $(cat /tmp/nfsd-probe/threads)" && umount /tmp/nfsd-probe
  grep -h ptsn-targets /proc/[0-9]*/mountinfo 2>/dev/null | sort -u | sed 's/^/  mountinfo: /'
  sed 's/^/  nfsd.export: /' /proc/net/rpc/nfsd.export/content 2>/dev/null | grep -v '^  nfsd.export: #'
  dmsetup info -c 2>/dev/null | sed 's/^/  dmsetup: /'
  sleep 30
  env PTS_NATIVE_HOME=/root/killed pts-native targets --cleanup 2>&1 | sed 's/^/  a second cleanup 30 s later: /'
fi
expect_in /out/cleanup.log "NFS export 127.0.0.1:"
PTS_NATIVE_HOME=/root/killed expect_clean "after kill -9 and cleanup"
no_nfs "after kill -9 and cleanup"
finish
