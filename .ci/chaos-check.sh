#!/usr/bin/env bash
# Exactly-once with the broker failing under it, across processes:
#   - `tripstream dev-broker --chaos SEED` fails on a seeded schedule (brokers down, partition leaders and
#     coordinators moving, retriable request errors, round-trip spikes: docs/chaos.md), one `fault:` line each;
#   - kcat publishes a simulated fleet in four parts while three `tripstream run` instances go through scale out
#     (1 to 3), a zombie (SIGSTOP past the session timeout, then SIGCONT), a SIGKILL and restart, and scale in
#     (one stopped for good with SIGTERM);
#   - Sarama (read_committed, its own group's coordinator moving too) reads the events;
#   - upserted by _id they must equal the fold of the same inputs in event-time order, every repeated _id an
#     identical re-publication (.ci/compare_events.py --event-time): nothing missing, extra, differing or
#     divergent (the events' schemas are the Kafka check's); and the broker must have shown 8 kinds of fault.
# Usage: .ci/chaos-check.sh [path/to/tripstream] [seed]   (the seed also from CHAOS_SEED; default 2024;
#        CHAOS_KEEP=1 keeps the work directory with every log)
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/kafka-helpers.sh
. .ci/ports.sh
. scripts/lib/dev-broker.sh
tripstream=${1:-.build/debug/tripstream}
seed=${2:-${CHAOS_SEED:-2024}}
[ -x "$tripstream" ] || swift build --product tripstream
work=$(mktemp -d)
partitions=6
group=chaos-check
started=$(date +%s)
say() { echo "-- [$(( $(date +%s) - started )) s] $*" >&2; }
start_dev_broker "$tripstream" "$partitions" "$work" --chaos "$seed" --chaos-interval 2s \
    --chaos-group "$group,sarama-chaos" --chaos-transactional-id "tripstream-$group-a,tripstream-$group-b,tripstream-$group-c"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill -9 "$pid" 2>/dev/null || true; done
    kill "$dev_broker_pid" 2>/dev/null || true
    if [ -n "${CHAOS_KEEP:-}" ]; then echo "work kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
echo "chaos dev broker at $brokers (seed $seed, pid $dev_broker_pid)" >&2

say "building the Sarama consumer; simulating a fleet"
build_sarama_consumer "$work"
"$tripstream" simulate --users 20 --geofences 80 --duration 40m --offline-chance 0.01 --duplicate-chance 0.01 \
    --seed 11 --out "$work/in" >&2
keyed_inputs "$work/in" "$work"
split -n l/4 -d "$work/fixes.kv" "$work/fixes.part."
say "publishing geofences and trip commands"
publish tripstream.geofences "$work/geofences.kv"
publish tripstream.trip-commands "$work/commands.kv"

# Three instances, each with its own state directory, instance id (so transactional id) and metrics port.
declare -A pid port
base=${METRICS_PORT:-$(free_ports 3)}
port=([a]=$base [b]=$((base + 1)) [c]=$((base + 2)))
# A frozen or killed member holds its partitions until its session times out: keep that short here; and
# reconnect to a broker back up within a second rather than librdkafka's 10 s.
printf 'session.timeout.ms=6000\nheartbeat.interval.ms=500\nreconnect.backoff.max.ms=1000\n' >"$work/client.properties"
start_run() {  # instance
    echo "== tripstream run $1" >>"$work/run-$1.log"
    "$tripstream" run --brokers "$brokers" --kafka-config "$work/client.properties" --group "$group" \
        --state-dir "$work/state-$1" --instance-id "$1" --metrics-port "${port[$1]}" --metrics-address 127.0.0.1 \
        --snapshot-interval 2s --idle-advance 0 >>"$work/run-$1.log" 2>&1 &
    pid[$1]=$!
    pids+=($!)
}
wait_for() { wait_for_at "${port[$1]}" "$2" "$3" "$work/run-$1.log"; }  # instance name condition
# The sum of a metric over INSTANCES ("a c"), counting those that do not answer as 0.
metric_sum() {  # instances name
    local v=0
    for instance in $1; do v=$((v + $(metric_at "${port[$instance]}" "$2" | awk '{print ($1 < 0 ? 0 : $1)}'))); done
    echo "$v"
}
# Waits up to 90 s until the sum of a metric over INSTANCES ("a c") satisfies an awk condition on v.
wait_for_sum() {  # instances name condition
    wait_until 90 "$3" "instances $1: the sum of $2" metric_sum "$1" "$2" || {
        for instance in $1; do echo "== $instance" >&2; grep -v CONFWARN "$work/run-$instance.log" | tail -8 >&2; done
        exit 1
    }
}
# Waits (up to 60 s) until the sum of a metric over INSTANCES has not moved for 3 s.
wait_for_stable() {  # instances name
    local last=-1 still=0 v
    for _ in $(seq 60); do
        v=$(metric_sum "$1" "$2")
        if [ "$v" = "$last" ]; then still=$((still + 1)); else still=0; last=$v; fi
        [ "$still" -ge 3 ] && return 0
        sleep 1
    done
    echo "instances $1: $2 still moving after 60 s" >&2
    exit 1
}
stop_run() {  # instance: SIGTERM, which must end in exit status 0
    kill -TERM "${pid[$1]}"
    wait "${pid[$1]}" || { echo "tripstream run $1 did not exit 0 on SIGTERM" >&2; tail -20 "$work/run-$1.log" >&2; exit 1; }
}
consumed='tripstream_records_consumed_total{topic="tripstream.locations"}'
committed='tripstream_transactions_total{result="committed"}'
owned=tripstream_owned_partitions

