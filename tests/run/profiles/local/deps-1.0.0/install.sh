#!/bin/sh
cat > ~/deps <<'RUN'
#!/bin/sh
echo "Result: 1" > $LOG_FILE
RUN
chmod +x ~/deps
echo 0 > ~/install-exit-status
