#!/bin/sh
# Fails as fs_mark does on a full disk: it says why (no room for its files), then how it gave up.
# $PTSN_NO_ROOM fails it on any disk.
cat > ~/space <<'RUN'
#!/bin/sh
if [ -n "$PTSN_NO_ROOM" ] || ! head -c 65536 /dev/zero > "$PTS_NATIVE_TEST_DIR/space" 2>/dev/null; then
	echo "space: starting"
	echo "Insufficient free space in ./files to create 1000 new files"
	echo "fopen failed to open: fs_log.txt.$$"
	echo 1 > ~/test-exit-status
	exit 1
fi
echo "Result: 1" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/space
echo 0 > ~/install-exit-status
