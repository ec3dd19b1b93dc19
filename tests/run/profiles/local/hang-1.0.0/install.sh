#!/bin/sh
cat > ~/hang <<'RUN'
#!/bin/sh
sleep 30
echo "Result: 1" > $LOG_FILE
RUN
chmod +x ~/hang
echo 0 > ~/install-exit-status
