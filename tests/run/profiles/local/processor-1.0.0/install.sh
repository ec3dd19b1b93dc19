#!/bin/sh
cat > ~/processor <<'RUN'
#!/bin/sh
echo "Result: 1.5" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/processor
echo 0 > ~/install-exit-status
