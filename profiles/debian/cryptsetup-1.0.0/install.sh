#!/bin/sh
# Uses Debian's cryptsetup-bin package instead of building from source (nothing is downloaded).
if command -v cryptsetup >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: cryptsetup not found: install the Debian package with: apt-get install cryptsetup-bin"
	echo 2 > ~/install-exit-status
fi

cat > cryptsetup_run <<'EOF'
#!/bin/sh
cryptsetup benchmark $@ > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
EOF
chmod +x cryptsetup_run
