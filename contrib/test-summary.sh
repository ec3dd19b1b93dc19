#!/usr/bin/env bash
# Prints, from one CTest run's JUnit file, a line per label: how many of its tests ran, passed,
# failed and were skipped, then each skipped test with the reason it gave. A green run can then
# no longer hide a skipped proof (CTest's own log says "Test Passed." for a test that exited with
# its SKIP_RETURN_CODE; its JUnit file marks the skip).
#   contrib/test-summary.sh BUILD_DIR JUNIT_FILE
set -euo pipefail
build=$1 junit=$2
[ -s "$junit" ] || { echo "test-summary: no JUnit file at $junit" >&2; exit 1; }

# name<TAB>status for every test in the run (status: run, fail, notrun, disabled).
results=$(xmllint --xpath '//testcase/@name | //testcase/@status' "$junit" |
  grep -o '\(name\|status\)="[^"]*"' | paste - - | sed 's/^name="\(.*\)"\tstatus="\(.*\)"$/\1\t\2/')

# What a skipped test said: gtest's message after "Skipped", else its last non-empty line.
reason() {
  xmllint --xpath "string(//testcase[@name='$1']/system-out)" "$junit" 2>/dev/null |
    awk 'found { if (NF) { print; exit } } /: Skipped$/ { found = 1 } NF { last = $0 } END { if (!found) print last }' |
    head -n1 | cut -c1-300
}

line() {  # LABEL NAMES...: the counts over the tests of the run among NAMES
  local label=$1; shift
  local ran=0 passed=0 failed=0 skipped=0 name status
  declare -A in_label=()
  for name in "$@"; do in_label[$name]=1; done
  while IFS=$'\t' read -r name status; do
    [ -n "${in_label[$name]:-}" ] || continue
    case $status in
      run) ran=$((ran + 1)); passed=$((passed + 1)) ;;
      fail) ran=$((ran + 1)); failed=$((failed + 1)) ;;
      *) skipped=$((skipped + 1)) ;;
    esac
  done <<< "$results"
  [ $((ran + skipped)) -gt 0 ] && echo "$label: $ran ran, $passed passed, $failed failed, $skipped skipped"
  return 0
}

echo "== test summary ($(basename "$junit"))"
mapfile -t all < <(cut -f1 <<< "$results")
line "all tests" "${all[@]}"
cd "$build"
for label in $(ctest --print-labels | sed -n 's/^  //p'); do
  mapfile -t names < <(ctest -N -L "^${label}\$" | sed -n 's/^ *Test *#[0-9]*: //p')
  line "$label" "${names[@]}"
done
while IFS=$'\t' read -r name status; do
  case $status in notrun|disabled) echo "skipped: $name: $(reason "$name")" ;; esac
done <<< "$results"
