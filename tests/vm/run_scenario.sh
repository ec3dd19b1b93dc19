#!/bin/bash
# One real-kernel scenario for CTest: boots the VM with tests/vm/NAME.sh (contrib/vm.sh), then
# runs the host-side checks of tests/vm/NAME.host.sh, if there is one, on what came back ($VM_OUT).
# Exit: the scenario's status, 77 when no VM can run here.
set -u
name=$1
dir=$(cd "$(dirname "$0")" && pwd)
bash "$dir/../../contrib/vm.sh" "$dir/$name.sh"
rc=$?
[ $rc -eq 0 ] || exit $rc
if [ -f "$dir/$name.host.sh" ]; then bash "$dir/$name.host.sh" "${VM_OUT:-$PWD/vm-out}"; exit $?; fi
exit 0
