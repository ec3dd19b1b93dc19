#!/bin/sh
# Uses Debian's postgresql package instead of building from source (nothing is downloaded).
if command -v pgbench >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: pgbench not found: install the Debian package with: apt-get install postgresql"
	echo 2 > ~/install-exit-status
fi

cat > pgbench_run <<'EOF'
#!/bin/sh
# $1 $2 = -s N, $3 $4 = -c N, $5 = -S or nothing
SCALE="$2"; shift 2
if [ -z "$PGHOST" ] && [ -z "$PGDATABASE" ]; then
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/pgdata"
	rm -rf "$DIR"
	if ! "$PGBIN/initdb" -D "$DIR" -A trust > "$LOG_FILE" 2>&1; then echo 1 > ~/test-exit-status; exit 1; fi
	"$PGBIN/pg_ctl" -D "$DIR" -o "-k $DIR -c listen_addresses=''" -w start >> "$LOG_FILE" 2>&1
	export PGHOST="$DIR" PGDATABASE=postgres
	STARTED=1
fi
pgbench -i -q -s "$SCALE" > /dev/null 2>&1
pgbench -T 30 -j "$NUM_CPU_CORES" "$@" > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
if [ -n "$STARTED" ]; then "$PGBIN/pg_ctl" -D "$DIR" -m fast stop > /dev/null 2>&1; rm -rf "$DIR"; fi
EOF
chmod +x pgbench_run
