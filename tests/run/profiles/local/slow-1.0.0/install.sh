#!/bin/sh
cat > ~/slow <<'RUN'
#!/bin/sh
# Step 2 waits long enough for the test to kill the runner mid-test.
if [ "$1" = 2 ] && [ -z "$SLOW_SKIP" ]; then sleep 20; fi
echo "Result: $1" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/slow
echo 0 > ~/install-exit-status
