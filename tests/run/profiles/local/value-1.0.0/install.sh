#!/bin/sh
# Reports $PTSN_VALUE (1 when unset) after $PTSN_SLEEP seconds (0): runs at once that tell their
# trials apart.
cat > ~/value <<'RUN'
#!/bin/sh
sleep "${PTSN_SLEEP:-0}"
echo "Result: ${PTSN_VALUE:-1}" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/value
echo 0 > ~/install-exit-status