say "one instance, a, and the Sarama consumer"
start_run a
"$work/sarama-consumer" -brokers "$brokers" -topic tripstream.events -group sarama-chaos -session-timeout 6s -timeout 300 \
    -done "$work/service-stopped" \
    >"$work/events.sarama.ndjson" 2>"$work/sarama.log" &
sarama_pid=$!
pids+=($sarama_pid)
publish tripstream.locations "$work/fixes.part.00"
wait_for a "$consumed" 'v > 0'
wait_for a "$committed" 'v > 0'

say "scale out: b and c join a"
start_run b
start_run c
for instance in b c; do wait_for "$instance" "$owned" 'v > 0'; done
publish tripstream.locations "$work/fixes.part.01"
for instance in b c; do wait_for "$instance" "$committed" 'v > 0'; done

say "zombie: b frozen (SIGSTOP) past its session timeout while a and c take its partitions, then SIGCONT"
kill -STOP "${pid[b]}"
publish tripstream.locations "$work/fixes.part.02"
wait_for_sum "a c" "$owned" "v == $partitions"
kill -CONT "${pid[b]}"
wait_for b "$owned" 'v > 0'

say "SIGKILL c mid-stream, then restart it on its state directory"
kill -9 "${pid[c]}"
wait "${pid[c]}" 2>/dev/null || true
start_run c
publish tripstream.locations "$work/fixes.part.03"
wait_for c "$owned" 'v > 0'

say "scale in: a stops for good (SIGTERM)"
stop_run a
say "waiting for b and c to catch up"
wait_for_sum "b c" "$owned" "v == $partitions"
wait_for_sum "b c" tripstream_consumer_lag 'v == 0'
# Caught up: what they consumed is committed once their count of committed inputs stops moving (a commit under
# faults can take seconds); SIGTERM then commits or aborts what is left open.
wait_for_stable "b c" tripstream_inputs_committed_total
stop_run b
stop_run c
touch "$work/service-stopped"

say "waiting for the Sarama consumer (read_committed) to read every partition to its end"
failed=0
wait "$sarama_pid" || failed=1
cat "$work/sarama.log" >&2
say "the faults the broker injected"
grep '^fault: ' "$work/broker.log" | awk '{print $2}' | sort | uniq -c | sort -rn >"$work/kinds.txt"
cat "$work/kinds.txt" >&2
kinds=$(wc -l <"$work/kinds.txt")
echo "$(grep -c '^fault: ' "$work/broker.log") faults of $kinds kinds, $(grep -c '^healed: ' "$work/broker.log") healed" >&2
[ "$kinds" -ge 8 ] || { echo "FAIL: only $kinds kinds of fault (wanted at least 8)" >&2; failed=1; }
if grep 'chaos: the broker refused' "$work/broker.log" >&2; then failed=1; fi

say "the events against the event-time fold of the same inputs"
python3 .ci/compare_events.py --tripstream "$tripstream" --inputs "$work/in" --partitions "$partitions" \
    --events "$work/events.sarama.ndjson" --work "$work/replay" --kills 1 --min-kills 1 --event-time --no-schema \
    || failed=1
grep -h "warning" "$work"/run-*.log | sort | uniq -c | sort -rn | head -10 >&2 || true
if [ "$failed" != 0 ]; then
    echo "the events topic holds $(kcat -C -b "$brokers" -t tripstream.events -o beginning -e -q -f '%o\n' | wc -l) records (kcat)" >&2
    echo "chaos check FAILED (seed $seed); reproduce: .ci/chaos-check.sh $tripstream $seed" >&2
    exit 1
fi
echo "chaos check passed in $(( $(date +%s) - started )) s (seed $seed)" >&2
