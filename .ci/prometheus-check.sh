#!/usr/bin/env bash
# The monitoring against a real Prometheus (Debian's, with promtool):
#   - `tripstream dev-broker`, `tripstream run` on it with a metrics port, a simulated fleet flowing
#     (`tripstream simulate --brokers`) plus a few bad inputs (invalid JSON, a fix from the future,
#     one too late for the replay horizon), `run` frozen (SIGSTOP) for a few seconds so that a lag
#     builds up, and `run` restarted on an empty state directory midway,
#     so that it restores its partitions from the changelog;
#   - Prometheus scrapes it every second and loads deploy/prometheus/tripstream-rules.yaml;
#   - through Prometheus' HTTP API: the series are scraped and move (inputs, events, commits, lag,
#     the commit and fix-to-event latency histograms, dead letters by reason, restore time), the
#     rules are loaded and healthy, and every panel query of the Grafana dashboards returns data;
#   - promtool: `check metrics` on a scrape of /metrics, `check rules`, `test rules`, and `check config`
#     of docker/prometheus.yml (the compose file's Prometheus).
# Usage: .ci/prometheus-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/ports.sh
tripstream=${1:-.build/debug/tripstream}
[ -x "$tripstream" ] || swift build --product tripstream
command -v prometheus >/dev/null && command -v promtool >/dev/null \
    || { echo "prometheus-check: prometheus and promtool are missing (scripts/install-deps.sh installs them)" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "prometheus-check: $*" >&2
    echo "-- tripstream run's log (last lines):" >&2
    grep -v CONFWARN "$work/run.log" 2>/dev/null | tail -15 >&2 || true
    exit 1
}
rules=deploy/prometheus/tripstream-rules.yaml

