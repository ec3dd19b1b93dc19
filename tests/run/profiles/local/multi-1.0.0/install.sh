#!/bin/sh
cat > ~/multi <<'RUN'
#!/bin/sh
printf "Read: 250.5 MB/s\nLatency: 0.75 ms\n" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/multi
echo 0 > ~/install-exit-status
