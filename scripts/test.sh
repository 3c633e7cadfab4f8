#!/usr/bin/env bash
# The tests: unit and in-process Kafka tests (swift test), a short fuzz run of the decoders, then
# checks across processes and against independent implementations: the schemas with Python's
# jsonschema, replay determinism, late arrival (two arrival orders, one result), the real Porto trajectories,
# the release build against the debug build, the runtime's deterministic simulation, replay from topics, archives
# and files, and the Kafka runtime with kcat and a Sarama consumer, on a dev broker and on one failing on a seeded schedule.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's heading says when it started, from the script's start: CI's budget is 30 minutes.
step() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1" >&2; }
scripts/install-deps.sh

step "web: node --check on the pages' scripts, node --test on Tests/web (.ci/web-check.sh)"
.ci/web-check.sh

step "swift test"
swift build --build-tests
swift test --skip-build

step "fuzz: every decoder of untrusted bytes, a short seeded mutation run (scripts/fuzz.sh)"
scripts/fuzz.sh

step "schemas: Radar's examples and ours validate (python jsonschema)"
python3 schemas/validate.py --self-test

swift build --product tripstream
swift build --product tripstream-bench  # .ci/cli-check.sh finds it beside tripstream
tripstream=.build/debug/tripstream
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "replay: the bundled real sample, on 1 and on 2 threads, byte-identical, events valid"
for run in 1 2; do
    "$tripstream" replay --quiet --threads "$run" --geofences samples/porto/geofences.ndjson \
        --commands samples/porto/commands.ndjson --fixes samples/porto/fixes.ndjson.lz4 --out "$work/replay-$run"
done
for file in events eta dead-letters trip-summaries; do cmp "$work/replay-1/$file.ndjson" "$work/replay-2/$file.ndjson"; done
test -s "$work/replay-1/events.ndjson"
python3 schemas/validate.py event "$work/replay-1/events.ndjson"
step "diff: the same replay on 1 and 2 threads has no difference"
"$tripstream" diff "$work/replay-1" "$work/replay-2" --show 0 >/dev/null
python3 schemas/validate.py eta-update "$work/replay-1/eta.ndjson"
step "docs: links and repository paths resolve, README is a front door, the documented replay outputs are what replay writes"
.ci/docs-check.sh "$work/replay-1"
step "docs' SQL: every sql block of README and docs/ runs as printed in DuckDB's CLI over the Porto replay"
.ci/sql-check.sh "$work/replay-1"

step "replay: a simulated fleet with offline replays and duplicates, events valid"
"$tripstream" simulate --users 150 --geofences 200 --duration 20m --offline-chance 0.01 --out "$work/sim" >/dev/null
"$tripstream" replay --quiet -g "$work/sim/geofences.ndjson" -c "$work/sim/commands.ndjson" -f "$work/sim/fixes.ndjson" \
    --out "$work/sim-out"
python3 schemas/validate.py event "$work/sim-out/events.ndjson"
test -s "$work/sim-out/trip-summaries.ndjson"
python3 schemas/validate.py trip-summary "$work/sim-out/trip-summaries.ndjson"
# Replays a fixes file in event-time order and as a fleet delivers it (bench/late-arrival.py: runs of
# fixes held back by offline devices, marked replayed, and duplicates): the events must be the same.
late_arrival_check() {  # name geofences commands fixes
    python3 bench/late-arrival.py "$4" "$work/late-$1" --seed 7 >&2
    for order in in-order late; do
        "$tripstream" replay --quiet -g "$2" -c "$3" -f "$work/late-$1/$order.ndjson" --out "$work/late-$1/out-$order"
    done
    "$tripstream" diff --show 5 "$work/late-$1/out-in-order" "$work/late-$1/out-late" >&2
    if [ -s "$work/late-$1/out-late/dead-letters.ndjson" ]; then
        echo "late arrival ($1): fixes delivered late were dead-lettered:" >&2
        head -3 "$work/late-$1/out-late/dead-letters.ndjson" >&2
        exit 1
    fi
}
step "late arrival: the fleet's fixes, half delivered late by offline devices, give the events of their event-time order"
late_arrival_check sim "$work/sim/geofences.ndjson" "$work/sim/commands.ndjson" "$work/sim/fixes.ndjson"

step "what-if: the fleet replayed with --set overrides differs, and diff says how"
"$tripstream" replay --quiet --set replay-horizon=1m --set hysteresis-minimum=40 -g "$work/sim/geofences.ndjson" -c "$work/sim/commands.ndjson" \
    -f "$work/sim/fixes.ndjson" --out "$work/sim-what-if"
if "$tripstream" diff "$work/sim-out" "$work/sim-what-if" --show 0 >"$work/diff.txt"; then
    echo "diff found no difference after --set replay-horizon=1m --set hysteresis-minimum=40" >&2
    exit 1
fi
grep -q '^user\.' "$work/diff.txt"
if "$tripstream" replay --quiet --set no-such-setting=1 -g "$work/sim/geofences.ndjson" -f "$work/sim/fixes.ndjson" \
    --out "$work/bad-set" 2>"$work/bad-set.txt"; then
    echo "replay accepted an unknown --set name" >&2
    exit 1
fi
grep -q 'no setting no-such-setting' "$work/bad-set.txt"

