#!/usr/bin/env bash
# Installs the Debian 12 packages pts-native needs (idempotent; as root, or through sudo)
# and builds the project into build/.
#   contrib/setup.sh            build packages + test packages + release build (tests included)
#   contrib/setup.sh --deps     packages only
#   contrib/setup.sh --main     build packages only, and a build without the test suites: what
#                               contrib/run-default.sh needs to build and run the default suite
#   BUILD_TYPE=Debug PTSN_WERROR=ON PTSN_BUILD_TARGETS="pts-native" contrib/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# To build pts-native and pts-native-server and run the bundled native profiles.
BUILD_PACKAGES=(
  build-essential cmake pkg-config git ca-certificates
  libxml2-dev libcurl4-openssl-dev libssl-dev libgcrypt20-dev libgsl-dev
  libyaml-cpp-dev nlohmann-json3-dev zlib1g-dev libbz2-dev
  libsqlite3-dev libpqxx-dev libpq-dev
  libcpp-httplib-dev libmicrohttpd-dev liburing-dev libaio-dev libdeflate-dev liblzma-dev libminizip-dev
  ccache
)
# Only the tests need these: GoogleTest, a PostgreSQL for the storage tests, Chromium for the
# page tests, php (the real PTS, side by side), iproute2 (a network namespace for it), nginx for the server-behind-a-proxy test, xmllint and sqlite3 for checks,
# fio/bonnie++/strace for the workload comparisons (strace also for the installed tree's test, with man-db), and the programs of the bundled
# Debian-program profiles (fsmark, postmark, dbench); the file-system tools storage targets
# (`run --targets`) make their file systems with.
TEST_PACKAGES=(
  clang libclang-rt-dev
  libgtest-dev libgmock-dev libxml2-utils sqlite3 postgresql nginx-light procps
  php-cli php-xml php-zip iproute2
  fio bonnie++ strace fsmark postmark dbench man-db
  e2fsprogs xfsprogs btrfs-progs reiserfsprogs cryptsetup-bin util-linux
  chromium
)
# The real-kernel harness (contrib/vm.sh, CTest label vm) names what it needs itself
# (`vm.sh --packages`): qemu, the programs it copies into the VM's initramfs, and the lib*
# packages that nfs-kernel-server, which it unpacks rather than installs, depends on. It asks
# apt, so the package lists must be there first.

main=false
case "${1:-}" in
  --main) main=true ;;
esac
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
updated=false
PACKAGES=("${BUILD_PACKAGES[@]}")
if ! $main; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
  if ! vm_packages=$(bash contrib/vm.sh --packages 2>/dev/null); then
    $SUDO apt-get update -qq; updated=true
    vm_packages=$(bash contrib/vm.sh --packages)
  fi
  mapfile -t -O ${#PACKAGES[@]} PACKAGES <<< "$vm_packages"
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $updated || $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0

# Only options given now are passed, so a later run without them keeps the configured build
# (and does not rebuild everything because a flag flipped); the test suites are the exception:
# --main turns them off (no GoogleTest installed), a full setup turns them back on.
opts=()
[ -n "${BUILD_TYPE:-}" ] && opts+=(-DCMAKE_BUILD_TYPE="$BUILD_TYPE")
[ -n "${PTSN_WERROR:-}" ] && opts+=(-DPTSN_WERROR="$PTSN_WERROR")
if $main; then opts+=(-DPTSN_BUILD_TESTS=OFF); else opts+=(-DPTSN_BUILD_TESTS=ON); fi
cmake -S . -B build "${opts[@]}" >/dev/null
# PTSN_BUILD_TARGETS limits the build (contrib/run-default.sh needs only pts-native).
cmake --build build -j"$(nproc)" ${PTSN_BUILD_TARGETS:+--target $PTSN_BUILD_TARGETS}
