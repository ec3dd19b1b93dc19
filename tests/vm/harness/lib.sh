# What the harness's own tests share: vm.sh's path, a work directory removed at exit, and a
# stand-in qemu-system-x86_64 first on PATH that runs the lines given before the real qemu.
# Sourced after `set -u`; the caller exits 77 (or 1 under PTSN_REQUIRE=vm) where no VM can run.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vm=$here/../../../contrib/vm.sh
bash "$vm" --check >/dev/null || exit $?  # saying why
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# qemu_wrapper LINES: $work/bin/qemu-system-x86_64 runs LINES (bash, with the arguments in "$@"),
# then execs the real qemu with them (so its PID is qemu's).
qemu_wrapper() {
  local real; real=$(command -v qemu-system-x86_64)
  mkdir -p "$work/bin"
  printf '#!/bin/bash\n%s\nexec "%s" "$@"\n' "$1" "$real" > "$work/bin/qemu-system-x86_64"
  chmod +x "$work/bin/qemu-system-x86_64"
}
