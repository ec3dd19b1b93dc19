#!/bin/bash
# vm.sh trusts KVM only once it has booted the guest. Here a /dev/kvm stand-in opens and a qemu
# wrapper, asked for -accel kvm, prints nothing ever (as a nested kvm-pvm host does with Debian's
# kernel): the boot must give way to TCG within the deadline, saying why in one line, and the
# answer must be remembered, so the next boot goes to TCG without trying KVM again.
set -u
source "$(dirname "$0")/lib.sh"
qemu_wrapper "echo \"\$*\" | grep -o -- '-accel [a-z]*' >> '$work/accels'
for a in \"\$@\"; do [ \"\$a\" = kvm ] && exec sleep 3600; done"
: > "$work/kvm"
deadline=8
boot() {  # LOG: boots guest/hello.sh with the stand-ins; prints the seconds it took
  local start=$SECONDS
  PATH=$work/bin:$PATH PTSN_VM_KVM_DEVICE=$work/kvm VM_KVM_DEADLINE=$deadline VM_OUT=$work/out \
    bash "$vm" "$here/guest/hello.sh" > "$1" 2>&1
  local rc=$?
  cat "$1"
  [ $rc -eq 0 ] || { echo "FAIL: vm.sh exited $rc"; exit 1; }
  echo "took $((SECONDS - start)) s"
}

echo "--- first boot: KVM tried, then TCG"
boot "$work/log1"
grep -q "KVM did not boot Debian's kernel within $deadline s; using TCG (emulation): timings inside are for correctness only" "$work/log1" ||
  fail "no one-line reason for leaving KVM"
grep -q "hello from the guest" "$work/log1" || fail "the guest did not run under TCG"
[ "$(cat "$work/accels")" = "$(printf -- '-accel kvm\n-accel tcg')" ] || fail "boots were: $(cat "$work/accels")"

echo "--- second boot: remembered, straight to TCG"
: > "$work/accels"
boot "$work/log2"
grep -q "KVM did not boot Debian's kernel within $deadline s; using TCG" "$work/log2" || fail "the remembered reason is not given"
[ "$(cat "$work/accels")" = "-accel tcg" ] || fail "KVM was tried again: $(cat "$work/accels")"
grep -q "hello from the guest" "$work/log2" || fail "the guest did not run"
echo "PASS"
