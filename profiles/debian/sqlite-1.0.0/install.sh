#!/bin/sh
# Uses Debian's sqlite3 package instead of building from source (nothing is downloaded).
if command -v sqlite3 >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: sqlite3 not found: install the Debian package with: apt-get install sqlite3"
	echo 2 > ~/install-exit-status
fi

cat > sqlite_run <<'EOF'
#!/bin/sh
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}"
DB="$DIR/pts-sqlite-benchmark.db"
rm -f "$DB"
sqlite3 "$DB" "CREATE TABLE pts1 (I INTEGER NOT NULL, DT TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, F1 VARCHAR(4) NOT NULL, F2 VARCHAR(16) NOT NULL);"
awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "INSERT INTO pts1 (I, F1, F2) VALUES (%d, \"abcd\", \"abcdefghijklmnop\");\n", i }' > ~/inserts.sql
START=$(date +%s.%N)
sqlite3 "$DB" < ~/inserts.sql
STATUS=$?
END=$(date +%s.%N)
ROWS=$(sqlite3 "$DB" "SELECT COUNT(*) FROM pts1;")
rm -f "$DB" ~/inserts.sql
{ sqlite3 --version; echo "Rows: $ROWS"; echo "Elapsed: $(echo "$END $START" | awk '{ printf "%.3f", $1 - $2 }') seconds"; } > "$LOG_FILE"
[ "$ROWS" = "$1" ] || STATUS=1
echo $STATUS > ~/test-exit-status
EOF
chmod +x sqlite_run
