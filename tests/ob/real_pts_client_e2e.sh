#!/bin/bash
# The real PTS 10.8.6 as the judge of pts-native-server: with our server on 127.0.0.1:80 playing
# OpenBenchmarking.org (../shared/reference/tools/pts-ob-loopback.sh maps the name to loopback),
# the real client must
#   1. list the tests of our mirror's index (list-available-tests shows a test only we have),
#   2. fetch a profile version its own ob-cache lacks (info pts/fs-mark -> acquire_test of 1.0.9),
#   3. clone 1110088-AR-1110066AR56 from us (imported under its original ID),
#   4. upload a result to us (upload-result prints the URL with the new ID),
#   5. against a server that takes uploads only with a token (PTS sends none), print our reason
#      for the refusal rather than "Unhandled Exception",
# and pts-native must then clone the ID PTS printed. Everything runs in a private network
# namespace (unshare -n): port 80 is ours alone and nothing can leave the machine.
# Usage: real_pts_client_e2e.sh PTS_NATIVE PTS_NATIVE_SERVER   (exit 77 = skipped, saying why)
set -u
PTSN=$1 SERVER=$2
SRC=${PTSN_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SHARED=${PTSN_SHARED_DIR:-$SRC/../shared}
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }

if [ -z "${PTS_SRC:-}" ]; then
  for d in "$SRC/../pts-src" /work/pts-src; do [ -f "$d/pts-core/pts-core.php" ] && PTS_SRC=$d && break; done
fi
[ -n "${PTS_SRC:-}" ] && [ -f "$PTS_SRC/pts-core/pts-core.php" ] || skip "no PTS 10.8.6 source (set PTS_SRC)"
command -v php >/dev/null || skip "php-cli is not installed (apt-get install php-cli php-xml php-zip)"
php -r 'exit(class_exists("DOMDocument") && class_exists("ZipArchive") ? 0 : 1);' 2>/dev/null ||
  skip "PHP lacks the xml or zip extension (apt-get install php-xml php-zip)"
[ "$(id -u)" = 0 ] || skip "needs root (private mount and network namespaces)"
LOOPBACK=$SHARED/reference/tools/pts-ob-loopback.sh
[ -f "$LOOPBACK" ] || skip "$LOOPBACK is absent"
CORPUS=$SHARED/corpus/test-profiles
SEED=$SHARED/reference/seed-results/1110088-AR-1110066AR56.xml
RESULT_A=$SHARED/reference/pts-output/result-a/composite.xml
for f in "$CORPUS" "$SEED" "$RESULT_A"; do [ -e "$f" ] || skip "$f is absent"; done
unshare -n true 2>/dev/null || skip "cannot create a network namespace here"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"

W=$(mktemp -d /tmp/ptsn-real-pts-XXXXXX)
[ -n "${PTSN_KEEP:-}" ] && echo "keeping $W" || trap 'rm -rf "$W"' EXIT
DATA=$W/server

