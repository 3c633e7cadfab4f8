#!/usr/bin/env bash
# The pages' JavaScript without a browser: `node --check` on every script (a syntax error would otherwise show
# only in a browser), then the `node --test` unit tests in Tests/web (the map's projection and tiles, the feed's
# order, the live connection's reconnects, ETA and range formatting, how the pages load their scripts).
# Node 20, no npm. A few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
scripts=(Sources/Console/Web/*.js Tests/web/*.js)
for script in "${scripts[@]}"; do node --check "$script"; done
tests=(Tests/web/*.test.js)
[ ${#tests[@]} -gt 0 ] || { echo "web check: no tests in Tests/web" >&2; exit 1; }
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if ! node --test "${tests[@]}" >"$report" 2>&1; then
    cat "$report" >&2
    exit 1
fi
echo "web check: ${#scripts[@]} scripts pass node --check; node --test: $(grep -E '^# (pass|fail)' "$report" | tr '\n' ' ')" >&2
