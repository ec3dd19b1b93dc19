#!/bin/sh
# Native SQLite Inserts (pts-native workload sqlite)
# Nothing is downloaded: the workload is built into pts-native. The run script looks for the
# binary in $PTS_NATIVE_BIN (set by pts-native's runner), else for `pts-native` on PATH, so the
# profile also runs under the real Phoronix Test Suite.
if [ -n "$PTS_NATIVE_BIN" ] && [ -x "$PTS_NATIVE_BIN" ] || command -v pts-native >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: pts-native not found: set PTS_NATIVE_BIN or put pts-native on PATH"
	echo 2 > ~/install-exit-status
fi

cat > sqlite_inserts_run <<'EOF'
#!/bin/sh
BIN="${PTS_NATIVE_BIN:-pts-native}"
# The private directory pts-native gives each test inside run.test_dir (PTS_NATIVE_TEST_DIR);
# under the real PTS, the install directory, as PTS disk tests use.
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}"
"$BIN" workload sqlite "$@" --dir "$DIR" > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
EOF
chmod +x sqlite_inserts_run
