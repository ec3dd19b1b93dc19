#!/bin/sh
# Uses Debian's postmark package instead of building from source (nothing is downloaded).
if command -v postmark >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: postmark not found: install the Debian package with: apt-get install postmark"
	echo 2 > ~/install-exit-status
fi

cat > postmark_run <<'EOF'
#!/bin/sh
DIR="${PTS_NATIVE_TEST_DIR:-$HOME}/postmark"
mkdir -p "$DIR"
printf 'set location %s\nset size 5120 524288\nset number 500\nset transactions 25000\nset subdirectories 10\nrun\nquit\n' "$DIR" > ~/postmark.pmrc
postmark ~/postmark.pmrc > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
rm -rf "$DIR"
EOF
chmod +x postmark_run
