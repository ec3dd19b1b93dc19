#!/usr/bin/env bash
# pts-native as installed: `cmake --install` into a DESTDIR, the tree copied to another place (so
# nothing can lead back to the build), and run from there with a home of its own. strace shows
# that nothing under the source or build tree is opened: the profiles, suites and bundled
# results come from the installed share/pts-native/.
#   install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1") build_dir=$(realpath "$2")
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

DESTDIR=$work/destdir cmake --install "$build_dir" --prefix /usr >"$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install failed"; }
cp -a "$work/destdir/usr" "$work/installed"
rm -rf "$work/destdir"
prefix=$work/installed
for f in bin/pts-native bin/pts-native-server share/man/man1/pts-native.1 share/man/man1/pts-native-server.1 \
         share/bash-completion/completions/pts-native share/pts-native/profiles/native/cipher-1.0.0/test-definition.xml \
         share/pts-native/profiles/suites/cipher-1.0.0/suite-definition.xml share/pts-native/bundled-results \
         lib/systemd/system/pts-native-server.service lib/systemd/system/pts-native-agent.service; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

export PTS_NATIVE_HOME=$work/home PATH=$prefix/bin:$PATH PTS_NATIVE_SERVER=http://127.0.0.1:9
unset PRESET_OPTIONS PRESET_OPTIONS_VALUES MONITOR
cd "$work"
unset OLDPWD  # bash checks it on start: a stat of where the test was started, not a read of the tree
# Runs an installed command under strace; fails when it fails or opens anything under the trees.
run() {
  local name=$1; shift
  if ! strace -f -qq -e trace=%file -o "$work/$name.trace" "$@" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log"; fail "$name failed: $*"
  fi
  if grep -F -e "\"$source_dir/" -e "\"$build_dir/" -e "\"$source_dir\"" "$work/$name.trace" | grep -v ENOENT | grep -q .; then
    grep -F -e "\"$source_dir" -e "\"$build_dir" "$work/$name.trace" | head -5
    fail "$name reads the source or build tree"
  fi
}
expect() { grep -qF -- "$2" "$work/$1.log" || { cat "$work/$1.log"; fail "$1 does not say: $2"; }; }

run version pts-native --version
expect version "pts-native "
# The smallest bundled profile, found in share/pts-native/ (one trial, one option set).
PRESET_OPTIONS='native/cipher.cipher=AES-128-CBC;native/cipher.direction=Encrypt;native/cipher.block-size=4096 Bytes;native/cipher.threads=1;native/cipher.backend=Auto' \
  FORCE_TIMES_TO_RUN=1 TEST_RESULTS_NAME=installed-run run run pts-native run native/cipher </dev/null
[ -s "$PTS_NATIVE_HOME/test-results/installed-run/composite.xml" ] || { cat "$work/run.log"; fail "run saved no result"; }
FORCE_TIMES_TO_RUN=1 TEST_RESULTS_NAME=installed-suite run batch pts-native batch-run suites/cipher
[ -s "$PTS_NATIVE_HOME/test-results/installed-suite/composite.xml" ] || { cat "$work/batch.log"; fail "batch-run saved no result"; }
run server pts-native-server --help
expect server "--data"
for page in pts-native pts-native-server; do
  MANWIDTH=100 run "man-$page" man -l "$prefix/share/man/man1/$page.1"
  expect "man-$page" "$page"
done
expect man-pts-native "batch-benchmark"
echo "install_test: installed tree runs on its own ($prefix)"
