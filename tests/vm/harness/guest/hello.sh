#!/bin/sh
# A guest that only says it ran: for the harness's own tests.
echo "hello from the guest: $(uname -r)"
