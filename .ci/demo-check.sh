#!/usr/bin/env bash
# A demo that stays (issue 41): `tripstream demo` with no option is still running after 90 s, its console
# answers, it printed a tracking link and no "dropped" warning, and SIGINT ends it within seconds with
# status 0 and a summary. Then `tracking-link` mints a link its console accepts (--secret-file), and
# `--fleet porto` plays the bundled real rides. About 2 minutes.
# Usage: .ci/demo-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
tripstream=${1:-.build/debug/tripstream}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "demo check: $*" >&2
    for file in "$work"/*.txt; do echo "--- $file" >&2; tail -5 "$file" >&2; done
    exit 1
}
# Waits up to $2 seconds for a line matching $1 in file $3, prints it.
await_line() {
    for _ in $(seq $(($2 * 5))); do
        if grep -m1 "$1" "$3" 2>/dev/null; then return 0; fi
        sleep 0.2
    done
    fail "no line '$1' in $3 after $2 s"
}
# Sends SIGINT to $1 and waits up to $2 seconds for it to end; its exit status in $status.
interrupt() {
    kill -INT "$1"
    local waited=0
    while kill -0 "$1" 2>/dev/null; do
        [ "$waited" -lt $(($2 * 10)) ] || fail "still running $2 s after SIGINT"
        sleep 0.1
        waited=$((waited + 1))
    done
    status=0
    wait "$1" || status=$?
}

(umask 077; head -c 32 /dev/urandom | base64 >"$work/secret")
mkdir "$work/tmp"
started=$(date +%s)
TMPDIR="$work/tmp" "$tripstream" demo --secret-file "$work/secret" >"$work/demo.txt" 2>"$work/demo-log.txt" &
demo=$!
pids+=("$demo")
console=$(await_line "console: open" 30 "$work/demo-log.txt" | sed 's/.*console: open //')
link=$(await_line "console: tracking page of trip .*, under way: " 60 "$work/demo-log.txt")
grep -q "geofences loaded: 0" "$work/demo-log.txt" && fail "the demo's service started with no geofence"
remaining=$((started + 90 - $(date +%s)))
[ "$remaining" -le 0 ] || sleep "$remaining"
kill -0 "$demo" 2>/dev/null || fail "the demo with no option ended within 90 s"
curl -sf "${console}api/snapshot" >"$work/snapshot.json" || fail "the demo's console does not answer after 90 s"
python3 - "$work/snapshot.json" <<'PY' || fail "the demo's console shows no fleet after 90 s"
import json, sys
snapshot = json.load(open(sys.argv[1]))
drivers, trips = len(snapshot["drivers"]), [t for t in snapshot["trips"] if t["status"] in ("started", "approaching")]
print(f"demo check: console after 90 s: {drivers} drivers, {len(trips)} trips under way", file=sys.stderr)
sys.exit(0 if drivers > 0 and trips else 1)
PY
# The tracking link it printed works, and so does one minted against its --secret-file.
url=$(echo "$link" | sed 's/.*under way: //')
trip=$(echo "$link" | sed 's/.*tracking page of trip \(.*\), under way: .*/\1/')
user=${trip%-trip-*}
curl -sf "$url" >/dev/null || fail "the printed tracking link does not open: $url"
minted=$("$tripstream" tracking-link --secret-file "$work/secret" --console "$console" --user "$user" --trip "$trip")
curl -sf "$minted" >/dev/null || fail "a link minted with tracking-link --secret-file does not open: $minted"
interrupted=$(date +%s)
interrupt "$demo" 10
[ "$status" = 0 ] || fail "SIGINT after 90 s: exit status $status, not 0"
echo "demo check: SIGINT ended the demo in $(($(date +%s) - interrupted)) s with status 0" >&2
grep -q '^summary: [0-9]* inputs consumed' "$work/demo.txt" || fail "no summary after SIGINT"
! grep -q "broker dropped" "$work/demo-log.txt" || fail "a dropped warning: $(grep "broker dropped" "$work/demo-log.txt")"
# The simulated time it reports is the time that ran (its pace times about 90 s), not a planned duration.
pace=$(sed -n "s/^fleet: a simulated city, .* at \([0-9]*\)x the wall clock's pace$/\1/p" "$work/demo-log.txt")
minutes=$(sed -n 's/^fleet: published [0-9]* inputs, \([0-9]*\) simulated minutes$/\1/p' "$work/demo-log.txt")
seconds=$((interrupted - started))
[ -n "$pace" ] && [ -n "$minutes" ] && [ "$minutes" -le $((seconds * pace / 60 + 1)) ] \
    && [ "$minutes" -ge $(((seconds - 20) * pace / 60)) ] \
    || fail "reported ${minutes:-no} simulated minutes after ${seconds} s at ${pace:-?}x"
[ -z "$(ls -A "$work/tmp")" ] || fail "left its state behind in TMPDIR: $(ls -A "$work/tmp")"

# The bundled Porto rides, as a live fleet: real drivers on the console, events in the feed.
"$tripstream" demo --fleet porto --speedup 60 --no-console --show all >"$work/porto.txt" 2>"$work/porto-log.txt" &
porto=$!
pids+=("$porto")
await_line "arrived, trip " 60 "$work/porto.txt" >/dev/null
interrupt "$porto" 10
[ "$status" = 0 ] || fail "--fleet porto: SIGINT gave exit status $status"
grep -q "service: geofences loaded: 123" "$work/porto-log.txt" || fail "--fleet porto did not load the sample's 123 geofences"
echo "demo check: --fleet porto: $(grep -c 'arrived, trip' "$work/porto.txt") arrivals" >&2
