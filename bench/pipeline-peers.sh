#!/usr/bin/env bash
# Pipeline throughput next to its peers, on the dev broker and the same topic contents:
#   (a) kcat consuming the fixes topic raw, (b) bench/python_peer.py (the geofence fold into a dict,
#   at-least-once), (c) `tripstream run` (exactly-once), and optionally (d) a second tripstream
#   binary (--baseline) to compare two builds.
# See bench/README.md for what each figure means. `--help` for the options.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/pipeline-peers.sh [options]

  --fixes N            fixes published and measured (default 200000)
  --runs K             rounds; the table shows medians (default 3)
  --tripstream BIN     tripstream binary measured (default .build/release/tripstream); it also runs
                       the dev broker and generates the workload
  --baseline BIN       a second binary (e.g. a build of main before a change), measured in every
                       round on its own fresh broker loaded with the same records; the order of the
                       two alternates between rounds
  --partitions P       partitions of the keyed topics (default 12; the mock keeps ~5 MiB each)
  --users U            simulated drivers (default 1000)
  --geofences G        simulated geofences, circles (default 1000)
  --seed S             simulation seed (default 1)
  --with-trips         also publish the simulation's trip commands (tripstream then folds trips and
                       ETAs too; the Python peer ignores them). Default: fixes and geofences only.
  --threads N          passed to `tripstream run --threads` when the binary has that option
                       (default: the number of cores)
  --python PY          interpreter for python_peer.py (default: the first of python3, /usr/bin/python3
                       that imports confluent_kafka)
  --keep DIR           keep the work files (workload, logs, per-run results) in DIR
  -h, --help           this text
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fixes=200000 runs=3 partitions=12 users=1000 geofences=1000 seed=1 with_trips=0 threads="" python="" keep=""
tripstream="$root/.build/release/tripstream" baseline=""
while (($#)); do
    case "$1" in
        --fixes) fixes=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --tripstream) tripstream=$2; shift 2 ;;
        --baseline) baseline=$2; shift 2 ;;
        --partitions) partitions=$2; shift 2 ;;
        --users) users=$2; shift 2 ;;
        --geofences) geofences=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --with-trips) with_trips=1; shift ;;
        --threads) threads=$2; shift 2 ;;
        --python) python=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "error: $*" >&2; exit 1; }
for n in "$fixes" "$runs" "$partitions" "$users" "$geofences" "$seed"; do
    [[ "$n" =~ ^[0-9]+$ ]] || die "not a whole number: $n"
