#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: the README's second command and CI's.
# Then the tests that read ../shared (CTest label "shared", given automatically to every test
# binary whose sources read it, see ptsn_add_test) run a second time with the shared tree
# switched off (PTSN_SHARED_DIR=/nonexistent): a clone without ../shared beside it must pass or
# skip, saying why, too. PTSN_TEST_NO_SHARED=all runs every test in that second pass, =0 none.
set -euo pipefail
cd "$(dirname "$0")/.."
bash contrib/setup.sh
# Services the storage tests need (PostgreSQL on loopback), when a script for them exists.
# The script prints the variables (PTSN_TEST_PG) that tell the tests where the services are.
if [ -x contrib/start-test-services.sh ]; then eval "$(contrib/start-test-services.sh)"; fi
cd build
# Each pass leaves a JUnit file, and a line per label of what ran, passed, failed and was skipped
# (contrib/test-summary.sh), printed whether the pass failed or not.
pass() {  # NAME CTEST-ARGS...
  local name=$1 rc=0; shift
  ctest --output-on-failure -j"$(nproc)" --timeout 900 --output-junit "$PWD/junit-$name.xml" "$@" || rc=$?
  bash ../contrib/test-summary.sh . "$PWD/junit-$name.xml" || true
  return $rc
}
pass all
case "${PTSN_TEST_NO_SHARED:-shared}" in
  0) ;;
  all) PTSN_SHARED_DIR=/nonexistent pass without-shared ;;
  *) PTSN_SHARED_DIR=/nonexistent pass without-shared -L shared ;;
esac
