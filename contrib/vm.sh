#!/usr/bin/env bash
# Runs a scenario script as root inside a VM booted with Debian 12's own kernel, so code that
# drives the kernel (device-mapper, md, eCryptfs, the crypto API) runs against a real one even
# where the host's kernel lacks those features.
#
#   bash contrib/vm.sh SCRIPT [ARG...]   boot, run SCRIPT with pts-native on PATH, power off;
#                                        prints the script's output, exits with its status
#   bash contrib/vm.sh --prepare         fetch and unpack the kernel, build the base initramfs
#   bash contrib/vm.sh --check           exit 0 when a VM can run here (every program and library
#                                        the VM needs is present and resolves), else 77 and why
#   bash contrib/vm.sh --packages        the Debian packages the host needs for the VM, one a line
#                                        (contrib/setup.sh --deps installs them)
#
# Inside: busybox, pts-native (the build's, stripped of debug info) with its bundled profiles and
# results, cryptsetup, mkfs.{ext4,xfs,btrfs,reiserfs}, mdadm, the eCryptfs and keyutils tools, bonnie++
# (fio is left out: its libraries, ceph's and ICU's, would triple the initramfs), the
# kernel modules the targets need (loaded at boot), an empty ext4 scratch disk at /scratch
# (PTS_NATIVE_TEST_DIR=/scratch/test), no network. SCRIPT is /scenario/run.sh, beside the *.sh
# files of its directory;
# files the script writes under /out appear in $VM_OUT on the host afterwards.
#
# Environment:
#   VM_OUT          where /out lands (default ./vm-out; emptied first)
#   PTSN_BUILD      the build directory whose pts-native goes in (default build)
#   PTSN_VM_CACHE   the kernel and base initramfs (default ~/.cache/pts-native/vm)
#   VM_TIMEOUT      seconds before the VM is stopped (default 300; exit 124)
#   VM_MEM, VM_CPUS, VM_SCRATCH_SIZE   guest memory in MiB (2048), CPUs (2), scratch disk (3G)
#   VM_SCRATCH      disk (default: ext4 on a virtio disk, direct I/O works) or tmpfs (in guest
#                   memory: far fewer emulated I/O round trips, for scenarios that fsync a lot)
#   VM_ACCEL        kvm or tcg: use that accelerator, no fallback (default: KVM where /dev/kvm
#                   opens and has been seen to boot this kernel, else TCG)
#   VM_KVM_DEADLINE seconds a KVM boot has to reach /init before TCG is used instead (20)
#   PTSN_REQUIRE    a comma list of proofs that must not be skipped; with "vm" in it, a VM that
#                   cannot run here is a failure (exit 1, saying why) instead of a skip (77)
# A scenario may set these for itself with lines "# vm-env: NAME=VALUE" (the environment wins).
#
# Exit status: the script's; 77 when no VM can run here (no qemu, kernel not to be had: the
# reason is printed; CTest skips on it), 1 instead under PTSN_REQUIRE=vm; 124 on timeout; 125
# when the VM ended without the script's status (a kernel panic, a failed boot).
#
# KVM is trusted only once it boots the guest: a /dev/kvm that opens may belong to a nested KVM
# that boots only special guest kernels (kvm-pvm), and Debian's kernel then prints nothing,
# ever. A KVM boot that has not reached /init within VM_KVM_DEADLINE seconds is stopped and the
# VM booted again under TCG (emulation), and that answer is remembered in the cache for this
# kernel, host kernel and qemu. Under TCG, timings inside check correctness only, never speed.
# Killed (Ctrl-C, SIGTERM, a CTest timeout, even SIGKILL) it leaves no qemu behind.
# Debian's kernel package is fetched with apt-get download, not installed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${PTSN_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pts-native/vm}
BUILD=${PTSN_BUILD:-$ROOT/build}
OUT_DIR=${VM_OUT:-$PWD/vm-out}
TIMEOUT=${VM_TIMEOUT:-300}
MEM=${VM_MEM:-2048}
CPUS=${VM_CPUS:-2}
SCRATCH_SIZE=${VM_SCRATCH_SIZE:-3G}

