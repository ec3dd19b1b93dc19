#!/bin/sh
# A small disk test for the target tests: writes 4 MiB into the test directory it is given
# ($PTS_NATIVE_TEST_DIR, the target's) and reports where it ran. TARGET_SLEEP=N sleeps N s in
# the trial (for tests that interrupt a run; TARGET_MARKER names a file it creates first),
# TARGET_FAIL_ON=word fails when the directory contains that word, TARGET_DOUBLE_ON=word reports
# twice the figure there (a set-up truly twice as fast).
cat > ~/target-write <<'RUN'
#!/bin/sh
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}"
{
  echo "Dir: $DIR"
  echo "Device: $(df --output=source "$DIR" | tail -n 1)"
} > "$LOG_FILE"
if [ -n "$TARGET_FAIL_ON" ] && case "$DIR" in *"$TARGET_FAIL_ON"*) true;; *) false;; esac; then
  echo 1 > ~/test-exit-status
  exit 1
fi
[ -n "$TARGET_MARKER" ] && touch "$TARGET_MARKER"
[ -n "$TARGET_SLEEP" ] && sleep "$TARGET_SLEEP"
dd if=/dev/zero of="$DIR/target-write.bin" bs=1M count=4 conv=fsync 2>/dev/null
rm -f "$DIR/target-write.bin"
RESULT=$(( $(date +%N | sed 's/^0*//;s/^$/0/') % 50 + 100 ))
if [ -n "$TARGET_DOUBLE_ON" ] && case "$DIR" in *"$TARGET_DOUBLE_ON"*) true;; *) false;; esac; then
  RESULT=$((RESULT * 2))
fi
echo "Result: $RESULT" >> "$LOG_FILE"
echo 0 > ~/test-exit-status
RUN
chmod +x ~/target-write
echo 0 > ~/install-exit-status