# The mirror: the public corpus, one version PTS's own ob-cache lacks, and a test only we have.
mkdir -p "$W/extra/pts/fs-mark-1.0.9" "$W/extra/pts/ptsn-mirror-probe-1.0.0"
cp "$CORPUS"/pts/fs-mark-1.0.3/* "$W/extra/pts/fs-mark-1.0.9/"
sed -i 's#<Version>1.0.3</Version>#<Version>1.0.9</Version>#' "$W/extra/pts/fs-mark-1.0.9/test-definition.xml"
cat > "$W/extra/pts/ptsn-mirror-probe-1.0.0/test-definition.xml" <<'X'
<?xml version="1.0"?>
<PhoronixTestSuite>
  <TestInformation>
    <Title>pts-native Mirror Probe</Title>
    <AppVersion>1.0</AppVersion>
    <Description>Only in the pts-native mirror of this test.</Description>
    <ResultScale>Units</ResultScale>
    <Proportion>HIB</Proportion>
    <TimesToRun>3</TimesToRun>
  </TestInformation>
  <TestProfile>
    <Version>1.0.0</Version>
    <SupportedPlatforms>Linux</SupportedPlatforms>
    <SoftwareType>Utility</SoftwareType>
    <TestType>System</TestType>
    <License>Free</License>
    <Status>Verified</Status>
    <Maintainer>pts-native</Maintainer>
  </TestProfile>
</PhoronixTestSuite>
X
"$SERVER" import-profiles "$CORPUS" --data "$DATA" >/dev/null || fail "import-profiles of the corpus"
"$SERVER" import-profiles "$W/extra" --data "$DATA" >/dev/null || fail "import-profiles of the extra tree"
"$SERVER" import-result "$SEED" --id 1110088-AR-1110066AR56 --data "$DATA" >/dev/null || fail "import-result"

# PTS's state: defaults with network communication and uploads on, nothing asked.
export PTS_SRC PTS_HOME=$W/pts
U=$PTS_HOME/.phoronix-test-suite
mkdir -p "$U/test-results/result-a"
cp "$RESULT_A" "$U/test-results/result-a/composite.xml"
sed -e "s#~/.phoronix-test-suite/#$U/#g" "$PTS_SRC/pts-core/static/user-config-defaults.xml" > "$U/user-config.xml"
for kv in AnonymousUsageReporting=FALSE AllowResultUploadsToOpenBenchmarking=TRUE NoInternetCommunication=FALSE \
          NoNetworkCommunication=FALSE UploadResults=FALSE PromptForTestIdentifier=FALSE PromptForTestDescription=FALSE \
          PromptSaveName=FALSE Configured=TRUE OpenBrowser=FALSE SaveResults=TRUE AlwaysUploadSystemLogs=FALSE; do
  k=${kv%%=*} v=${kv#*=}
  sed -i "s#<$k>[A-Za-z0-9]*</$k>#<$k>$v</$k>#" "$U/user-config.xml"
done

cat > "$W/inside.sh" <<'INSIDE'
set -u
ip link set lo up
"$SERVER" --data "$DATA" --listen 127.0.0.1:80 --anonymous-uploads > "$W/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do grep -q listening "$W/server.log" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$W/server.log" || { echo "FAILED: our server did not start: $(cat "$W/server.log")"; exit 1; }
pts() { bash "$LOOPBACK" "$@" < /dev/null > "$W/pts-$1.log" 2>&1; }
status=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; sed 's/^/    /' "${3:-/dev/null}" | tail -25; status=1; fi; }

pts list-available-tests
check "PTS lists the tests of our mirror's index (pts/ptsn-mirror-probe)" \
  "grep -q 'pts/ptsn-mirror-probe' '$W/pts-list-available-tests.log'" "$W/pts-list-available-tests.log"
pts info pts/fs-mark
check "PTS fetched pts/fs-mark-1.0.9, which its ob-cache lacks, from our mirror (acquire_test, sha1-checked)" \
  "cmp -s '$U/test-profiles/pts/fs-mark-1.0.9/test-definition.xml' '$W/extra/pts/fs-mark-1.0.9/test-definition.xml'" \
  "$W/pts-info.log"
pts clone-result 1110088-AR-1110066AR56
check "PTS cloned 1110088-AR-1110066AR56 from us" \
  "grep -q 'AES-NI Performance: eCryptfs vs. dmcrypt' '$U/test-results/1110088-AR-1110066AR56/composite.xml' 2>/dev/null" \
  "$W/pts-clone-result.log"
pts upload-result result-a
ID=$(grep -o 'Results Uploaded To: .*' "$W/pts-upload-result.log" | sed 's#.*/result/##' | tr -d '[:space:]')
check "PTS uploaded result-a to us and printed its URL (ID '$ID')" "[ -n '$ID' ]" "$W/pts-upload-result.log"
if [ -n "$ID" ]; then
  PTS_NATIVE_CONFIG=/dev/null PTS_NATIVE_PTS_HOME=$W/none PTS_NATIVE_HOME=$W/ptsn \
    "$PTSN" clone-result "$ID" --server http://127.0.0.1:80 > "$W/ptsn-clone.log" 2>&1
  check "pts-native cloned the ID PTS printed ($ID)" \
    "grep -q '<Title>' '$W/ptsn/test-results/$ID/composite.xml' 2>/dev/null && \
     [ \"\$(grep -o '<Title>[^<]*' '$W/ptsn/test-results/$ID/composite.xml' | head -1)\" = \"\$(grep -o '<Title>[^<]*' '$RESULT_A' | head -1)\" ]" \
    "$W/ptsn-clone.log"
fi
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null

# Uploads only with a token: PTS, which sends none, must show why it was refused.
"$SERVER" --data "$DATA" --listen 127.0.0.1:80 > "$W/server-token-only.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do grep -q listening "$W/server-token-only.log" 2>/dev/null && break; sleep 0.1; done
pts upload-result result-a
check "PTS shows our reason for refusing its upload (a token is needed)" \
  "grep -q 'authentication required' '$W/pts-upload-result.log' && ! grep -q 'Unhandled Exception' '$W/pts-upload-result.log'" \
  "$W/pts-upload-result.log"
kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null
exit $status
INSIDE
export W DATA SERVER PTSN LOOPBACK U RESULT_A
unshare -n bash "$W/inside.sh"
