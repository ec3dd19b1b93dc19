#!/bin/bash
# A vm.sh that is stopped (SIGTERM as CTest's timeout or timeout(1) sends, SIGINT as Ctrl-C,
# SIGKILL) leaves no qemu behind. A qemu wrapper records each qemu's PID (it execs qemu, so the
# PID is qemu's); after the signal, none of them may still run.
set -u
source "$(dirname "$0")/lib.sh"
qemu_wrapper "echo \$\$ >> '$work/pids'"
running() { local state; state=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) && [[ $state != " Z"* ]]; }

for signal in TERM INT KILL; do
  : > "$work/pids"
  # A process group of its own, as a terminal's job has; env --default-signal because a job
  # started with & ignores SIGINT, which bash can neither trap nor undo.
  PATH=$work/bin:$PATH VM_OUT=$work/out VM_ACCEL=tcg env --default-signal=INT setsid bash "$vm" "$here/guest/sleep.sh" > "$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q "guest started" "$work/log" && break; sleep 0.5; done
  grep -q "guest started" "$work/log" || { cat "$work/log"; kill -KILL $pid; fail "the guest did not start"; }
  [ -s "$work/pids" ] || fail "no qemu was started"
  kill -"$signal" "$pid"
  wait "$pid" 2>/dev/null
  left=""
  for _ in $(seq 40); do
    left=""
    for q in $(cat "$work/pids"); do running "$q" && left+=" $q"; done
    [ -z "$left" ] && break
    sleep 0.25
  done
  [ -z "$left" ] || { kill -KILL $left; fail "SIG$signal: qemu still running 10 s later (pids$left)"; }
  echo "SIG$signal: vm.sh stopped, no qemu left"
done
echo "PASS"
