#!/bin/sh
# A guest that runs until it is stopped: for the test that kills vm.sh.
echo "guest started"
sleep 600
