#!/usr/bin/env bash
# The console in a real browser: a demo (which starts its own console), and a `tripstream console` with a
# tracking secret against the demo's embedded broker, both with a tiny MBTiles base map (.ci/make_mbtiles.py),
# checked by headless Chromium (.ci/console_check.py): geofences and drivers on the map, a growing feed, a trip
# with an ETA, a tracking page that shows its one trip and names no other user or trip in any response,
# tampered tokens refused; whole ETAs and event names at 1,400 and 1,920 px, the feed in time order, one
# figure per label, lag never negative across reconnects, no dead space, late and stale drivers distinct, the
# tiles drawn in place. Screenshots go to $CONSOLE_SCREENSHOTS (default: the work directory's screenshots/).
# Usage: .ci/console-check.sh path/to/tripstream
set -euo pipefail
tripstream=$(realpath "$1")
work=$(mktemp -d)
out=${CONSOLE_SCREENSHOTS:-$work/screenshots}  # kept only when given
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# Waits up to $2 seconds for the pattern $1 in file $3; prints the first matching line.
await_line() {
    for _ in $(seq $(($2 * 5))); do
        if grep -q "$1" "$3"; then grep -m1 "$1" "$3"; return 0; fi
        sleep 0.2
    done
    echo "console check: no '$1' in $3 after $2 s:" >&2
    cat "$3" >&2
    return 1
}

# Any other address than loopback needs an access token.
if "$tripstream" console --brokers 127.0.0.1:1 --address 0.0.0.0:0 2>"$work/refused.txt"; then
    echo "console check: console listened on 0.0.0.0 without --auth-token-file" >&2
    exit 1
fi
grep -q "auth-token-file" "$work/refused.txt"

# A tiles file that is none, missing, or vector: one line naming it, at once.
for bad in "$work/refused.txt" "$work/missing.mbtiles"; do
    if "$tripstream" console --brokers 127.0.0.1:1 --tiles-file "$bad" 2>"$work/bad-tiles.txt"; then
        echo "console check: console started with --tiles-file $bad" >&2
        exit 1
    fi
    if [ "$(wc -l <"$work/bad-tiles.txt")" -ne 1 ] || ! grep -qF -- "--tiles-file $bad: " "$work/bad-tiles.txt"; then
        echo "console check: --tiles-file $bad did not give one line naming it:" >&2
        cat "$work/bad-tiles.txt" >&2
        exit 1
    fi
done
python3 .ci/make_mbtiles.py "$work/tiles.mbtiles"

(umask 077; head -c 32 /dev/urandom | base64 >"$work/secret")
# At 5 simulated seconds a second the fleet's first trips are still under way when the checks end.
mkdir "$work/tmp"
TMPDIR="$work/tmp" "$tripstream" demo --users 1000 --duration 600m --speedup 5 --tiles-file "$work/tiles.mbtiles" \
    >"$work/demo.txt" 2>"$work/demo-log.txt" &
pids+=($!)
broker=$(await_line "embedded broker at" 30 "$work/demo-log.txt" | sed 's/.*embedded broker at //')
demo_console=$(await_line "console: open" 30 "$work/demo-log.txt" | sed 's/.*console: open //')
"$tripstream" console --brokers "$broker" --address 127.0.0.1:0 --secret-file "$work/secret" \
    --tiles-file "$work/tiles.mbtiles" >"$work/console.txt" 2>"$work/console-log.txt" &
pids+=($!)
console=$(await_line "console at" 30 "$work/console-log.txt" | sed 's/.*console at //')

# The demo's own console serves drivers within 10 s of the demo's start, and its feed is a summary line.
for _ in $(seq 50); do
    drivers=$(curl -sf "${demo_console}api/snapshot" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["drivers"]))' || echo 0)
    [ "$drivers" -gt 0 ] && break
    sleep 0.2
done
[ "$drivers" -gt 0 ] || { echo "console check: the demo's console shows no drivers" >&2; exit 1; }
await_line "^events: [0-9]* in" 15 "$work/demo.txt" >/dev/null
# The demo passes its base map on to its console.
curl -sf "${demo_console}api/map" | grep -q '"tiles":"/tiles/{z}/{x}/{y}.png"' \
    || { echo "console check: the demo's console has no base map from demo --tiles-file" >&2; exit 1; }

python3 .ci/console_check.py "$console" "$tripstream" "$work/secret" "$out" --demo-console "$demo_console" --tiles
