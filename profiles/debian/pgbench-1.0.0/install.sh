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
AS=""
if [ -z "$PGHOST" ] && [ -z "$PGDATABASE" ]; then
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/pgdata"
	rm -rf "$DIR"
	mkdir -p "$DIR"
	# PostgreSQL refuses to run as root: as root the throw-away cluster belongs to the postgres
	# user (created by Debian's postgresql package) and initdb and the server run through runuser.
	if [ "$(id -u)" = 0 ]; then
		if ! id postgres >/dev/null 2>&1; then
			echo "ERROR: running as root needs the postgres user (apt-get install postgresql)" > "$LOG_FILE"
			echo 1 > ~/test-exit-status; exit 1
		fi
		chown postgres: "$DIR"
		if ! runuser -u postgres -- test -w "$DIR"; then
			echo "ERROR: the postgres user cannot write $DIR (a parent directory is closed to it)" > "$LOG_FILE"
			echo 1 > ~/test-exit-status; exit 1
		fi
		AS="runuser -u postgres --"
		export PGUSER=postgres
	fi
	# The environment's locale may not exist on the machine (initdb then refuses): the C locale always does.
	export LC_ALL=C
	if ! $AS "$PGBIN/initdb" -D "$DIR" -A trust --no-locale -E UTF8 > "$LOG_FILE" 2>&1; then echo 1 > ~/test-exit-status; exit 1; fi
	if ! $AS "$PGBIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -o "-k $DIR -c listen_addresses=''" -w start >> "$LOG_FILE" 2>&1; then
		echo 1 > ~/test-exit-status; exit 1
	fi
	export PGHOST="$DIR" PGDATABASE=postgres
	STARTED=1
fi
pgbench -i -q -s "$SCALE" > /dev/null 2>&1
pgbench -T 30 -j "$NUM_CPU_CORES" "$@" > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
if [ -n "$STARTED" ]; then $AS "$PGBIN/pg_ctl" -D "$DIR" -m fast stop > /dev/null 2>&1; rm -rf "$DIR"; fi
EOF
chmod +x pgbench_run
