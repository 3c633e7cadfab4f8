#!/usr/bin/env bash
# Exactly-once across processes, with independent peers:
#   - `tripstream dev-broker` in its own process (or a real Kafka: KAFKA_BOOTSTRAP=host:port),
#   - Debian's kcat publishes geofences, trip commands and fixes,
#   - `tripstream run` processes them and is killed with SIGKILL four times mid-stream (each time
#     once it has folded fixes and committed), restarted, and once more when it has caught up,
#   - three extra users (.ci/late_buffer.py) visit their trip destination while offline and send
#     that buffer only after 40 newer live fixes, to a last process with an empty state directory,
#     which restores their history from the changelog: the buffer must be folded at its place
#     (entry, dwell, exit and arrival inside the offline window), never dead-lettered too_late,
#   - a consumer built on Sarama (Go, read_committed, protocol 0.11) reads the events,
#   - the events, upserted by _id, must equal `tripstream replay` over the same inputs, every
#     repeated _id must be an identical re-publication, and every event must validate;
#   - one dataset, every path (.ci/every_path.py): the service's events, the file replays', and
#     `replay --brokers --since` and `archive` + `replay --archive --since` over the same topics
#     must each equal the fold of the same inputs in event-time order.
# Usage: .ci/kafka-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/kafka-helpers.sh
. .ci/ports.sh
tripstream=${1:-.build/debug/tripstream}
[ -x "$tripstream" ] || swift build --product tripstream
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
partitions=4
# A port of its own, so two checks can run side by side.
metrics_port=${METRICS_PORT:-$(free_ports 1)}

if [ -n "${KAFKA_BOOTSTRAP:-}" ]; then
    brokers=$KAFKA_BOOTSTRAP
    echo "using the Kafka at $brokers" >&2
else
    "$tripstream" dev-broker --partitions "$partitions" --bootstrap-file "$work/bootstrap" >"$work/broker.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
    brokers=$(cat "$work/bootstrap")
    echo "dev broker at $brokers (pid ${pids[0]})" >&2
fi

echo "-- building the Sarama consumer (GOPATH mode, Debian's sarama)" >&2
build_sarama_consumer "$work"

echo "-- simulating a fleet and publishing it with kcat" >&2
# Small enough for the mock's ~5 MiB per partition (it drops older records beyond that); an hour
# of event time, for the late buffers' 41 minutes.
"$tripstream" simulate --users 20 --geofences 80 --duration 60m --offline-chance 0.01 --duplicate-chance 0.01 \
    --seed 3 --out "$work/in" >&2
# The late users' geofences, trip starts and fixes join the inputs; the offline buffers are the
# fixes file's last lines, published after everything else (and after the last restart).
buffered=$(python3 .ci/late_buffer.py generate --inputs "$work/in" --manifest "$work/late.json")
keyed_inputs "$work/in" "$work"
head -n "-$buffered" "$work/fixes.kv" >"$work/fixes.live"
tail -n "$buffered" "$work/fixes.kv" >"$work/fixes.late"
split -n l/4 -d "$work/fixes.live" "$work/fixes.part."
publish tripstream.geofences "$work/geofences.kv"
publish tripstream.trip-commands "$work/commands.kv"

state="$work/state"
# A killed member holds its partitions until its session times out: keep that short here.
printf 'session.timeout.ms=6000\nheartbeat.interval.ms=500\n' >"$work/client.properties"
start_run() {  # [state dir]
    echo "== tripstream run #$((kills + 1))" >>"$work/run.log"
    "$tripstream" run --brokers "$brokers" --kafka-config "$work/client.properties" --group ci-check \
        --state-dir "${1:-$state}" --instance-id ci --metrics-port "$metrics_port" --snapshot-interval 2s --idle-advance 0 >>"$work/run.log" 2>&1 &
    run_pid=$!
    pids+=($run_pid)
}
metric() { metric_at "$metrics_port" "$1"; }
wait_for() { wait_for_at "$metrics_port" "$1" "$2" "$work/run.log"; }
sigkill_restart() {  # why [state dir of the next]
    echo "-- SIGKILL tripstream run (pid $run_pid) $1, then restart" >&2
    kill -9 "$run_pid"
    wait "$run_pid" 2>/dev/null || true
    kills=$((kills + 1))
    start_run "${2:-}"
}
consumed='tripstream_records_consumed_total{topic="tripstream.locations"}'
committed='tripstream_transactions_total{result="committed"}'
kills=0
start_run
# Read while the service runs: a notification service streams, and the mock keeps only ~5 MiB.
"$work/sarama-consumer" -brokers "$brokers" -topic tripstream.events -group sarama-ci -idle 30 -min 100 -timeout 600 \
    >"$work/events.sarama.ndjson" 2>"$work/sarama.log" &
