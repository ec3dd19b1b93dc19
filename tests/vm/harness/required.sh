#!/bin/bash
# PTSN_REQUIRE=vm turns "no VM can run here" from a skip into a failure that says why: with
# qemu missing from PATH, vm.sh exits 77 without it and 1 with it, naming qemu both times.
set -u
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../../../contrib/vm.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
for c in bash dirname sed cat; do ln -s "$(command -v $c)" "$work/bin/$c"; done
fail() { echo "FAIL: $*"; exit 1; }

PATH=$work/bin PTSN_REQUIRE= bash "$vm" "$here/guest/hello.sh" > "$work/log" 2>&1
rc=$?; cat "$work/log"
[ $rc -eq 77 ] || fail "without PTSN_REQUIRE: exit $rc, not 77 (a skip)"
grep -q "cannot run a VM here: qemu-system-x86_64 not found" "$work/log" || fail "the skip does not say why"

PATH=$work/bin PTSN_REQUIRE=pg,vm bash "$vm" "$here/guest/hello.sh" > "$work/log" 2>&1
rc=$?; cat "$work/log"
[ $rc -eq 1 ] || fail "with PTSN_REQUIRE=pg,vm: exit $rc, not 1 (a failure)"
grep -q "required here (PTSN_REQUIRE=pg,vm) and cannot run: qemu-system-x86_64 not found" "$work/log" || fail "the failure does not say why"
echo "PASS"
