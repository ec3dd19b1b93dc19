#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: the README's second command and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash contrib/setup.sh
# Services the storage tests need (PostgreSQL on loopback), when a script for them exists.
# The script prints the variables (PTSN_TEST_PG) that tell the tests where the services are.
if [ -x contrib/start-test-services.sh ]; then eval "$(contrib/start-test-services.sh)"; fi
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 900
