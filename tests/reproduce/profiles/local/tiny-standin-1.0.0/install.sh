#!/bin/sh
# The run script: keeps a CPU busy for ~0.3 s (so a CPU usage monitor has samples), then prints
# "Score: 40+N.d" with a digit that varies between trials.
cat > tiny <<'SCRIPT'
#!/bin/sh
end=$(( $(date +%s%N) / 1000000 + 300 ))
while [ $(( $(date +%s%N) / 1000000 )) -lt $end ]; do :; done
echo "Score: $((40 + $2)).$(($$ % 10))" > "$LOG_FILE"
SCRIPT
chmod +x tiny
