#!/usr/bin/env bash
# Fails when a file of a server room includes a header of a room above it or the app's (the
# rooms, lowest first: http, store, results, fleet; then the app in server/ itself). Test support
# (server/testing/) is for tests and may use any room.
set -euo pipefail
cd "$(dirname "$0")"
rooms=(http store results fleet)
bad=0
for i in "${!rooms[@]}"; do
  room=${rooms[$i]}
  above=("${rooms[@]:$((i + 1))}")
  for f in "$room"/*.h "$room"/*.cc; do
    [ -e "$f" ] || continue
    while IFS= read -r line; do
      header=${line#*\"server/}
      header=${header%%\"*}
      target=${header%%/*}
      if [ "$target" = "$header" ]; then  # server/NAME.h: the app's
        echo "server/$f includes server/$header: the $room room may not include the app"; bad=1; continue
      fi
      for up in "${above[@]}"; do
        [ "$target" = "$up" ] && { echo "server/$f includes server/$header: $room is below $up"; bad=1; }
      done
      [ "$target" = testing ] && case "$f" in *_test.cc) ;; *) echo "server/$f includes test support server/$header"; bad=1 ;; esac
    done < <(grep -h '^#include "server/' "$f" || true)
  done
done
[ "$bad" = 0 ] && echo "server rooms: every include points down (${rooms[*]}, then the app)"
exit "$bad"
