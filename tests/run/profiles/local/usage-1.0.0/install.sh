#!/bin/sh
# Fails as Debian's fs_mark does on a long directory: its error, then many lines of usage text.
cat > ~/usage <<'RUN'
#!/bin/sh
{
	echo "fsm-tool: /a/very/long/directory/name/for/the/test directory pathname too long (must be less than 40 bytes)"
	echo "Usage: fsm-tool"
	echo "	-h <print usage and exit>"
	echo "	-k <keep files after each iteration>"
	echo "	[-w number (of bytes per write() syscall)]"
} > $LOG_FILE
echo 1 > ~/test-exit-status
RUN
chmod +x ~/usage
echo 0 > ~/install-exit-status
