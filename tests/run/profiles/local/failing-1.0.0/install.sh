#!/bin/sh
cat > ~/failing <<'RUN'
#!/bin/sh
echo "starting" > $LOG_FILE
echo "error: the benchmark could not open /dev/nothing" >> $LOG_FILE
echo 1 > ~/test-exit-status
RUN
chmod +x ~/failing
echo 0 > ~/install-exit-status
