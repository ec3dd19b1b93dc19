#!/bin/bash
# Regenerates the result viewer's screenshots in docs/images/ (docs/result-viewer.md shows them):
# the two seed comparisons (../shared/reference/seed-results) as `pts-native result-file-to-html`
# renders them, captured by Debian's chromium headless, then shrunk by pngquant (Debian's) so that
# each stays under 300 KB in the repository.
#
#   contrib/viewer-screenshots.sh [BUILD_DIR]     (default: build; needs its pts-native)
#
# Needs: chromium, pngquant (apt-get install chromium pngquant). PTSN_SHARED_DIR overrides
# ../shared, as for the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
pts_native=$build/pts-native
seeds=${PTSN_SHARED_DIR:-$root/../shared}/reference/seed-results
out=$root/docs/images
for tool in chromium pngquant; do
  command -v "$tool" >/dev/null || { echo "viewer-screenshots: $tool is not installed (apt-get install $tool)" >&2; exit 1; }
done
[ -x "$pts_native" ] || { echo "viewer-screenshots: no $pts_native: build pts-native first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# shot NAME RESULT_FILE VIEW HEIGHT: the page at 1280 px wide, its first HEIGHT pixels.
shot() {
  local name=$1 file=$2 view=$3 height=$4
  [ -f "$file" ] || { echo "viewer-screenshots: no seed result $file" >&2; exit 1; }
  "$pts_native" result-file-to-html "$file" --view "$view" -o "$tmp/$name.html"
  # Its own profile directory, so that a running chromium's is left alone.
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
    --screenshot="$tmp/$name.png" --window-size="1280,$height" "file://$tmp/$name.html" >/dev/null 2>&1
  pngquant --force --quality=40-80 --speed 1 --output "$out/$name.png" "$tmp/$name.png"
  echo "$out/$name.png: $(stat -c %s "$out/$name.png") bytes"
}

# 1110088: eCryptfs against dmcrypt, with and without AES-NI (a multi-way comparison), every
# trial drawn (src).
shot viewer-1110088 "$seeds/1110088-AR-1110066AR56.xml" 'src' 3000
# Ubuntu 13.04: no encryption, home encryption, full-disk encryption, normalized against no
# encryption (nor, hgv), so that the bars are the cost of each (one trial each: no box plots).
shot viewer-ubuntu-1304 "$seeds/ubuntu-1304-disk-encryption.xml" 'nor&hgv=No Encryption' 2400