sarama_pid=$!
for part in "$work"/fixes.part.*; do
    publish tripstream.locations "$part"
    # A restarted member gets partitions only once the killed one's session has timed out: kill
    # each instance once it has folded fixes and committed a transaction, not before it joined.
    wait_for "$consumed" 'v > 0'
    wait_for "$committed" 'v > 0'
    sigkill_restart "mid-stream"
done
# The late buffers go to a process that has not seen their users' live fixes, with an empty state
# directory (another machine): it restores their history from the state changelog.
wait_for tripstream_owned_partitions "v == $partitions"
wait_for tripstream_consumer_lag 'v == 0'
# Every input folded is committed once the commit-latency histogram has counted it.
for _ in $(seq 100); do
    [ "$(metric tripstream_input_to_commit_seconds_count)" -ge "$(metric tripstream_records_consumed_total)" ] && break
    sleep 0.2
done
sigkill_restart "caught up (before the late buffers)" "$work/state.fresh"
echo "-- publishing the late users' offline buffers ($buffered fixes) to the restarted service" >&2
publish tripstream.locations "$work/fixes.late"

echo "-- waiting for the service to catch up" >&2
for _ in $(seq 180); do
    sleep 1
    [ "$(metric tripstream_owned_partitions)" = "$partitions" ] && [ "$(metric tripstream_consumer_lag)" = "0" ] && break
done
sleep 3
curl -s "http://127.0.0.1:$metrics_port/metrics" >"$work/metrics.last"
kill -TERM "$run_pid"
wait "$run_pid" || { echo "tripstream run did not exit 0 on SIGTERM" >&2; tail -20 "$work/run.log" >&2; exit 1; }

echo "-- waiting for the Sarama consumer (read_committed) to see the stream end" >&2
wait "$sarama_pid"
cat "$work/sarama.log" >&2
grep -h "warning" "$work/run.log" >&2 || true

echo "-- the same inputs through tripstream replay, partition by partition" >&2
failed=0
python3 .ci/compare_events.py --tripstream "$tripstream" --inputs "$work/in" --partitions "$partitions" \
    --events "$work/events.sarama.ndjson" --work "$work/replay" --kills "$kills" || failed=1

echo "-- the late offline buffers: placed in event time, not dead-lettered" >&2
kcat -C -b "$brokers" -t tripstream.locations -o beginning -e -q -f '%p\t%o\t%s\n' >"$work/locations.topic"
kcat -C -b "$brokers" -t tripstream.dead-letters -o beginning -e -q -X isolation.level=read_committed -f '%s\n' \
    >"$work/dead-letters.topic"
python3 .ci/late_buffer.py check --manifest "$work/late.json" --partitions "$partitions" --replay "$work/replay" \
    --locations "$work/locations.topic" --dead-letters "$work/dead-letters.topic" \
    --run-log "$work/run.log" --metrics "$work/metrics.last" || failed=1
echo "-- one dataset, every path: the service, the topics' replay, an archive's replay and the event-time fold" >&2
"$tripstream" replay --quiet --brokers "$brokers" --since 2000-01-01T00:00:00Z --out "$work/from-topics" >&2 || failed=1
"$tripstream" archive --brokers "$brokers" --out "$work/archive" --until-end >"$work/archive.log" 2>&1 || failed=1
"$tripstream" replay --quiet --archive "$work/archive" --since 2000-01-01T00:00:00Z --out "$work/from-archive" >&2 || failed=1
python3 .ci/every_path.py --tripstream "$tripstream" --inputs "$work/in" --partitions "$partitions" --work "$work/every-path" \
    --path "run (through $kills SIGKILLs)=$work/replay/seen.ndjson" --path "replay of files per partition=$(
        cat "$work"/replay/p*/out/events.ndjson >"$work/files.ndjson"; echo "$work/files.ndjson")" \
    --path "replay --brokers --since=$work/from-topics/events.ndjson" \
    --path "replay --archive --since=$work/from-archive/events.ndjson" || failed=1
[ "$failed" = 0 ] || { echo "kafka check FAILED" >&2; exit 1; }
echo "kafka check passed" >&2
