#!/bin/sh
# Uses Debian's fio package instead of building from source (nothing is downloaded).
if command -v fio >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: fio not found: install the Debian package with: apt-get install fio"
	echo 2 > ~/install-exit-status
fi

cat > fio_run <<'EOF'
#!/bin/sh
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}"
# $1 pattern, $2 engine, $3 direct, $4 block size
fio --name=test --directory="$DIR" --filename=fiofile --rw=$1 --ioengine=$2 --direct=$3 --bs=$4 \
    --iodepth=$([ "$2" = psync ] && echo 1 || echo 32) --size=1g --end_fsync=1 --runtime=30 > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
rm -f "$DIR/fiofile"
EOF
chmod +x fio_run
