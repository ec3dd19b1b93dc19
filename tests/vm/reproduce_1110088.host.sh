#!/bin/bash
# On the host: the real PTS 10.8.6 reads the result file the VM saved (skipped, saying so, where
# its source or php-cli is not here: set PTS_SRC to a checkout at 84227e6aac22).
set -u
out=$1
file=$out/composite.xml
[ -f "$file" ] || { echo "FAILED: $file is missing"; exit 1; }
if [ -z "${PTS_SRC:-}" ]; then
  for d in "$(dirname "$0")/../../../pts-src" /work/pts-src; do [ -f "$d/pts-core/pts-core.php" ] && PTS_SRC=$d && break; done
fi
if [ -z "${PTS_SRC:-}" ] || ! command -v php >/dev/null; then
  echo "real PTS check skipped: no PTS 10.8.6 source (PTS_SRC) or no php-cli"; exit 0
fi
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/.phoronix-test-suite/test-results/vm-1110088"
cp "$file" "$home/.phoronix-test-suite/test-results/vm-1110088/composite.xml"
# PTS prints each system of a result it could read; a file it rejects shows none.
HOME=$home PTS_USER_PATH_OVERRIDE=$home/.phoronix-test-suite/ NO_COLOR=1 PTS_SILENT_MODE=1 \
  php "$PTS_SRC/pts-core/phoronix-test-suite.php" result-file-to-text vm-1110088 > "$out/pts-text.log" 2>&1
for system in "Encrypted Home (eCryptfs): Stock" "VM: ecryptfs AES-128 aes-generic ext4" "VM: dm-crypt LUKS2 AES-256-XTS aesni ext4"; do
  grep -qF "$system" "$out/pts-text.log" || { echo "FAILED: the real PTS does not show '$system'"; tail -n 30 "$out/pts-text.log"; exit 1; }
done
echo "the real PTS 10.8.6 reads the result file: $(grep -c 'VM: ' "$out/pts-text.log") lines name our systems"
