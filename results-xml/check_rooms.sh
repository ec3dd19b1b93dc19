#!/usr/bin/env bash
# Fails when a file of a results-xml room includes a header of its own level or above, other than
# its own room's (the rooms, lowest first: model; stats; then checks, views and store, which never
# include each other). A unit test (*_test.cc) may use any room, as it drives its room with real
# neighbours (validate_test merges files to check what merge makes).
set -euo pipefail
cd "$(dirname "$0")"
declare -A level=([model]=0 [stats]=1 [checks]=2 [views]=2 [store]=2)
bad=0
for f in *.h *.cc; do
  [ -e "$f" ] && { echo "results-xml/$f: every file belongs to a room (a folder below results-xml/)"; bad=1; }
done
for room in "${!level[@]}"; do
  for f in "$room"/*.h "$room"/*.cc; do
    [ -e "$f" ] || continue
    case "$f" in *_test.cc) continue ;; esac
    while IFS= read -r header; do
      target=${header%%/*}
      [ "$target" = "$room" ] && continue
      to=${level[$target]:-}
      if [ -z "$to" ]; then
        echo "results-xml/$f includes results-xml/$header: $target is no room in results-xml/check_rooms.sh"; bad=1
      elif [ "$to" -ge "${level[$room]}" ]; then
        echo "results-xml/$f includes results-xml/$header: $room may include only rooms below it ($target is not)"; bad=1
      fi
    done < <(grep -ho '^#include "results-xml/[^"]*"' "$f" | sed 's/^#include "results-xml\///; s/"$//' || true)
  done
done
[ "$bad" = 0 ] && echo "results-xml rooms: every include points down (model; stats; checks, views, store)"
exit "$bad"