done
((fixes > 0 && runs > 0 && partitions > 0 && users > 0)) || die "--fixes, --runs, --partitions, --users must be positive"
resolve() {  # an executable path, absolute
    local path=$1
    [[ "$path" == */* ]] || path=$(command -v "$path" || true)
    [ -n "$path" ] && [ -x "$path" ] || return 1
    echo "$(cd "$(dirname "$path")" && pwd)/$(basename "$path")"
}
resolved=$(resolve "$tripstream") ||
    die "no tripstream binary at $tripstream (build: swift build -c release --product tripstream, or pass --tripstream)"
tripstream=$resolved
if [ -n "$baseline" ]; then
    resolved=$(resolve "$baseline") || die "no baseline binary at $baseline"
    baseline=$resolved
fi
command -v kcat >/dev/null || die "kcat is missing (scripts/install-deps.sh)"
if [ -z "$python" ]; then
    for candidate in python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null && "$candidate" -c 'import confluent_kafka' 2>/dev/null; then
            python=$candidate; break
        fi
    done
    [ -n "$python" ] || die "no python3 with confluent_kafka (Debian's python3-confluent-kafka: scripts/install-deps.sh)"
fi
"$python" -c 'import confluent_kafka' 2>/dev/null || die "$python cannot import confluent_kafka"
[ -n "$threads" ] || threads=$(nproc)

work=$(mktemp -d "${TMPDIR:-/tmp}/pipeline-peers.XXXXXX")
broker_pid="" run_pid=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    [ -n "$run_pid" ] && kill "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null || true
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null || true
    if [ -n "$keep" ]; then
        mkdir -p "$keep" && cp -r "$work"/. "$keep"/ && echo "work files kept in $keep" >&2
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { echo "$EPOCHREALTIME"; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# --- the workload: simulate to files, keyed for kcat -P -K<TAB> ---------------------------------------
log "workload: $fixes fixes, $users users, $geofences geofences, seed $seed ($(basename "$tripstream") simulate)"
# 5 s between a driver's fixes; a margin for the offline gaps that delay some of them.
seconds=$(( (fixes / users + 2) * 5 * 11 / 10 + 60 ))
"$tripstream" simulate --out "$work/sim" --users "$users" --geofences "$geofences" --duration "${seconds}s" \
    --interval 5s --seed "$seed" >"$work/simulate.log"
keyed() {  # NDJSON on stdin → "key<TAB>line"; the key is userId, or tag/externalId for a geofence
    "$python" -c '
import json, sys
limit = int(sys.argv[1]); out = sys.stdout; n = 0
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    if n == limit:
        break
    d = json.loads(line)
    out.write((d["userId"] if "userId" in d else d["tag"] + "/" + d["externalId"]) + "\t" + line + "\n")
    n += 1
' "${1:--1}"
}
keyed <"$work/sim/geofences.ndjson" >"$work/geofences.kv"
keyed "$fixes" <"$work/sim/fixes.ndjson" >"$work/fixes.kv"
published=$(wc -l <"$work/fixes.kv")
((published == fixes)) || die "the simulation gave only $published fixes (raise --users)"
: >"$work/commands.kv"
if ((with_trips)); then
    # Commands dated up to the last published fix (ISO times of one format compare as text).
    last=$(tail -n 1 "$work/fixes.kv" | sed -E 's/.*"createdAt":"([^"]*)".*/\1/')
    "$python" -c '
import json, sys
last = sys.argv[1]
for line in sys.stdin:
    if json.loads(line)["createdAt"] <= last:
        sys.stdout.write(line)
' "$last" <"$work/sim/commands.ndjson" | keyed >"$work/commands.kv"
fi
bytes=$(wc -c <"$work/fixes.kv")
per_partition=$((bytes / partitions))
((per_partition < 4 * 1024 * 1024)) ||
    die "$fixes fixes are ~$((per_partition / 1024)) KiB per partition; the mock keeps ~5 MiB: raise --partitions or lower --fixes"
log "workload ready: $fixes fixes ($((bytes / 1024 / 1024)) MiB, ~$((per_partition / 1024)) KiB per partition), $(wc -l <"$work/geofences.kv") geofences, $(wc -l <"$work/commands.kv") trip commands"

# --- the broker -------------------------------------------------------------------------------------
bootstrap=""
start_broker() {
    rm -f "$work/bootstrap"
    "$tripstream" dev-broker --broker-count 1 --partitions "$partitions" --bootstrap-file "$work/bootstrap" \
        >"$work/broker.out" 2>"$work/broker.err" &
    broker_pid=$!
    local waited=0
    until [ -s "$work/bootstrap" ]; do
        kill -0 "$broker_pid" 2>/dev/null || die "dev broker exited: $(cat "$work/broker.err")"
        ((waited++ < 100)) || die "dev broker did not start within 10 s"
        sleep 0.1
    done
    bootstrap=$(cat "$work/bootstrap")
}
stop_broker() {
    [ -n "$broker_pid" ] || return 0
    kill "$broker_pid" 2>/dev/null || true
    wait "$broker_pid" 2>/dev/null || true
    broker_pid=""
}
load() {
    kcat -P -b "$bootstrap" -t tripstream.geofences -K $'\t' <"$work/geofences.kv" || die "kcat -P failed"
    if [ -s "$work/commands.kv" ]; then
        kcat -P -b "$bootstrap" -t tripstream.trip-commands -K $'\t' <"$work/commands.kv"
    fi
    kcat -P -b "$bootstrap" -t tripstream.locations -K $'\t' -X linger.ms=5 <"$work/fixes.kv" || die "kcat -P failed"
}
# Partition, offset, key and value of every fix, in partition and offset order: the topic's contents.
fingerprint() {
    kcat -C -b "$bootstrap" -t tripstream.locations -o beginning -e -q -f '%p\t%o\t%k\t%s\n' |
        sort -t $'\t' -k1,1n -k2,2n | sha256sum | cut -c1-16
}
expected_fingerprint=""
fresh_broker() {  # a new broker with the workload, checked identical to the first one loaded
    stop_broker
    start_broker
    load
    local print
    print=$(fingerprint)
    if [ -z "$expected_fingerprint" ]; then
        expected_fingerprint=$print
        log "topic contents fingerprint $print"
    elif [ "$print" != "$expected_fingerprint" ]; then
        die "the fixes topic differs between brokers ($print vs $expected_fingerprint): the comparison would not be fair"
    fi
}

# --- the measurements ---------------------------------------------------------------------------------
results="$work/results.tsv"
: >"$results"
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$results"; }  # kind round rate rate_from_assignment note

measure_kcat() {  # $1 round
    local start end count
    start=$(now)
    count=$(kcat -C -b "$bootstrap" -t tripstream.locations -e -o beginning -q | wc -l) || die "kcat -C failed"
    end=$(now)
    ((count == fixes)) || die "kcat read $count of $fixes fixes"
    local rate
    rate=$("$python" -c "import sys; print(round(int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" "$count" "$start" "$end")
    log "round $1 kcat        $rate fixes/s (raw consume, start-up included)"
    record kcat "$1" "$rate" "$rate" ""
}

measure_python() {  # $1 round
    local line
    "$python" "$here/python_peer.py" --bootstrap "$bootstrap" --topic tripstream.locations --count "$fixes" \
        --group "python-peer-$1-$$" --json >"$work/python-$1.out" 2>"$work/python-$1.err" ||
        die "python_peer.py failed: $(tail -n 3 "$work/python-$1.err")"
    line=$(tail -n 1 "$work/python-$1.out")
    local rate assigned events
    rate=$("$python" -c 'import json,sys; print(round(json.loads(sys.argv[1])["rate"]))' "$line")
    assigned=$("$python" -c 'import json,sys; print(round(json.loads(sys.argv[1])["rateFromAssignment"]))' "$line")
    events=$("$python" -c 'import json,sys; d=json.loads(sys.argv[1]); print("%d entered, %d exited" % (d["entered"], d["exited"]))' "$line")
    log "round $1 python-peer $rate fixes/s, $assigned from the assignment ($events)"
    record python "$1" "$rate" "$assigned" "$events"
}

free_port() { "$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Polls /metrics every 10 ms: from the first fix folded (tripstream_records_consumed_total of the
# fixes topic leaving 0) to the commit of the transaction holding the last one (the last increase of
# tripstream_transactions_total{result="committed"} once all the fixes were folded). Also from the
# assignment: the first sample showing tripstream_restores_in_progress > 0 (a partition's state is
# restored as soon as it is assigned, while librdkafka already fetches its records).
watch_metrics() {  # $1 port, $2 pid of the run → prints "seconds first_to_all_folded seconds_from_assignment entered exited"
    "$python" - "$1" "$fixes" "$2" <<'PY'
import re, sys, time, urllib.request
port, expected, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def alive():  # a zombie (exited, not yet waited for) counts as gone
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
url = "http://127.0.0.1:%s/metrics" % port
pattern = re.compile(r'^(tripstream_records_consumed_total\{topic="tripstream\.locations"\}|'
                     r'tripstream_transactions_total\{result="committed"\}|tripstream_restores_in_progress|'
                     r'tripstream_events_produced_total\{type="user\.(?:entered|exited)_geofence"\}) (\d+)$', re.M)
def sample():
    try:
        text = urllib.request.urlopen(url, timeout=2).read().decode()
    except OSError:
        return None
    values = {name: int(value) for name, value in pattern.findall(text)}
    return (values.get('tripstream_records_consumed_total{topic="tripstream.locations"}', 0),
            values.get('tripstream_transactions_total{result="committed"}', 0),
            values.get('tripstream_events_produced_total{type="user.entered_geofence"}', 0),
            values.get('tripstream_events_produced_total{type="user.exited_geofence"}', 0),
            values.get('tripstream_restores_in_progress', 0))
deadline = time.monotonic() + 900
first = all_folded = last_commit = assigned = None
commits = -1
while time.monotonic() < deadline:
    s = sample()
    t = time.monotonic()
    if s is None:
        if not alive():
            sys.exit("tripstream run exited")
        time.sleep(0.05)
        continue
    consumed, committed, entered, exited, restoring = s
    if assigned is None and (restoring > 0 or consumed > 0):
        assigned = t
    if first is None and consumed > 0:
        first = t
    if committed != commits:
        commits, last_commit = committed, t
    if all_folded is None and consumed >= expected:
        all_folded = t
    if all_folded is not None and t - last_commit > 2.0 and t - all_folded > 2.0:
        end = max(last_commit, all_folded)
        print("%.4f %.4f %.4f %d %d" % (end - first, all_folded - first, end - assigned, entered, exited))
        sys.exit(0)
    time.sleep(0.01)
sys.exit("no end: %s fixes folded of %d" % (s[0] if s else "?", expected))
PY
}

has_threads() { "$1" run --help 2>/dev/null | grep -q -- '--threads'; }

measure_tripstream() {  # $1 label, $2 binary, $3 round
    local label=$1 binary=$2 round=$3 port state extra=() out
    port=$(free_port)
    state="$work/state-$label-$round"
    rm -rf "$state"
    if has_threads "$binary"; then extra=(--threads "$threads"); fi
    "$binary" run --brokers "$bootstrap" --group "pipeline-peers-$label-$round-$$" --state-dir "$state" \
        --instance-id "pipeline-peers-$label-$round" --metrics-port "$port" --metrics-address 127.0.0.1 \
        --partitions "$partitions" "${extra[@]}" >"$work/run-$label-$round.out" 2>"$work/run-$label-$round.err" &
    run_pid=$!
    if ! out=$(watch_metrics "$port" "$run_pid"); then
        kill "$run_pid" 2>/dev/null || true
        die "tripstream run ($label) did not fold the $fixes fixes; log: $(tail -n 5 "$work/run-$label-$round.err")"
    fi
    kill -TERM "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
    run_pid=""
    local seconds folded from_assignment entered exited rate assigned
    read -r seconds folded from_assignment entered exited <<<"$out"
    rate=$("$python" -c "import sys; print(round(int(sys.argv[1]) / float(sys.argv[2])))" "$fixes" "$seconds")
    assigned=$("$python" -c "import sys; print(round(int(sys.argv[1]) / float(sys.argv[2])))" "$fixes" "$from_assignment")
    log "round $round $label $rate fixes/s (${seconds} s first fold to last commit, all folded at ${folded} s), $assigned from the assignment (${from_assignment} s); $entered entered, $exited exited${extra:+; --threads $threads}"
    record "$label" "$round" "$rate" "$assigned" "$entered entered, $exited exited"
}

log "tripstream: $tripstream$(has_threads "$tripstream" && echo " (--threads $threads)")"
[ -z "$baseline" ] || log "baseline:   $baseline$(has_threads "$baseline" && echo " (--threads $threads)")"
log "python:     $python; kcat: $(command -v kcat)"
for ((round = 1; round <= runs; round++)); do
    fresh_broker
    measure_kcat "$round"
    measure_python "$round"
    if [ -z "$baseline" ]; then
        measure_tripstream tripstream "$tripstream" "$round"
    elif ((round % 2)); then
        measure_tripstream tripstream "$tripstream" "$round"
        fresh_broker
        measure_tripstream baseline "$baseline" "$round"
    else
        measure_tripstream baseline "$baseline" "$round"
        fresh_broker
        measure_tripstream tripstream "$tripstream" "$round"
    fi
done
stop_broker

# --- the table ----------------------------------------------------------------------------------------
"$python" - "$results" "$fixes" "$partitions" "$runs" "$with_trips" <<'PY'
import statistics, sys
path, fixes, partitions, runs, trips = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
rows, assigned, notes = {}, {}, {}
for line in open(path):
    kind, rnd, rate, from_assignment, note = line.rstrip("\n").split("\t")
    rows.setdefault(kind, []).append(int(rate))
    assigned.setdefault(kind, []).append(int(from_assignment))
    notes[kind] = note
names = {"kcat": "kcat raw consume", "python": "python peer (dict fold, at-least-once)",
         "tripstream": "tripstream run (exactly-once)", "baseline": "baseline run (exactly-once)"}
kinds = [k for k in ("kcat", "python", "tripstream", "baseline") if k in rows]
median = {k: statistics.median(rows[k]) for k in kinds}
median_assigned = {k: statistics.median(assigned[k]) for k in kinds}
print()
print("%d fixes, %s partitions, dev broker, %d run%s%s; medians (fixes/s)" %
      (fixes, partitions, runs, "s" if runs > 1 else "", ", with trip commands" if trips else ""))
print("%-40s %14s %16s   %s" % ("", "first→last", "assigned→last", "runs (first→last)"))
for kind in kinds:
    print("%-40s %14s %16s   %s" % (names[kind], format(round(median[kind]), ","),
                                    format(round(median_assigned[kind]), ","),
                                    " ".join(format(r, ",") for r in rows[kind])))
print()
for kind in ("tripstream", "baseline"):
    if kind in median:
        print("%-10s / python %6.2f× (%.2f× assigned→last)    / kcat %6.2f× (%.2f×)" %
              (kind, median[kind] / median["python"], median_assigned[kind] / median_assigned["python"],
               median[kind] / median["kcat"], median_assigned[kind] / median_assigned["kcat"]))
if "baseline" in median:
    print("tripstream / baseline %6.2f× (%.2f× assigned→last)" %
          (median["tripstream"] / median["baseline"], median_assigned["tripstream"] / median_assigned["baseline"]))
print()
for kind in ("python", "tripstream", "baseline"):
    if kind in notes:
        print("events %-10s %s (last run)" % (kind, notes[kind]))
PY
