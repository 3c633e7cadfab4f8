#!/usr/bin/env bash
# What a user of the command line meets (issue 34): outputs never lost to a failed run, gaps said, errors
# in one line with exit status 2, a demo that shows live events, a bench that cleans up.
# Usage: .ci/cli-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
tripstream=${1:-.build/debug/tripstream}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cli check: $*" >&2; exit 1; }
# Runs a command expected to fail: its exit status in $status, its stderr in $work/err.txt.
failing() { status=0; "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?; }
sample=samples/porto

# --- Outputs are never lost to a failed run ---------------------------------------------------------------
"$tripstream" replay --quiet -g $sample/geofences.ndjson -c $sample/commands.ndjson -f $sample/fixes.ndjson.lz4 \
    -o "$work/out"
(cd "$work/out" && ls -A && md5sum ./*.ndjson) >"$work/previous.txt"
unchanged() {  # the previous run's files, byte-identical, and nothing else (no unfinished file)
    (cd "$work/out" && ls -A && md5sum ./*.ndjson) | cmp -s - "$work/previous.txt" \
        || fail "$1 changed the previous outputs: $(ls -A "$work/out" | tr '\n' ' ')"
}
failing "$tripstream" replay -g $sample/geofences.ndjson -f "$work/nosuch" -o "$work/out"
[ "$status" = 2 ] || fail "missing input: exit $status, not 2"
unchanged "a replay with a missing input"
failing "$tripstream" replay -g $sample/geofences.ndjson -f $sample/fixes.ndjson.lz4 -o "$work/out" --no-such-flag
[ "$status" = 2 ] || fail "bad flag: exit $status, not 2"
unchanged "a replay with a bad flag"
failing "$tripstream" replay --brokers localhost:1 --since 1h -o "$work/out"
[ "$status" = 2 ] || fail "unreachable brokers: exit $status, not 2"
unchanged "a replay from unreachable brokers"
# SIGTERM in the middle: once its unfinished events file exists, the replay is stopped.
"$tripstream" simulate --users 3000 --geofences 500 --duration 20m --seed 3 --out "$work/big" >/dev/null
"$tripstream" replay --quiet --threads 1 -g "$work/big/geofences.ndjson" -c "$work/big/commands.ndjson" \
    -f "$work/big/fixes.ndjson" -o "$work/out" &
pid=$!
for _ in $(seq 200); do [ -e "$work/out/.events.ndjson.incomplete" ] && break; sleep 0.05; done
[ -e "$work/out/.events.ndjson.incomplete" ] || fail "the big replay wrote no unfinished events file"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" = 143 ] || fail "SIGTERM: exit $status, not 143 (ended by the signal)"
unchanged "a replay stopped by SIGTERM"
echo "cli: failed replays (missing input, bad flag, unreachable brokers, SIGTERM) left the previous outputs byte-identical" >&2

# An archive folder is left as it was too.
mkdir -p "$work/archive/locations/date=2026-01-05"
echo '{"offset":0,"timestamp":1,"key":null,"value":{}}' >"$work/archive/locations/date=2026-01-05/part-00000-000000000000-000000000001.ndjson"
(cd "$work/archive" && find . -type f | sort && find . -type f -exec md5sum {} + | sort) >"$work/archive-before.txt"
failing "$tripstream" archive --brokers localhost:1 --out "$work/archive" --until-end
(cd "$work/archive" && find . -type f | sort && find . -type f -exec md5sum {} + | sort) | cmp -s - "$work/archive-before.txt" \
    || fail "an archive run with unreachable brokers changed the archive: $(cd "$work/archive" && find . | tr '\n' ' ')"
echo "cli: an archive run with unreachable brokers left the archive as it was" >&2

# --- Errors a person can act on ----------------------------------------------------------------------------
for command in "run --metrics-port 0 --state-dir $work/state" "replay --since 1h --out $work/x" \
    "archive --out $work/archive --until-end" "simulate --users 10 --duration 1m"; do
    started=$(date +%s%N)
    # shellcheck disable=SC2086
    failing "$tripstream" $command --brokers localhost:1
    elapsed_ms=$(( ($(date +%s%N) - started) / 1000000 ))
    [ "$status" = 2 ] || fail "$command: exit $status, not 2"
    [ "$(cat "$work/err.txt")" = "error: cannot reach brokers localhost:1: connection refused" ] \
        || fail "$command said: $(head -c 600 "$work/err.txt")"
    [ "$elapsed_ms" -lt 10000 ] || fail "$command took $elapsed_ms ms to say the brokers are unreachable"
done
failing "$tripstream" archive --brokers localhost:1 --out "$work/archive" --until-end --verbose
grep -q "librdkafka: .*Connection refused" "$work/err.txt" || fail "--verbose showed no librdkafka detail"
failing "$tripstream" diff "$work/out" "$work/nosuch"
[ "$status" = 2 ] || fail "diff with a missing run: exit $status, not 2"
"$tripstream" diff "$work/out" "$work/out" >/dev/null || fail "diff of a run with itself: exit $?, not 0"
"$tripstream" --version | grep -Eq '^tripstream [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version: $("$tripstream" --version)"
echo "cli: unreachable brokers in one line within 10 s (run, replay, archive, simulate), exit codes 0/1/2, --version" >&2

# --- Gaps are said -----------------------------------------------------------------------------------------
. scripts/lib/dev-broker.sh
mkdir "$work/broker"
start_dev_broker "$tripstream" 1 "$work/broker"
trap 'kill "$dev_broker_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
grep -q "5 MiB" "$work/broker/broker.log" || fail "dev-broker does not state its limit"
# About 9 MB of fixes into one partition: the dev broker keeps about 5 MiB of it.
"$tripstream" simulate --users 500 --geofences 50 --duration 10m --brokers "$brokers" >/dev/null 2>"$work/sim.txt"
grep -q "warning: the broker dropped .* records published to tripstream.locations (partition 0: " "$work/sim.txt" \
    || fail "simulate did not say the broker dropped records: $(cat "$work/sim.txt")"
"$tripstream" replay --quiet --brokers "$brokers" --since 1d -o "$work/history" 2>"$work/history.txt"
grep -q "tripstream.locations partition 0: first record at offset" "$work/history.txt" \
    || fail "replay --since before the log's start said nothing: $(cat "$work/history.txt")"
echo "cli: the dev broker's limit, simulate's dropped records and replay's cut history are said" >&2

# --- Bad setup is said (issue 41) -------------------------------------------------------------------------
# An empty geofences file, and trips to destinations it does not hold: one warning per cause, with counts;
# the trips' events flow all the same, and the replay succeeds.
: >"$work/no-geofences.ndjson"
"$tripstream" replay --quiet -g "$work/no-geofences.ndjson" -c $sample/commands.ndjson -f $sample/fixes.ndjson.lz4 \
    -o "$work/bad-setup" 2>"$work/bad-setup.txt" || fail "a replay with an empty geofences file failed"
trips=$(grep -c '"type":"start"' $sample/commands.ndjson)
grep -q "^warning: the geofence table is empty (--geofences $work/no-geofences.ndjson)" "$work/bad-setup.txt" \
    || fail "an empty geofences file was not said: $(cat "$work/bad-setup.txt")"
grep -q "^warning: $trips trip commands named a destination geofence that is not in the geofence table" "$work/bad-setup.txt" \
    || fail "trips to missing destinations were not said with their count ($trips): $(cat "$work/bad-setup.txt")"
[ "$(grep -c '^warning: ' "$work/bad-setup.txt")" = 2 ] || fail "not one warning per cause: $(cat "$work/bad-setup.txt")"
grep -q '"type":"user.started_trip"' "$work/bad-setup/events.ndjson" || fail "no trip event flowed without geofences"
! grep -q '^warning: ' <("$tripstream" replay --quiet -g $sample/geofences.ndjson -c $sample/commands.ndjson \
    -f $sample/fixes.ndjson.lz4 -o "$work/good-setup" 2>&1) || fail "a good setup was warned about"
echo "cli: an empty geofences file and $trips trips to missing destinations are said, one warning each" >&2

# --- A demo a newcomer understands --------------------------------------------------------------------------
failing "$tripstream" demo --show bogus
[ "$status" = 2 ] && grep -q "choose from all, geofence, trip, updates" "$work/err.txt" || fail "demo --show bogus: exit $status"
# The demo's screen: with the console (the default) a summary line every few seconds, event lines without it.
"$tripstream" demo --duration 1m --speedup 120 >"$work/demo-console.txt" 2>"$work/demo-console-log.txt"
# The last line sums up the run (a minute at 120x can end before the first 5-second line).
summarized=$(sed -n 's/^summary: [0-9]* inputs consumed, \([0-9]*\) events.*/\1/p' "$work/demo-console.txt")
[ "${summarized:-0}" -gt 0 ] || fail "demo --duration 1m (with its console) summarized no event: $(head -3 "$work/demo-console.txt")"
grep -q 'console: .*http://127.0.0.1:' "$work/demo-console.txt" "$work/demo-console-log.txt" || fail "demo printed no console URL"
"$tripstream" demo --duration 1m --speedup 120 --no-console >"$work/demo.txt" 2>"$work/demo-log.txt"
events=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]  ' "$work/demo.txt" || true)
[ "$events" -gt 0 ] || fail "demo --duration 1m --no-console printed no event"
! grep -q '(late)' "$work/demo.txt" || fail "a live demo printed late events: $(grep -m3 '(late)' "$work/demo.txt")"
echo "cli: demo --duration 1m printed $events events, none late" >&2
# A few couriers of the demo's fleet stop at a wrong store: the default feed shows it (issue 39).
"$tripstream" demo --duration 30m --speedup 60 --no-console >"$work/demo-long.txt" 2>"$work/demo-long-log.txt"
wrong=$(grep -c 'arrived at the wrong' "$work/demo-long.txt" || true)
[ "$wrong" -gt 0 ] || fail "demo --duration 30m: the default feed showed no wrong-destination stop"
echo "cli: demo --duration 30m showed $wrong wrong-destination stops" >&2

# --- Bench cleans up ----------------------------------------------------------------------------------------
"$tripstream" bench -u 200 --geofences 100 --runs 1 --stage replay-path --work-dir "$work/bench" >/dev/null 2>&1
[ ! -e "$work/bench" ] || fail "bench left its work files: $(ls "$work/bench")"
"$tripstream" bench -u 200 --geofences 100 --runs 1 --stage replay-path --work-dir "$work/bench" --keep >/dev/null 2>&1
[ -s "$work/bench/fixes.ndjson" ] || fail "bench --keep kept no workload"
"$tripstream" bench -u 300 --geofences 100 --runs 1 --eta --work-dir "$work/bench-eta" >"$work/bench-eta.txt" 2>&1 \
    || fail "bench --eta failed: $(tail -3 "$work/bench-eta.txt")"
for line in 'eta model .* [1-9][0-9,]* map entries' 'eta fold .*curve alone .* ns per fix' 'eta fold .*--eta-model .* ns per fix; against the curve alone' \
    'eta fold .*learning .* ns per fix' 'eta memory .* B with --eta-model'; do
    grep -q -- "$line" "$work/bench-eta.txt" || fail "bench --eta printed no line like '$line': $(cat "$work/bench-eta.txt")"
done
[ ! -e "$work/bench-eta" ] || fail "bench --eta left its work files: $(ls "$work/bench-eta")"
echo "cli check passed" >&2
