#!/bin/sh
# A processor test: with targets it runs once, not once per target.
cat > ~/target-cpu <<'RUN'
#!/bin/sh
echo "Dir: ${PTS_NATIVE_TEST_DIR:-unset}" > "$LOG_FILE"
echo "Result: 42" >> "$LOG_FILE"
echo 0 > ~/test-exit-status
RUN
chmod +x ~/target-cpu
echo 0 > ~/install-exit-status
