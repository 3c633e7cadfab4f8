#!/usr/bin/env bash
# A `run` whose brokers became unreachable must still stop within --shutdown-timeout of SIGTERM: it
# exits with status 2 and says so in one line, leaving the open transaction to the broker. (Brokers
# unreachable at start are refused at once, in one line: .ci/cli-check.sh.)
# Usage: .ci/shutdown-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
tripstream=${1:-.build/debug/tripstream}
work=$(mktemp -d)
. scripts/lib/dev-broker.sh
start_dev_broker "$tripstream" 2 "$work"
"$tripstream" run --brokers "$brokers" --state-dir "$work/state" --metrics-port 0 --shutdown-timeout 2s \
    >"$work/out.log" 2>"$work/err.log" &
pid=$!
for _ in $(seq 100); do grep -q "took partitions" "$work/err.log" && break; sleep 0.2; done
# The broker goes away: every connection is refused from now on.
kill -KILL "$dev_broker_pid"
sleep 2
signalled=$(date +%s%N)
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
elapsed_ms=$(( ($(date +%s%N) - signalled) / 1000000 ))
echo "shutdown with unreachable brokers: exit status $status after ${elapsed_ms} ms (--shutdown-timeout 2s)" >&2
[ "$status" = 2 ] || { echo "expected exit status 2" >&2; tail -5 "$work/err.log" >&2; exit 1; }
grep -q "shutdown did not finish within 2.0 s" "$work/err.log" || { echo "no shutdown line" >&2; tail -5 "$work/err.log" >&2; exit 1; }
# Bounded by the deadline (generously: a loaded machine), not by librdkafka's own timeouts (70 s here).
[ "$elapsed_ms" -lt 20000 ] || { echo "took ${elapsed_ms} ms" >&2; exit 1; }
echo "shutdown check passed" >&2
