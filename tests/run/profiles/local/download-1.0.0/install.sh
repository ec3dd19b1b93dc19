#!/bin/sh
cat > ~/download <<'RUN'
#!/bin/sh
echo "Result: $(cat ~/payload.txt)" > $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/download
echo 0 > ~/install-exit-status
