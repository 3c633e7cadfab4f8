# Sourced by the checks of the service across processes (.ci/kafka-check.sh, .ci/chaos-check.sh), from the
# repository's root: the Sarama consumer, a simulated fleet as kcat input, publishing with kcat, and the metrics of
# a running `tripstream run`.

# Builds the Sarama consumer (Go, GOPATH mode, Debian's sarama) into WORK/sarama-consumer.
build_sarama_consumer() {  # work
    GOPATH=/usr/share/gocode GO111MODULE=off go build -o "$1/sarama-consumer" ./.ci/sarama-consumer 2>"$1/go.log" \
        || { cat "$1/go.log" >&2; exit 1; }
}

# kcat's key<TAB>value lines for a simulated fleet in DIR, written to OUT: geofences.kv (keyed tag/externalId),
# commands.kv and fixes.kv (keyed userId).
keyed_inputs() {  # dir out
    python3 .ci/keyed.py geofence <"$1/geofences.ndjson" >"$2/geofences.kv"
    python3 .ci/keyed.py user <"$1/commands.ndjson" >"$2/commands.kv"
    python3 .ci/keyed.py user <"$1/fixes.ndjson" >"$2/fixes.kv"
}

# Publishes key<TAB>value lines to $brokers with kcat, LZ4-compressed and idempotent: a request retried while a
# broker fails neither duplicates nor reorders a partition's records.
publish() {  # topic file
    kcat -P -b "$brokers" -t "$1" -K $'\t' -z lz4 -X enable.idempotence=true <"$2"
}

# The sum of a metric's samples (a name, or a name with its labels) on the service whose metrics are on PORT; -1 if
# none, or if it does not answer within 2 s (a stopped process).
metric_at() {  # port name
    { curl -s --max-time 2 "http://127.0.0.1:$1/metrics" 2>/dev/null || true; } \
        | awk -v name="$2" 'index($0, name) == 1 {sum += $NF; n++} END {print (n ? sum : -1)}'
}

# Waits up to SECONDS until the number READER prints satisfies an awk condition on v (e.g. 'v > 0'); otherwise says
# what WHAT still is and returns 1.
wait_until() {  # seconds condition what reader [args...]
    local v deadline=$((SECONDS + $1))
    while :; do
        v=$("${@:4}")
        awk -v v="$v" "BEGIN {exit !($2)}" && return 0
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 0.2
    done
    echo "$3 still $v after $1 s, wanted $2" >&2
    return 1
}

# Waits up to 60 s until `metric_at PORT NAME` satisfies an awk condition on v; otherwise shows the tail of LOG
# and exits.
wait_for_at() {  # port name condition log
    wait_until 60 "$3" "tripstream run (metrics on port $1): $2" metric_at "$1" "$2" \
        || { grep -v CONFWARN "$4" | tail -20 >&2; exit 1; }
}
