#!/bin/sh
# Uses Debian's openssl package instead of building from source (nothing is downloaded).
if command -v openssl >/dev/null 2>&1; then
	echo 0 > ~/install-exit-status
else
	echo "ERROR: openssl not found: install the Debian package with: apt-get install openssl"
	echo 2 > ~/install-exit-status
fi

cat > openssl_speed_run <<'EOF'
#!/bin/sh
openssl speed -elapsed -seconds 5 $@ > "$LOG_FILE" 2>&1
echo $? > ~/test-exit-status
EOF
chmod +x openssl_speed_run
