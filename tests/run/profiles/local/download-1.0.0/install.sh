#!/bin/sh
cat > ~/download <<'RUN'
#!/bin/sh
tr -d "\n" < ~/payload.txt | sed "s/^/Result: /" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/download
echo 0 > ~/install-exit-status
