# Sourced by scripts that need a broker of their own: `start_dev_broker TRIPSTREAM PARTITIONS WORKDIR [ARGS...]`
# starts `tripstream dev-broker` (with ARGS, e.g. --chaos 7) in the background, its output in WORKDIR/broker.log,
# waits for its address, and sets $brokers and $dev_broker_pid; an EXIT trap stops it and removes WORKDIR.
start_dev_broker() {
    "$1" dev-broker --partitions "$2" --bootstrap-file "$3/bootstrap" "${@:4}" >"$3/broker.log" 2>&1 &
    dev_broker_pid=$!
    dev_broker_work=$3
    trap 'kill "$dev_broker_pid" 2>/dev/null || true; rm -rf "$dev_broker_work"' EXIT
    for _ in $(seq 100); do [ -s "$3/bootstrap" ] && break; sleep 0.1; done
    brokers=$(cat "$3/bootstrap")
}
