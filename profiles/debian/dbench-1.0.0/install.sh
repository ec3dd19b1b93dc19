#!/bin/sh
# Uses Debian's dbench package instead of building from source (nothing is downloaded).
if command -v dbench >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: dbench not found: install the Debian package with: apt-get install dbench"
	echo 2 > ~/install-exit-status
fi

cat > dbench_run <<'EOF'
#!/bin/sh
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/dbench"
mkdir -p "$DIR"
dbench -D "$DIR" -t 30 $@ > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
rm -rf "$DIR"
EOF
chmod +x dbench_run
