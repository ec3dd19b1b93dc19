#!/bin/sh
# Uses Debian's fsmark package instead of building from source (nothing is downloaded).
if command -v fs_mark >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: fs_mark not found: install the Debian package with: apt-get install fsmark"
	echo 2 > ~/install-exit-status
fi

cat > fs_mark_run <<'EOF'
#!/bin/sh
# Debian's fs_mark refuses a -d path of 40 bytes or more, and test (and storage target) directories are longer: it
# runs inside the test directory with a relative -d (its fs_log.txt lands there too).
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/fsmark"
if ! mkdir -p "$DIR" || ! cd "$DIR"; then
	echo "error: cannot make the test directory $DIR" > "$LOG_FILE"
	echo 1 > ~/test-exit-status
	exit 1
fi
fs_mark -d ./files -L 1 $@ > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
cd / && rm -rf "$DIR"
EOF
chmod +x fs_mark_run