echo "-- promtool: the rules and their unit tests" >&2
promtool check rules "$rules" >&2
promtool test rules deploy/prometheus/tests/*.yaml >&2
# docker/compose.yaml's Prometheus configuration, with the rules where the container mounts them.
sed "s#/etc/prometheus/rules/#$PWD/deploy/prometheus/#" docker/prometheus.yml >"$work/compose-prometheus.yml"
promtool check config "$work/compose-prometheus.yml" >&2

# Ports of their own, so two checks can run side by side.
metrics_port=$(free_ports 2)
prometheus_port=$((metrics_port + 1))
partitions=4
"$tripstream" dev-broker --partitions "$partitions" --bootstrap-file "$work/bootstrap" >"$work/broker.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
brokers=$(cat "$work/bootstrap")

# A scrape every second; the rules loaded as an operator would load them.
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $PWD/$rules
scrape_configs:
  - job_name: tripstream
    static_configs:
      - targets: ['127.0.0.1:$metrics_port']
EOF
prometheus --config.file "$work/prometheus.yml" --storage.tsdb.path "$work/tsdb" \
    --web.listen-address "127.0.0.1:$prometheus_port" --log.level warn >"$work/prometheus.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$prometheus_port/api/v1"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$prometheus_port/-/ready" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$prometheus_port/-/ready" >/dev/null || { cat "$work/prometheus.log" >&2; fail "Prometheus did not start"; }

# A dynamic member (no group.instance.id) leaves the group when stopped, so the restart below takes
# the partitions at once; the long session outlasts the pauses that build a backlog (SIGSTOP).
printf 'session.timeout.ms=30000\nheartbeat.interval.ms=1000\ngroup.instance.id=\n' >"$work/client.properties"
start_run() {  # state dir
    "$tripstream" run --brokers "$brokers" --kafka-config "$work/client.properties" --group prometheus-check \
        --state-dir "$1" --instance-id prometheus-check --metrics-port "$metrics_port" --metrics-address 127.0.0.1 \
        --snapshot-interval 2s >>"$work/run.log" 2>&1 &
    run_pid=$!
    pids+=($run_pid)
}
# The value of an instant PromQL query's first sample, or "none" when it returns nothing.
query() {
    curl -sf --get "$api/query" --data-urlencode "query=$1" \
        | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}
# Waits (up to $2 seconds, default 60) until the PromQL query $1 returns a sample.
wait_for() {
    for _ in $(seq "${2:-60}"); do
        [ "$(query "$1")" != none ] && return 0
        sleep 1
    done
    fail "no data after ${2:-60} s for: $1"
}

echo "-- tripstream run, a fleet flowing, bad inputs; Prometheus scraping every second" >&2
start_run "$work/state-1"
wait_for 'tripstream_ready == 1'
"$tripstream" simulate --brokers "$brokers" --users 200 --geofences 200 --duration 8m --rate 400 \
    --offline-chance 0.01 --seed 5 >"$work/simulate.log" 2>&1 &
simulate_pid=$!
pids+=($simulate_pid)
# One of each dead-letter reason the alerts watch: unparsable, dated beyond --max-clock-skew, and
# older than --replay-horizon (6 h) behind its user's newest fix.
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
day_before=$(date -u -d '-1 day' +%Y-%m-%dT%H:%M:%SZ)
{
    printf 'ci-bad\t{not json\n'
    printf 'ci-future\t{"userId":"ci-future","createdAt":"2099-01-01T00:00:00Z","latitude":41.15,"longitude":-8.61}\n'
    printf 'ci-late\t{"userId":"ci-late","createdAt":"%s","latitude":41.15,"longitude":-8.61}\n' "$now"
    printf 'ci-late\t{"userId":"ci-late","createdAt":"%s","latitude":41.15,"longitude":-8.61}\n' "$day_before"
} | kcat -P -b "$brokers" -t tripstream.locations -K $'\t'
for reason in invalid_json future_timestamp too_late; do
    wait_for "increase(tripstream_dead_letters_total{reason=\"$reason\"}[3m]) > 0" 45
done
wait_for 'increase(tripstream_transactions_total{result="committed"}[1m]) > 0'
wait_for 'increase(tripstream_records_consumed_total{topic="tripstream.locations"}[1m]) > 100'

# Keeping up with 400 fixes/s, the service shows a lag of 0 at most of its lag checks (every 5 s):
# frozen for 7 s while the fleet goes on publishing, its first check after it resumes sees the backlog.
echo "-- run frozen (SIGSTOP) for 7 s while the fleet publishes: a backlog, then caught up" >&2
for attempt in 1 2 3; do
    kill -STOP "$run_pid"
    sleep 7
    kill -CONT "$run_pid"
    for _ in $(seq 10); do
        if [ "$(query 'sum(max_over_time(tripstream_consumer_lag[30s])) > 0')" != none ]; then
            echo "   a lag after freeze $attempt" >&2
            break 2
        fi
        sleep 1
    done
    [ "$attempt" -lt 3 ] || fail "no lag seen after three 7 s freezes with the fleet publishing"
done

echo "-- run stopped (SIGTERM) and started again on an empty state directory: it restores from the changelog" >&2
kill -TERM "$run_pid"
wait "$run_pid" || fail "tripstream run did not stop cleanly on SIGTERM"
start_run "$work/state-2"
wait_for 'tripstream_restored_bytes_total > 0' 60
wait_for 'tripstream_ready == 1' 60
wait "$simulate_pid" || { cat "$work/simulate.log" >&2; fail "tripstream simulate failed"; }
# Enough scrapes after the restart for rates over the dashboards' windows.
wait_for 'increase(tripstream_inputs_committed_total[30s]) > 0' 30
sleep 5

echo "-- the series are scraped and move" >&2
checks=(
    'increase(tripstream_records_consumed_total{topic="tripstream.locations"}[3m]) > 0'
    'sum(increase(tripstream_events_produced_total[3m])) > 0'
    'increase(tripstream_transactions_total{result="committed"}[3m]) > 0'
    'increase(tripstream_inputs_committed_total[3m]) > 0'
    "count(count by (partition) (max_over_time(tripstream_consumer_lag[3m]))) == $partitions"
    'sum(changes(tripstream_consumer_lag[3m])) > 0'
    'increase(tripstream_commit_seconds_count[3m]) > 0'
    'histogram_quantile(0.99, sum by (le) (rate(tripstream_commit_seconds_bucket[3m]))) > 0'
    'increase(tripstream_input_to_commit_seconds_count[3m]) > 0'
    'histogram_quantile(0.5, sum by (le) (rate(tripstream_input_to_commit_seconds_bucket[3m]))) > 0'
    'increase(tripstream_dead_letters_total{reason="invalid_json"}[5m]) > 0'
    'increase(tripstream_dead_letters_total{reason="future_timestamp"}[5m]) > 0'
    'increase(tripstream_dead_letters_total{reason="too_late"}[5m]) > 0'
    'tripstream_partition_restore_seconds_count > 0'
    'tripstream_partition_restore_seconds_sum > 0'
    'tripstream_restored_bytes_total > 0'
    'tripstream_state_disk_bytes{store="history"} > 0'
    'tripstream_healthy == 1'
    'up{job="tripstream"} == 1'
)
for check in "${checks[@]}"; do
    [ "$(query "$check")" != none ] || fail "no data, or not moving: $check"
done

echo "-- the alert rules are loaded and evaluate without errors" >&2
curl -sf "$api/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [rule for group in groups for rule in group["rules"]]
bad = [f"{rule['name']}: {rule.get('lastError')}" for rule in rules if rule.get("health") != "ok"]
if not rules or bad:
    sys.exit("rules not loaded or unhealthy: " + ("; ".join(bad) or "none loaded"))
print(f"{len(rules)} rules loaded, all healthy", file=sys.stderr)
' || fail "the rules did not load"

echo "-- every dashboard panel's query returns data" >&2
python3 .ci/dashboard_queries.py --api "$api" deploy/grafana/*.json || fail "a dashboard panel is empty"

echo "-- promtool check metrics on a scrape of /metrics" >&2
curl -sf "http://127.0.0.1:$metrics_port/metrics" >"$work/scrape.txt"
if ! promtool check metrics <"$work/scrape.txt" >"$work/lint.txt" 2>&1; then
    cat "$work/lint.txt" >&2
    fail "promtool check metrics found problems"
fi
kill -TERM "$run_pid"
wait "$run_pid" || fail "tripstream run did not stop cleanly on SIGTERM"
echo "prometheus-check: ok" >&2
