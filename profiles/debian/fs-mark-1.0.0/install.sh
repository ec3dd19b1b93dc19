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
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/fsmark"
mkdir -p "$DIR"
# fs_mark refuses a -d path of 40 bytes or more (a storage target's directory is longer): it
# runs inside the directory and is given ".".
(cd "$DIR" && fs_mark -d . -L 1 $@) > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
rm -rf "$DIR"
EOF
chmod +x fs_mark_run
