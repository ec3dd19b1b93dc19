#!/bin/sh
cat > ~/noisy <<'RUN'
#!/bin/sh
# values alternate 80/120: sd% = 20, so PTS would add runs
n=$(cat ~/count 2>/dev/null || echo 0); echo $((n + 1)) > ~/count
if [ $((n % 2)) -eq 0 ]; then v=120; else v=80; fi
echo "Result: $v" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/noisy
echo 0 > ~/install-exit-status
