#!/usr/bin/env bash
# The main job on its defaults: set up (the build packages only, and pts-native), then run the bundled default suite
# (native cipher and disk workloads, about five minutes, nothing downloaded) in batch mode,
# save it under the results directory and print the text view with bars.
#   TEST_RESULTS_NAME / TEST_RESULTS_IDENTIFIER / PTS_NATIVE_HOME / PTS_NATIVE_TEST_DIR apply.
set -euo pipefail
cd "$(dirname "$0")/.."
PTSN_BUILD_TARGETS="pts-native" bash contrib/setup.sh --main
export PTS_NATIVE_BIN="$PWD/build/pts-native"
export PATH="$PWD/build:$PATH"
export TEST_RESULTS_NAME="${TEST_RESULTS_NAME:-default-suite}"
export TEST_RESULTS_IDENTIFIER="${TEST_RESULTS_IDENTIFIER:-$(hostname)-$(date +%Y%m%d-%H%M)}"
exec build/pts-native batch-run suites/default "$@"