# Module directories copied whole, so the kernel's on-demand loads (a cipher mode, a hash, a
# template that a cryptsetup or fscrypt set-up asks for) find what a normal system would have.
MODULE_DIRS=(kernel/crypto kernel/arch/x86/crypto kernel/lib/crypto)
# Modules loaded at boot (with what they depend on): the targets' kinds and options.
MODULES=(virtio_pci virtio_blk loop dm-mod dm-crypt ext4 xfs btrfs reiserfs ecryptfs xts ecb cts adiantum
  nhpoly1305 chacha_generic aesni-intel af_alg algif_skcipher algif_hash crypto_user
  md-mod raid0 raid1 raid10 raid456 bfq nfsd nfsv4)
# Host programs copied in, with the shared libraries they load (the guest's userland is the
# host's: both Debian 12), each as PROGRAM:PACKAGE (the Debian package that installs it).
PROGRAMS=(cryptsetup:cryptsetup-bin mkfs.ext4:e2fsprogs mke2fs:e2fsprogs mkfs.xfs:xfsprogs
  mkfs.btrfs:btrfs-progs mkfs.reiserfs:reiserfsprogs mdadm:mdadm blkid:util-linux kmod:kmod
  keyctl:keyutils ecryptfs-add-passphrase:ecryptfs-utils bonnie++:bonnie++)
# What the host itself runs to make and boot the VM (depmod comes with kmod).
HOST_PACKAGES=(qemu-system-x86 busybox-static cpio kmod util-linux coreutils)

# The kernel NFS server's programs, unpacked from Debian's nfs-kernel-server package into the
# cache (apt-get download), not installed on the host: installing it would start an NFS server
# there. Their libraries are the host's: the lib* packages nfs-kernel-server depends on are
# installed (see unpacked_package_libraries), and netbase for /etc/services, which they read.
NFS_PACKAGE=nfs-kernel-server
NFS_PROGRAMS=(rpc.nfsd rpc.mountd exportfs)
NFS_DATA_PACKAGES=(netbase)

# Libraries programs load with dlopen, which ldd cannot see: NSS's crypto modules (libecryptfs
# hashes the passphrase through NSS), from the package that ships them.
DLOPEN_PACKAGES=(libnss3)

die() { echo "vm.sh: $*" >&2; exit "${2:-1}"; }
required() { local list=${PTSN_REQUIRE:-}; case ",${list// /}," in *",$1,"*) return 0 ;; esac; return 1; }
skip() {
  if required vm; then
    echo "vm.sh: the real-kernel proof is required here (PTSN_REQUIRE=$PTSN_REQUIRE) and cannot run: $*" >&2; exit 1
  fi
  echo "vm.sh: cannot run a VM here: $*" >&2; exit 77
}

program_name() { echo "${1%%:*}"; }
program_path() {  # NAME: its path on PATH or in the sbin directories, or nothing
  local d; command -v "$1" 2>/dev/null && return
  for d in /usr/sbin /sbin; do [ -x "$d/$1" ] && { echo "$d/$1"; return; }; done
  return 0
}

# The lib* packages (Debian names shared-library packages so) that Debian package $1 depends on:
# what its programs load when we unpack them instead of installing the package.
unpacked_package_libraries() {
  apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances "$1" 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^lib/ {print $2}'
}

# Every Debian package the host needs for the VM; fails when apt knows no nfs-kernel-server
# (run apt-get update).
host_packages() {
  local p libs
  libs=$(unpacked_package_libraries "$NFS_PACKAGE")
  [ -n "$libs" ] || { echo "vm.sh: apt-cache knows no $NFS_PACKAGE (run apt-get update)" >&2; return 1; }
  { printf '%s\n' "${HOST_PACKAGES[@]}" "${NFS_DATA_PACKAGES[@]}" "${DLOPEN_PACKAGES[@]}" $libs
    for p in "${PROGRAMS[@]}"; do echo "${p#*:}"; done; } | sort -u
}

