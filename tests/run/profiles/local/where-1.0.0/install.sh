#!/bin/sh
# Writes where its trial ran into $PTSN_WHERE: the scratch directory it was given, $HOME, the
# working directory, and whether a file written there lands in the install directory.
cat > ~/where <<'RUN'
#!/bin/sh
echo data > "$PTS_NATIVE_TEST_DIR/data"
echo mine > ~/private-file
{
	echo "scratch=$PTS_NATIVE_TEST_DIR"
	echo "home=$HOME"
	echo "pwd=$(pwd)"
	echo "data=$(cat "$PTS_NATIVE_TEST_DIR/data")"
} > "$PTSN_WHERE"
echo "Result: 1" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/where
echo 0 > ~/install-exit-status
