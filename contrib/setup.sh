#!/usr/bin/env bash
# Installs the Debian 12 packages pts-native needs (idempotent; as root, or through sudo)
# and builds the project into build/.
#   contrib/setup.sh            packages + release build
#   contrib/setup.sh --deps     packages only
#   BUILD_TYPE=Debug PTSN_WERROR=ON PTSN_BUILD_TARGETS="pts-native" contrib/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config git ca-certificates
  libxml2-dev libxml2-utils libcurl4-openssl-dev libssl-dev libgcrypt20-dev
  libyaml-cpp-dev libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libsqlite3-dev sqlite3 libpqxx-dev libpq-dev postgresql
  libcpp-httplib-dev libmicrohttpd-dev nginx-light liburing-dev libaio-dev libdeflate-dev liblzma-dev libminizip-dev
  php-cli php-xml php-zip iproute2
  fio procps bonnie++ strace
  e2fsprogs xfsprogs btrfs-progs cryptsetup-bin util-linux
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "--deps" ] && exit 0

# Only options given now are passed, so a later run without them keeps the configured build
# (and does not rebuild everything because a flag flipped).
opts=()
[ -n "${BUILD_TYPE:-}" ] && opts+=(-DCMAKE_BUILD_TYPE="$BUILD_TYPE")
[ -n "${PTSN_WERROR:-}" ] && opts+=(-DPTSN_WERROR="$PTSN_WERROR")
cmake -S . -B build "${opts[@]}" >/dev/null
# PTSN_BUILD_TARGETS limits the build (contrib/run-default.sh needs only pts-native).
cmake --build build -j"$(nproc)" ${PTSN_BUILD_TARGETS:+--target $PTSN_BUILD_TARGETS}