# Libraries BINARY loads that this host lacks, as ldd names them ("" when all resolve).
missing_libraries() { { ldd "$1" 2>/dev/null || true; } | awk '/not found/ {print $1}' | tr '\n' ' ' | sed 's/ $//'; }

check_host() {
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found (Debian package qemu-system-x86; bash contrib/setup.sh --deps)"
  local p name path missing
  for p in cpio depmod busybox "${PROGRAMS[@]}"; do
    name=$(program_name "$p"); path=$(program_path "$name")
    [ -n "$path" ] || skip "$name not found (Debian package ${p#*:}; bash contrib/setup.sh --deps installs what the VM needs)"
    missing=$(missing_libraries "$path")
    [ -z "$missing" ] || skip "$path needs libraries the host lacks: $missing (bash contrib/setup.sh --deps)"
  done
  [ -x /bin/busybox ] && file_is_static /bin/busybox || skip "/bin/busybox is not the static one (Debian package busybox-static)"
  for p in "${DLOPEN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      skip "Debian package $p is not installed (its libraries are loaded with dlopen inside; bash contrib/setup.sh --deps)"
  done
}

# The unpacked NFS programs and the files they read: all their libraries must resolve on the host.
check_nfs() {
  local p missing
  for p in "${NFS_PROGRAMS[@]}"; do
    missing=$(missing_libraries "$NFS_DIR/usr/sbin/$p")
    [ -z "$missing" ] || skip "$p (unpacked from $NFS_PACKAGE) needs libraries the host lacks: $missing (bash contrib/setup.sh --deps installs the lib* packages $NFS_PACKAGE depends on)"
  done
  [ -f /etc/services ] || skip "/etc/services missing, which rpc.mountd reads (Debian package netbase; bash contrib/setup.sh --deps)"
  [ -f /etc/netconfig ] || skip "/etc/netconfig missing, which libtirpc reads (Debian package libtirpc-common; bash contrib/setup.sh --deps)"
}

file_is_static() { ! ldd "$1" >/dev/null 2>&1; }

