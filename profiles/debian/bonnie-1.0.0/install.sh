#!/bin/sh
# Uses Debian's bonnie++ package instead of building from source (nothing is downloaded).
if command -v bonnie++ >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: bonnie++ not found: install the Debian package with: apt-get install bonnie++"
	echo 2 > ~/install-exit-status
fi

cat > bonnie_run <<'EOS'
#!/bin/sh
# $1 = file size in MiB. bonnie++ wants a file twice the RAM size unless told a smaller RAM (-r),
# so it is told half the file size and does its bulk I/O with O_DIRECT (-D): the page cache cannot
# serve the reads whatever the machine's memory. -f skips the per-character tests (minutes of
# putc/getc), -n 0 the small-file tests; -q prints only the CSV line, which the parser reads.
SIZE="$1"
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/bonnie"
mkdir -p "$DIR"
USER_OPT=""
[ "$(id -u)" = 0 ] && USER_OPT="-u root"
bonnie++ -d "$DIR" -s "$SIZE" -r $((SIZE / 2)) -n 0 -f -D -q -m pts-native $USER_OPT > "$LOG_FILE" 2>/dev/null
echo $? > ~/test-exit-status
rm -rf "$DIR"
EOS
chmod +x bonnie_run
