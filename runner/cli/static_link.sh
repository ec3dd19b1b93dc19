#!/bin/bash
# Linker launcher for pts-native (CXX_LINKER_LAUNCHER, option PTSN_STATIC_LINK): links the
# third-party libraries from their static archives (and libstdc++/libgcc statically) when every
# archive is installed, else links exactly as asked. Why: a result export or merge takes tens of
# milliseconds, and loading and relocating 18 shared libraries cost ~5 ms of it (7 ms -> 2 ms for
# `pts-native version`). Only pts-native is linked this way; libcurl stays dlopen()ed (lazy_curl.h).
# It is also linked at a fixed address (-no-pie): as a position-independent executable its ~29,000
# relocations (OpenSSL's, ICU's and libxml2's tables of pointers) were applied at every start,
# copying ~115 pages of .data.rel.ro: ~0.5 ms of each command (2.9 -> 2.4 ms for `version`,
# interleaved medians), 4 % of an export. Shared libraries, heap and stack are still randomised;
# pts-native-server stays position-independent.
set -u
# Archives a static archive needs after it (what `pkg-config --static --libs` lists).
declare -A deps=([libxml2]="libicuuc libicudata liblzma libz" [libgcrypt]="libgpg-error" [libminizip]="libz" [libgsl]="libgslcblas")
out=()
for arg in "$@"; do
  if [[ $arg =~ ^(/.+/)(lib[^/]+)\.so(\.[0-9.]+)?$ ]]; then
    dir=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]}
    archives=("$dir$name.a")
    for dep in ${deps[$name]:-}; do archives+=("$dir$dep.a"); done
    for archive in "${archives[@]}"; do
      [ -f "$archive" ] || exec "$@"  # one missing: the ordinary shared link
    done
    out+=("${archives[@]}")
  else
    out+=("$arg")
  fi
done
exec "${out[@]}" -no-pie -static-libstdc++ -static-libgcc -lm -ldl -pthread
