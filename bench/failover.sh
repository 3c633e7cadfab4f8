#!/usr/bin/env bash
# Failover time on the dev broker: two `tripstream run` instances (A and B) share the 4 partitions
# of a `tripstream dev-broker`; B is stopped and the script times how long A takes to own all 4
# (A's /metrics shows `tripstream_owned_partitions 4`). Each run uses a fresh broker and fresh
# state directories.
#
# Usage: bench/failover.sh [options]
#   --runs N              runs (default 3); the median is printed last
#   --mode MODE           crash    : SIGKILL B, time until A owns 4 (default)
#                         stop     : SIGTERM B (a graceful stop), time until A owns 4
#                         restart  : SIGKILL B and start it again at once with the same instance id;
#                                    reports whether A gave up or took partitions while B came back
#                                    (its log) and how long until B owned partitions again
#   --kafka-config FILE   librdkafka properties for both instances, e.g. the old defaults:
#                         printf 'session.timeout.ms=45000\nheartbeat.interval.ms=3000\ngroup.instance.id=\n'
#   --tripstream PATH     the binary (default .build/debug/tripstream, built if missing)
#   --watch SECONDS       restart mode: how long A is watched after B is back (default 30)
#   --keep                keep the work directory (logs) and print its path
# Environment: FAILOVER_PORT (default 19470): the broker-side ports are the mock's; A serves its
# metrics on FAILOVER_PORT+1, B on FAILOVER_PORT+2.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
mode=crash
config=""
tripstream=.build/debug/tripstream
watch=30
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --mode) mode=$2; shift 2 ;;
        --kafka-config) config=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --tripstream) tripstream=$2; shift 2 ;;
        --watch) watch=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$mode" in crash|stop|restart) ;; *) echo "--mode must be crash, stop or restart" >&2; exit 2 ;; esac
[ -x "$tripstream" ] || swift build --product tripstream
port=${FAILOVER_PORT:-19470}
port_a=$((port + 1))
port_b=$((port + 2))