step "what-if without one geofence: diff finds only that geofence's events removed, no event renamed"
dropped=$(python3 - "$work/sim-out/events.ndjson" <<'PY'
import collections, json, sys
visits = collections.Counter(json.loads(l)["geofence"]["externalId"] for l in open(sys.argv[1])
                             if l.strip() and json.loads(l).get("geofence") and json.loads(l)["type"] == "user.entered_geofence")
print(visits.most_common(1)[0][0])
PY
)
grep -v "\"externalId\":\"$dropped\"" "$work/sim/geofences.ndjson" >"$work/geofences-without.ndjson"
"$tripstream" replay --quiet -g "$work/geofences-without.ndjson" -c "$work/sim/commands.ndjson" -f "$work/sim/fixes.ndjson" \
    --out "$work/sim-without"
"$tripstream" diff "$work/sim-out" "$work/sim-without" --show 0 >"$work/diff-without.txt" || true
python3 - "$work/diff-without.txt" "$dropped" <<'PY'
import re, sys
text, dropped = open(sys.argv[1]).read(), sys.argv[2]
added = int(re.search(r"differences\s+([\d,]+) added", text).group(1).replace(",", ""))
section = text.split("by geofence", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
rows = {parts[0]: (int(parts[1].replace(",", "")), int(parts[2].replace(",", ""))) for parts in (l.split() for l in section)
        if len(parts) >= 4 and not parts[0].startswith("…")}
others_removed = {g: r for g, (a, r) in rows.items() if not g.endswith("/" + dropped) and (a or r)}
if added or others_removed or rows.get("store/" + dropped, (0, 0))[1] == 0:
    sys.exit(f"dropping {dropped}: {added} added, other geofences' events added or removed: {others_removed}\n{text[:1500]}")
PY
step "analysts: DuckDB queries over the fleet's outputs (analysts/views.sql) agree with plain Python (analysts/queries.py)"
python3 analysts/queries.py "$work/sim-out" --check

if [ -d ../shared/data/real-trajectories ]; then
    step "real trajectories: arrival and ETA targets"
    python3 bench/real-trajectories.py --tripstream "$tripstream" --check --work "$work/rt"
    step "alert precision: every event type per real ride, with thresholds (bench/alert-precision.py --check)"
    python3 bench/alert-precision.py --tripstream "$tripstream" --check >&2
    step "late arrival: the real trajectories, half delivered late by offline devices, give the events of their event-time order"
    late_arrival_check real "$work/rt/geofences.ndjson" "$work/rt/commands.ndjson" "$work/rt/fixes.ndjson"
else
    step "real trajectories: ../shared/data/real-trajectories not present here, bench skipped"
fi

step "learned ETA: held-out Porto rides through replay --eta-model-out / --eta-model (range coverage)"
.ci/eta-check.sh "$tripstream"

step "release build: the same replays write the debug build's files (dense city with pile-ups, Porto)"
.ci/release-check.sh "$tripstream"

step "simulation: 2,000 seeds of the runtime under seeded faults, invariants checked, one seed twice the same (.ci/sim-check.sh)"
.ci/sim-check.sh

step "shutdown: SIGTERM with brokers gone exits within --shutdown-timeout"
.ci/shutdown-check.sh "$tripstream"

step "demo: a short run ends once the service committed every input the fleet published, and leaves nothing in TMPDIR"
mkdir "$work/demo-tmp"
TMPDIR="$work/demo-tmp" "$tripstream" demo --duration 5m --speedup 120 --show trip >"$work/demo.txt" 2>"$work/demo-log.txt"
if [ -n "$(ls -A "$work/demo-tmp")" ]; then
    echo "demo: left its state behind in TMPDIR: $(ls -A "$work/demo-tmp")" >&2
    exit 1
fi
summary=$(grep '^summary:' "$work/demo.txt")
published=$(sed -n 's/^fleet: published \([0-9]*\) inputs.*/\1/p' "$work/demo-log.txt")
consumed=$(echo "$summary" | sed -n 's/^summary: \([0-9]*\) inputs consumed.*/\1/p')
if [ -z "$published" ] || [ "${consumed:-0}" -lt "$published" ]; then
    echo "demo: consumed ${consumed:-?} of ${published:-?} published inputs: $summary" >&2
    exit 1
fi

step "demo: with no option it stays (90 s), its console answers, no dropped warning, SIGINT exits 0; --fleet porto (.ci/demo-check.sh)"
.ci/demo-check.sh "$tripstream"

step "command line: failed runs keep the previous outputs, gaps and unreachable brokers said, exit codes, demo feed, bench cleanup"
.ci/cli-check.sh "$tripstream"
step "console: headless Chromium on the map, the feed, a trip's ETA and a tracking page (.ci/console-check.sh)"
.ci/console-check.sh "$tripstream"

step "slow clients: 200 trickling request heads per server; /, /api/track and run's /health answer within 2 s (.ci/slow-clients-check.sh)"
.ci/slow-clients-check.sh "$tripstream"

step "replay sources: --brokers, archive + --archive, and files per partition give identical files"
.ci/replay-sources-check.sh "$tripstream"

if [ -x .ci/kafka-check.sh ]; then
    step "Kafka across processes: dev-broker, kcat, run killed and restarted, Sarama read_committed"
    .ci/kafka-check.sh "$tripstream"
fi
step "chaos: three run instances on a dev-broker --chaos, scale out and in, a zombie and a SIGKILL; Sarama read_committed against the event-time fold"
.ci/chaos-check.sh "$tripstream"
step "Kubernetes: the manifests validate against a pinned Kubernetes (kubernetes-validate) and keep their invariants"
.ci/kubernetes-check.sh

step "Prometheus: a live scrape, the series move, every dashboard query has data, promtool rules and lint"
.ci/prometheus-check.sh "$tripstream"

echo "all tests passed in $((SECONDS / 60)) min $((SECONDS % 60)) s" >&2
