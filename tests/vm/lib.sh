# Shared by the VM scenarios (contrib/vm.sh copies the *.sh files beside a scenario into the VM).
# Each scenario runs as root inside Debian's kernel, with pts-native on PATH and an ext4 scratch
# disk as PTS_NATIVE_TEST_DIR; what it writes under /out comes back to the host.
set -u
failures=0
# A trial's time limit comes from the profile's estimate, made on real CPUs; under emulation
# (TCG) a trial may take ten times that, more on a busy host (the SQLite stand-in on the generic
# AES dm-crypt target passed 100 s beside other work): the scenario's own VM_TIMEOUT bounds it.
export PTS_NATIVE_TRIAL_TIMEOUT=${PTS_NATIVE_TRIAL_TIMEOUT:-600}
step() { echo "== $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect_in FILE TEXT: the file contains the text (fixed string)
expect_in() { grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  | /' "$1" | tail -n 40; }; }
# run_ok NAME CMD...: runs the command, output in /out/NAME.log (echoed); a non-zero exit fails
run_ok() {
  local name=$1; shift
  echo "\$ $*" > "/out/$name.log"
  "$@" >> "/out/$name.log" 2>&1
  local rc=$?
  sed 's/^/  /' "/out/$name.log"
  [ $rc -eq 0 ] && return 0
  fail "$name: exit $rc"
  return 1
}
# Nothing of a target may be left: no loop device, no mapping, no mount under the test directory,
# no ledger, no lowered cipher priority.
expect_clean() {
  local what=$1
  [ -z "$(losetup -a 2>/dev/null)" ] || fail "$what: loop devices left: $(losetup -a)"
  ls /dev/mapper | grep -q ptsn && fail "$what: mappings left: $(ls /dev/mapper)"
  grep -q ptsn-targets /proc/mounts && fail "$what: mounts left"
  [ -z "$(ls "$PTS_NATIVE_HOME/targets" 2>/dev/null)" ] || fail "$what: ledgers left: $(ls "$PTS_NATIVE_HOME/targets")"
  awk '/^driver/ {d=$3} /^priority/ && d ~ /aesni/ && $3 < 100 {print d" "$3}' /proc/crypto | grep -q . &&
    fail "$what: AES-NI drivers still lowered: $(awk '/^driver/ {d=$3} /^priority/ && d ~ /aesni/ && $3 < 100 {print d" "$3}' /proc/crypto)"
  return 0
}
# kill_mid_run LOG CMD...: starts the run CMD (its --json-events in LOG), waits for its first
# finished trial (its targets are up then) and kills it with SIGKILL.
kill_mid_run() {
  local log=$1; shift
  "$@" --json-events > "$log" 2>&1 &
  local pid=$! i=0
  while [ $i -lt 600 ] && ! grep -q '"trial-finished"' "$log"; do sleep 0.2; i=$((i + 1)); done
  grep -q '"trial-finished"' "$log" || fail "the run to kill never finished a trial"
  kill -9 $pid
  wait $pid 2>/dev/null
}
finish() {
  if [ "$failures" -eq 0 ]; then echo "PASS"; exit 0; fi
  echo "$failures failure(s)"; exit 1
}