work=$(mktemp -d)
pids=()
# Background processes are disowned (no "Killed" job notices); stop waits until one is gone.
stop() {  # signal pid
    kill "-$1" "$2" 2>/dev/null || return 0
    while kill -0 "$2" 2>/dev/null; do sleep 0.05; done
}
cleanup() {
    for pid in "${pids[@]}"; do stop KILL "$pid"; done
    if [ "$keep" = 1 ]; then echo "work directory: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }
# tripstream_owned_partitions of the instance serving metrics on port $1; -1 when it does not answer.
owned() {
    { curl -s --max-time 1 "http://127.0.0.1:$1/metrics" 2>/dev/null || true; } \
        | awk '$1 == "tripstream_owned_partitions" {v = $2} END {print (v == "" ? -1 : v)}'
}
# Waits up to $2 seconds until the awk condition $1 holds for a = A's and b = B's owned partitions;
# fails at once if an instance that should be running has died.
wait_owned() {
    local a b name
    local deadline
    deadline=$(awk -v t="$(now)" -v s="$2" 'BEGIN {printf "%.3f", t + s}')
    while awk -v t="$(now)" -v d="$deadline" 'BEGIN {exit !(t < d)}'; do
        for name in a b; do
            local pid_var="alive_$name"
            if [ -n "${!pid_var:-}" ] && ! kill -0 "${!pid_var}" 2>/dev/null; then
                echo "instance $name died; the end of its log:" >&2
                grep -v CONFWARN "$run_dir/$name.log" | tail -5 >&2
                return 1
            fi
        done
        a=$(owned "$port_a"); b=$(owned "$port_b")
        awk -v a="$a" -v b="$b" "BEGIN {exit !($1)}" && return 0
        sleep 0.1
    done
    echo "timed out after $2 s waiting for $1 (A owns $(owned "$port_a"), B owns $(owned "$port_b"))" >&2
    return 1
}

start_instance() {  # name port; sets started
    local args=(run --brokers "$brokers" --group failover --state-dir "$run_dir/state-$1" --instance-id "$1"
        --metrics-port "$2" --partitions 4)
    if [ -n "$config" ]; then args+=(--kafka-config "$config"); fi
    echo "== start $(date +%T.%N)" >>"$run_dir/$1.log"
    "$tripstream" "${args[@]}" >>"$run_dir/$1.log" 2>&1 &
    started=$!
    disown "$started"
    pids+=($started)
}

one_run() {  # run number; sets result: the measured seconds (crash/stop) or a summary line (restart)
    run_dir="$work/run-$1"
    mkdir -p "$run_dir"
    "$tripstream" dev-broker --partitions 4 --bootstrap-file "$run_dir/bootstrap" >"$run_dir/broker.log" 2>&1 &
    local broker_pid=$!
    disown "$broker_pid"
    pids+=($broker_pid)
    for _ in $(seq 100); do [ -s "$run_dir/bootstrap" ] && break; sleep 0.1; done
    brokers=$(cat "$run_dir/bootstrap")
    # A few fixes, so the instances restore and fold something.
    "$tripstream" simulate --brokers "$brokers" --users 20 --geofences 20 --duration 5m --seed "$1" \
        >"$run_dir/simulate.log" 2>&1

    local pid_a pid_b
    alive_a="" alive_b=""
    start_instance a "$port_a"; pid_a=$started; alive_a=$pid_a
    wait_owned 'a == 4' 60
    start_instance b "$port_b"; pid_b=$started; alive_b=$pid_b
    wait_owned 'a > 0 && b > 0 && a + b == 4' 120
    local before_a
    before_a=$(owned "$port_a")
    sleep 2  # let the split settle (the broker's heartbeats see the new generation)

    local t0 t1
    case "$mode" in
        crash|stop)
            t0=$(now)
            alive_b=""
            if [ "$mode" = crash ]; then kill -KILL "$pid_b"; else kill -TERM "$pid_b"; fi
            echo "== $mode $(date +%T.%N)" >>"$run_dir/b.log"
            wait_owned 'a == 4' 300
            t1=$(now)
            result=$(elapsed "$t0" "$t1")
            echo "run $1: A owned $before_a, B $((4 - before_a)); $mode B -> A owns 4 after $result s" >&2
            ;;
        restart)
            stop KILL "$pid_b"
            echo "== SIGKILL $(date +%T.%N)" >>"$run_dir/b.log"
            t0=$(now)
            start_instance b "$port_b"; pid_b=$started; alive_b=$pid_b
            # Watch A while B comes back: A giving up or taking partitions is a disturbance (its log
            # says so; its partition count is sampled too).
            local a_lines changes=0 last=$before_a back="" a b
            a_lines=$(wc -l <"$run_dir/a.log")
            local end
            end=$(awk -v t="$(now)" -v s="$watch" 'BEGIN {printf "%.3f", t + s}')
            while awk -v t="$(now)" -v d="$end" 'BEGIN {exit !(t < d)}'; do
                for pid in "$pid_a" "$pid_b"; do
                    kill -0 "$pid" 2>/dev/null || { echo "an instance died (pid $pid): see $run_dir" >&2; return 1; }
                done
                a=$(owned "$port_a"); b=$(owned "$port_b")
                if [ "$a" != "$last" ]; then
                    changes=$((changes + 1))
                    echo "  run $1: +$(elapsed "$t0" "$(now)") s A owns $a (B $b)" >&2
                    last=$a
                fi
                if [ -z "$back" ] && [ "$b" -gt 0 ] && [ $((a + b)) -eq 4 ]; then
                    back=$(elapsed "$t0" "$(now)")
                    # keep watching for the whole window: a late rebalance would still disturb A
                fi
                sleep 0.1
            done
            local moves
            moves=$(tail -n "+$((a_lines + 1))" "$run_dir/a.log" | grep -c -E '^(gave up|took) partitions' || true)
            result="A gave up or took partitions $moves time(s), its count changed $changes time(s);"
            result+=" B owned partitions again after ${back:-never} s"
            echo "run $1: A owned $before_a before; $result" >&2
            ;;
    esac
    for pid in "$pid_a" "$pid_b" "$broker_pid"; do stop KILL "$pid"; done
    pids=()
}

echo "mode $mode, ${config:+kafka config $config, }$runs run(s), binary $tripstream" >&2
if [ -n "$config" ]; then sed 's/^/  /' "$config" >&2; fi
results=()
for run in $(seq "$runs"); do
    one_run "$run"
    results+=("$result")
done
if [ "$mode" = restart ]; then
    printf '%s\n' "${results[@]}"
else
    median=$(printf '%s\n' "${results[@]}" | sort -n | awk '{v[NR] = $1} END {print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}')
    echo "takeover after $mode of B: ${results[*]} s; median $median s"
fi
