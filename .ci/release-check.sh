#!/usr/bin/env bash
# The release build (what users run: -O, the fold with -Ounchecked) against the debug build the
# tests run: the same replays must write byte-identical files. Swift 6.3.1 once miscompiled a
# closure of the fold in release only (Domain/Support/ScratchBuffer.swift says how); no unit test,
# built for debug, could have seen it.
#
#   .ci/release-check.sh .build/debug/tripstream
set -euo pipefail
cd "$(dirname "$0")/.."
debug=$1
. scripts/lib/release-build.sh
build_release_tripstream
release=.build/release/tripstream
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A city of 100,000 geofences where a fix lies in dozens at once: the fold's pile-up paths (holding
# lists beyond the stack's 32, their merge sort, dozens of entries in one fix).
"$release" bench --dense-city --geofences 100000 --users 300 --fixes-per-user 20 --stage replay-path --runs 1 \
    --work-dir "$work/city" --keep >"$work/city.txt"
per_fix=$(sed -n 's/^events *\([0-9.]*\) per fix.*/\1/p' "$work/city.txt")
if ! awk -v n="${per_fix:-0}" 'BEGIN { exit !(n > 20) }'; then
    echo "release check: the dense city gave ${per_fix:-no} events per fix, too few to pile up" >&2
    exit 1
fi

check() {  # name replay-arguments...
    local name=$1; shift
    "$debug" replay --quiet "$@" --out "$work/$name-debug"
    "$release" replay --quiet "$@" --out "$work/$name-release"
    for file in events eta dead-letters trip-summaries; do
        cmp "$work/$name-debug/$file.ndjson" "$work/$name-release/$file.ndjson"
    done
    test -s "$work/$name-release/events.ndjson"
}
check city -g "$work/city/geofences.ndjson" -c "$work/city/commands.ndjson" -f "$work/city/fixes.ndjson"
check porto --threads 2 -g samples/porto/geofences.ndjson -c samples/porto/commands.ndjson \
    -f samples/porto/fixes.ndjson.lz4
echo "release check: the release build wrote the debug build's files (dense city at ${per_fix} events per fix, Porto)" >&2
