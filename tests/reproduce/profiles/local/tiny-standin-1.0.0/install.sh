#!/bin/sh
# The run script: "Score: 40+N.d" with a digit that varies between trials.
cat > tiny <<'SCRIPT'
#!/bin/sh
echo "Score: $((40 + $2)).$(($$ % 10))" > "$LOG_FILE"
SCRIPT
chmod +x tiny
