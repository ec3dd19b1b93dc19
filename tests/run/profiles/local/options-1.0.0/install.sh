#!/bin/sh
cat > ~/options <<'RUN'
#!/bin/sh
# $2 = size, $4 = mode: the result encodes both so the test can check the arguments
echo "args: $@" > $LOG_FILE
echo "Result: $(($2 + $4))" >> $LOG_FILE
echo 0 > ~/test-exit-status
RUN
chmod +x ~/options
echo 0 > ~/install-exit-status
