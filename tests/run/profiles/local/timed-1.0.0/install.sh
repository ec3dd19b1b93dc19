#!/bin/sh
# Like pts/sqlite or pts/gnupg: the run script writes no $LOG_FILE; the result is its run time.
cat > ~/timed <<'RUN'
#!/bin/sh
sleep 0.3
echo 0 > ~/test-exit-status
RUN
chmod +x ~/timed
echo 0 > ~/install-exit-status