# Debian package $1 fetched with apt-get download (not installed) and unpacked into directory $2.
unpack_package() {
  local tmp; tmp=$(mktemp -d)
  # apt's sandbox user cannot write to a root-owned mktemp directory; let it.
  chmod 755 "$tmp"
  echo "vm.sh: fetching Debian's $1" >&2
  (cd "$tmp" && apt-get download -q "$1" >/dev/null 2>&1) || { rm -rf "$tmp"; skip "apt-get download $1 failed (run apt-get update)"; }
  mkdir -p "$2"
  dpkg-deb -x "$tmp"/*.deb "$2"
  rm -rf "$tmp"
}

# Debian's kernel, unpacked once into $CACHE/kernel/VERSION (vmlinuz, lib/modules, modules.dep).
prepare_kernel() {
  if [ -f "$CACHE/kernel/current" ] && [ -f "$CACHE/kernel/$(cat "$CACHE/kernel/current")/vmlinuz" ]; then
    KVER=$(cat "$CACHE/kernel/current"); KDIR=$CACHE/kernel/$KVER; return
  fi
  local pkg
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  [ -n "$pkg" ] || skip "apt-cache knows no linux-image-amd64 (run apt-get update)"
  KVER=${pkg#linux-image-}
  KDIR=$CACHE/kernel/$KVER
  rm -rf "$KDIR.part"
  unpack_package "$pkg" "$KDIR.part/pkg"
  cp "$KDIR.part/pkg/boot/vmlinuz-$KVER" "$KDIR.part/vmlinuz"
  depmod -b "$KDIR.part/pkg" "$KVER"
  rm -rf "$KDIR"; mv "$KDIR.part" "$KDIR"
  echo "$KVER" > "$CACHE/kernel/current"
}

prepare_nfs() {
  NFS_DIR=$CACHE/nfs
  if [ ! -x "$NFS_DIR/usr/sbin/rpc.nfsd" ]; then
    rm -rf "$NFS_DIR.part"
    unpack_package "$NFS_PACKAGE" "$NFS_DIR.part"
    rm -rf "$NFS_DIR"
    mv "$NFS_DIR.part" "$NFS_DIR"
  fi
  check_nfs
}

# Copies program $1 (PROGRAM:PACKAGE, found on PATH or in the sbin directories) to $2/usr/sbin
# with its libraries.
copy_program() {
  local name path
  name=$(program_name "$1"); path=$(program_path "$name")
  cp -L "$path" "$2/usr/sbin/$name"
  copy_libraries "$path" "$2"
}

copy_libraries() {  # BINARY STAGE: the libraries ldd names, at their paths
  local lib
  for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true); do
    [ -e "$2$lib" ] && continue
    mkdir -p "$2$(dirname "$lib")"
    cp -L "$lib" "$2$lib"
  done
}

# The part of the initramfs that changes only with the kernel, the tool list or this script:
# busybox, the programs, the modules and /init. Cached as base-KEY.cpio.
prepare_base() {
  local key; key=$( (echo "$KVER ${MODULES[*]} ${MODULE_DIRS[*]} ${PROGRAMS[*]} ${NFS_PROGRAMS[*]} ${DLOPEN_PACKAGES[*]}"; cat "$0") | sha256sum | cut -c1-16)
  BASE=$CACHE/base-$KVER-$key.cpio
  [ -f "$BASE" ] && return
  local stage; stage=$(mktemp -d)
  mkdir -p "$stage"/{bin,sbin,usr/sbin,usr/bin,usr/local/bin,etc,proc,sys,dev,tmp,run,out,scratch,root,scenario,lib/modules}
  cp /bin/busybox "$stage/bin/busybox"
  for p in "${PROGRAMS[@]}"; do copy_program "$p" "$stage"; done
  for p in "${NFS_PROGRAMS[@]}"; do
    cp "$NFS_DIR/usr/sbin/$p" "$stage/usr/sbin/$p"
    copy_libraries "$NFS_DIR/usr/sbin/$p" "$stage"
  done
  # What the NFS programs read: the transports (libtirpc), the services, an (empty) exports file.
  for f in /etc/netconfig /etc/services; do [ -f "$f" ] && cp "$f" "$stage$f"; done
  : > "$stage/etc/exports"
  mkdir -p "$stage/var/lib"
  cp -r "$NFS_DIR/var/lib/nfs" "$stage/var/lib/nfs"
  local f
  for f in $(dpkg -L "${DLOPEN_PACKAGES[@]}" | grep -E '\.(so|chk)$'); do
    mkdir -p "$stage$(dirname "$f")"
    cp -L "$f" "$stage$f"
    copy_libraries "$f" "$stage"
  done
  ln -sf /usr/sbin/kmod "$stage/sbin/modprobe"
  ln -sf /usr/sbin/kmod "$stage/sbin/insmod"
  ln -sf /usr/sbin/kmod "$stage/sbin/lsmod"
  ln -sf /usr/sbin/kmod "$stage/sbin/rmmod"
  cp /etc/mke2fs.conf "$stage/etc/" 2>/dev/null || true
  echo "root:x:0:0:root:/root:/bin/sh" > "$stage/etc/passwd"
  echo "root:x:0:" > "$stage/etc/group"
  # As on an installed system (ecryptfs-utils finds sysfs through it).
  ln -s /proc/self/mounts "$stage/etc/mtab"
  # The modules and everything they need, with a modules.dep of their own, so the kernel's
  # on-demand loads (crypto templates, file systems) find them through modprobe.
  local mdir=lib/modules/$KVER
  mkdir -p "$stage/$mdir"
  cp "$KDIR/pkg/$mdir"/modules.{builtin,builtin.modinfo,order} "$stage/$mdir/"
  local m d
  for d in "${MODULE_DIRS[@]}"; do
    mkdir -p "$stage/$mdir/$d"
    cp -r "$KDIR/pkg/$mdir/$d/." "$stage/$mdir/$d/"
  done
  rm -f "$stage/$mdir/kernel/crypto/tcrypt.ko"  # it runs the self-tests when loaded
  for m in "${MODULES[@]}"; do
    for f in $(modprobe -d "$KDIR/pkg" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'); do
      f=${f#"$KDIR/pkg/"}
      mkdir -p "$stage/$(dirname "$f")"
      cp "$KDIR/pkg/$f" "$stage/$f"
    done
  done
  depmod -b "$stage" "$KVER"
  printf '%s\n' "${MODULES[@]}" > "$stage/etc/ptsn-vm-modules"
  write_init > "$stage/init"
  chmod 755 "$stage/init"
  (cd "$stage" && find . | cpio -o -H newc --quiet) > "$BASE.part"
  rm -rf "$stage"
  rm -f "$CACHE"/base-*.cpio
  mv "$BASE.part" "$BASE"
}

write_init() {
  cat <<'EOF'
#!/bin/busybox sh
# pts-native's VM: mount the kernel's file systems, load the modules, run /scenario/run.sh,
# write /out to the second disk as a tar, print the status, power off.
/bin/busybox echo PTSN-VM-BOOTED
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo /sbin/modprobe > /proc/sys/kernel/modprobe
for m in $(cat /etc/ptsn-vm-modules); do modprobe "$m" 2>/dev/null || echo "vm: modprobe $m failed"; done
# Loopback only (-nic none): what an NFS export to 127.0.0.1 needs.
ip link set lo up
# Keys (fscrypt, eCryptfs) need a session keyring; the kernel gives init none.
mdev_wait=0
while [ ! -b /dev/vda ] && [ $mdev_wait -lt 50 ]; do sleep 0.1; mdev_wait=$((mdev_wait + 1)); done
if grep -q ptsn_scratch=tmpfs /proc/cmdline; then
  mount -t tmpfs -o size=80% tmpfs /scratch
else
  mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/vda && mount /dev/vda /scratch ||
    echo "vm: no scratch disk"
fi
mkdir -p /scratch/test
export PTS_NATIVE_HOME=/root/.pts-native PTS_NATIVE_TEST_DIR=/scratch/test
set -- $(cat /scenario/.args 2>/dev/null)
cd /scenario
keyctl session - sh ./run.sh "$@" </dev/null
rc=$?
cd /
tar -cf /dev/vdb -C /out . 2>/dev/null || echo "vm: could not write /out"
sync
echo "PTSN-VM-EXIT $rc"
poweroff -f
EOF
}

# The part made for each run: pts-native and its data, the scenario.
make_run_cpio() {  # SCRIPT ARGS... -> $RUN_CPIO
  local script=$1; shift
  local stage; stage=$(mktemp -d)
  mkdir -p "$stage/usr/local/bin" "$stage/usr/local/share/pts-native" "$stage/scenario"
  [ -x "$BUILD/pts-native" ] || die "no $BUILD/pts-native: build it first (cmake --build build --target pts-native)"
  strip --strip-debug -o "$stage/usr/local/bin/pts-native" "$BUILD/pts-native"
  copy_libraries "$BUILD/pts-native" "$stage"
  cp -r "$ROOT/profiles" "$stage/usr/local/share/pts-native/profiles"
  cp -r "$ROOT/bundled-results" "$stage/usr/local/share/pts-native/bundled-results"
  # The scenario's sibling shell files (a shared lib.sh) come along.
  find "$(dirname "$script")" -maxdepth 1 -type f -name '*.sh' -exec cp {} "$stage/scenario/" \;
  cp "$script" "$stage/scenario/run.sh"
  printf '%s ' "$@" > "$stage/scenario/.args"
  RUN_CPIO=$WORK/run.cpio
  (cd "$stage" && find . | cpio -o -H newc --quiet) > "$RUN_CPIO"
  rm -rf "$stage"
}

# The accelerator for this boot: ACCEL (kvm or tcg), and in ACCEL_WHY why not KVM.
choose_accel() {
  ACCEL_WHY=""
  case "${VM_ACCEL:-}" in
    kvm|tcg) ACCEL=$VM_ACCEL; ACCEL_WHY="VM_ACCEL=$VM_ACCEL"; return ;;
    "") ;;
    *) die "VM_ACCEL must be kvm or tcg, not '$VM_ACCEL'" ;;
  esac
  if ! { [ -r "$KVM_DEVICE" ] && [ -w "$KVM_DEVICE" ]; }; then
    ACCEL=tcg; ACCEL_WHY="$KVM_DEVICE cannot be opened"; return
  fi
  if [ -f "$ACCEL_MEMORY" ] && read -r ACCEL ACCEL_WHY < "$ACCEL_MEMORY" && [ "$ACCEL" = tcg ]; then return; fi
  ACCEL=kvm
}

# Where the answer "does KVM boot this guest here" is kept: per guest kernel, host kernel and qemu.
accel_memory() {
  local qemu; qemu=$(command -v qemu-system-x86_64)
  echo "$CACHE/accel-$(echo "$KVER $(uname -r) $qemu $(stat -c '%s %Y' "$qemu")" | sha256sum | cut -c1-16)"
}

# Boots the VM in the background with accelerator $1: QEMU_PID, the console in $WORK/console.raw.
# Under setpriv --pdeathsig, timeout dies with this script and qemu with timeout, so nothing
# survives a SIGKILL of the script; the traps below stop it on every other signal.
start_vm() {
  : > "$WORK/console.raw"
  rm -f "$WORK/scratch.img"; truncate -s "$SCRATCH_SIZE" "$WORK/scratch.img"
  setpriv --pdeathsig KILL timeout -k 10 "$TIMEOUT" \
    setpriv --pdeathsig KILL qemu-system-x86_64 -accel "$1" -m "$MEM" -smp "$CPUS" -cpu max \
    -display none -monitor none -serial "file:$WORK/console.raw" -no-reboot -nic none \
    -kernel "$KDIR/vmlinuz" -initrd "$WORK/initrd.cpio" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 ptsn_accel=$1 ptsn_scratch=$SCRATCH" \
    -drive "file=$WORK/scratch.img,format=raw,if=virtio,cache=unsafe" \
    -drive "file=$WORK/out.img,format=raw,if=virtio,cache=unsafe" \
    </dev/null 2>"$WORK/qemu.err" &
  QEMU_PID=$!
}

# Whether process $1 still runs (an exited child stays a zombie, which kill -0 still finds).
running() { local state; state=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) && [[ $state != " Z"* ]]; }

booted() { grep -q '^PTSN-VM-BOOTED' "$WORK/console.raw" 2>/dev/null; }

# Waits up to $1 seconds for /init to announce itself; fails when it did not (or qemu ended).
wait_for_boot() {
  local end=$((SECONDS + $1))
  while [ $SECONDS -lt $end ]; do
    booted && return 0
    running "$QEMU_PID" || { booted; return; }
    sleep 0.2
  done
  booted
}

stop_vm() {
  [ -n "${QEMU_PID:-}" ] || return 0
  kill "$QEMU_PID" 2>/dev/null || true
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=""
}

cleanup() {
  stop_vm
  [ -n "${SHOW_PID:-}" ] && kill "$SHOW_PID" 2>/dev/null
  [ -n "${WORK:-}" ] && rm -rf "$WORK"
  return 0
}

case "${1:-}" in
  --check) check_host; mkdir -p "$CACHE"; prepare_nfs; exit 0 ;;
  --packages) host_packages; exit ;;
  --prepare) check_host; mkdir -p "$CACHE"; prepare_kernel; prepare_nfs; prepare_base; echo "vm.sh: ready ($KVER, $(basename "$BASE"))"; exit 0 ;;
  ""|-h|--help) sed -n '2,48p' "$0"; exit 2 ;;
esac
SCRIPT=$1; shift
[ -f "$SCRIPT" ] || die "$SCRIPT: no such script"
while read -r assignment; do
  name=${assignment%%=*}
  [ -z "${!name:-}" ] && declare "$assignment"
done < <(sed -n 's/^# vm-env: \([A-Z_]*=[^ ]*\)$/\1/p' "$SCRIPT")
TIMEOUT=${VM_TIMEOUT:-300}
MEM=${VM_MEM:-2048}
SCRATCH=${VM_SCRATCH:-disk}
KVM_DEVICE=${PTSN_VM_KVM_DEVICE:-/dev/kvm}  # another path only to test the KVM fallback
KVM_DEADLINE=${VM_KVM_DEADLINE:-20}
check_host
mkdir -p "$CACHE"
prepare_kernel
prepare_nfs
prepare_base
WORK=$(mktemp -d)
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
make_run_cpio "$SCRIPT" "$@"
cat "$BASE" "$RUN_CPIO" > "$WORK/initrd.cpio"
truncate -s 512M "$WORK/out.img"

ACCEL_MEMORY=$(accel_memory)
choose_accel
start=$(date +%s)
start_vm "$ACCEL"
if [ "$ACCEL" = kvm ] && [ -z "${VM_ACCEL:-}" ]; then
  if wait_for_boot "$KVM_DEADLINE"; then
    echo "kvm booted" > "$ACCEL_MEMORY"
  else
    stop_vm
    ACCEL=tcg ACCEL_WHY="KVM did not boot Debian's kernel within ${KVM_DEADLINE} s"
    echo "tcg $ACCEL_WHY" > "$ACCEL_MEMORY"
    start=$(date +%s)
    start_vm tcg
  fi
fi
[ "$ACCEL" = tcg ] && echo "vm.sh: ${ACCEL_WHY:+$ACCEL_WHY; }using TCG (emulation): timings inside are for correctness only" >&2
# The console as it comes, without the harness's own lines.
tail -n +1 -s 0.2 -f --pid="$QEMU_PID" "$WORK/console.raw" | sed -u -e 's/\r//g' -e '/^PTSN-VM-EXIT /d' -e '/^PTSN-VM-BOOTED/d' &
SHOW_PID=$!
set +e
wait "$QEMU_PID"
qemu_rc=$?
QEMU_PID=""
wait "$SHOW_PID"
SHOW_PID=""
set -e
elapsed=$(( $(date +%s) - start ))
rm -rf "$OUT_DIR"; mkdir -p "$OUT_DIR"
tar -xf "$WORK/out.img" -C "$OUT_DIR" 2>/dev/null || true
rc=$(tr -d '\r' < "$WORK/console.raw" | awk '/^PTSN-VM-EXIT / {print $2}' | tail -n1)
if [ "$qemu_rc" = 124 ] && [ -z "$rc" ]; then
  echo "vm.sh: stopped after ${TIMEOUT} s (VM_TIMEOUT), the script had not finished" >&2; exit 124
fi
if [ -z "$rc" ]; then
  echo "vm.sh: the VM ended without the script's status after ${elapsed} s (qemu exit $qemu_rc)" >&2
  cat "$WORK/qemu.err" >&2
  exit 125
fi
echo "vm.sh: $(basename "$SCRIPT") exited $rc in ${elapsed} s ($ACCEL, kernel $KVER)" >&2
exit "$rc"
