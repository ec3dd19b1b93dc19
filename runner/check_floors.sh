#!/usr/bin/env bash
# Fails when a library of the runner includes a header of a library on its own floor or above
# (ARCHITECTURE.md: lower layers never include higher ones). The floors, lowest first; a library
# may include only libraries on lower floors. Unit tests (*_test.cc) may use any library below
# the command line, as a test drives its library with real neighbours; nothing includes the
# server's rooms but tests of the wire format.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A floor=(
  [runner/common]=0
  [runner/exec]=1 [runner/profile]=1 [runner/sysinfo]=1 [runner/openbenchmarking]=1 [results-xml]=1
  [runner/install]=2 [runner/client]=2 [runner/targets]=2 [runner/monitor]=2
  [runner/workloads]=3 [runner/fleet]=3
  [runner/run]=4
  [runner/reproduce]=5
  [runner/cli]=6
)
bad=0
for lib in "${!floor[@]}"; do
  for f in "$lib"/*.h "$lib"/*.cc "$lib"/*/*.h "$lib"/*/*.cc; do
    [ -e "$f" ] || continue
    case "$f" in *_test.cc) test=1 ;; *) test=0 ;; esac
    while IFS= read -r header; do
      target=${header%/*}
      case "$target" in results-xml/*) target=results-xml ;; esac  # one library in rooms (results-xml/check_rooms.sh)
      [ "$target" = "$lib" ] && continue
      case "$target" in
        server/*) [ "$test" = 1 ] || { echo "$f includes $header: the runner never includes the server"; bad=1; }; continue ;;
      esac
      to=${floor[$target]:-}
      if [ -z "$to" ]; then echo "$f includes $header: $target has no floor in runner/check_floors.sh"; bad=1; continue; fi
      if [ "$test" = 1 ]; then
        [ "$to" -lt 6 ] || { echo "$f includes $header: a unit test below the command line uses it"; bad=1; }
      elif [ "$to" -ge "${floor[$lib]}" ]; then
        echo "$f includes $header: $lib (floor ${floor[$lib]}) may include only lower floors ($target is on ${to})"; bad=1
      fi
    done < <(grep -ho '^#include "\(runner/[a-z_]*\|results-xml\|server/[a-z_/]*\)/[^"]*"' "$f" | sed 's/^#include "//; s/"$//' || true)
  done
done
[ "$bad" = 0 ] && echo "runner floors: every include points down (common; exec profile sysinfo openbenchmarking results-xml; install client targets monitor; workloads fleet; run; reproduce; cli)"
exit "$bad"
