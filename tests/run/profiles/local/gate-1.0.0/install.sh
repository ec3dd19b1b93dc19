#!/bin/sh
# Trial 1 answers at once; every later trial waits (up to 60 s) until the file $PTSN_GATE exists,
# which the end-to-end test creates only once it has read trial 1's line from the runner's piped
# output. Buffered output would keep that line back until the run ends: trial 2 then fails.
cat > ~/gate <<'RUN'
#!/bin/sh
n=$(cat "$PTSN_GATE.count" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n > "$PTSN_GATE.count"
i=0
while [ $n -gt 1 ] && [ ! -e "$PTSN_GATE" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if [ $n = 1 ] || [ -e "$PTSN_GATE" ]; then
	echo "Result: $n" > $LOG_FILE
	echo 0 > ~/test-exit-status
else
	echo "error: the gate never opened" > $LOG_FILE
	echo 1 > ~/test-exit-status
fi
RUN
chmod +x ~/gate
echo 0 > ~/install-exit-status
