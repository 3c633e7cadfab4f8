#!/usr/bin/env bash
# tripstream-sim: seeds of the runtime's state machine under seeded faults (1-4 instances on one thread,
# simulated time, an in-memory broker that fails on purpose), every invariant checked; then one seed run
# twice must print the same trace, step for step. The seeds are shared out over the cores.
#
#   .ci/sim-check.sh            # 2,000 seeds (SIM_SEEDS=N for another count)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${SIM_SEEDS:-2000}
swift build -c release --product tripstream-sim
sim=.build/release/tripstream-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shards=$(nproc)
per=$(( (seeds + shards - 1) / shards ))
pids=()
for ((shard = 0; shard < shards; shard++)); do
    first=$((1 + shard * per))
    count=$(( seeds - shard * per < per ? seeds - shard * per : per ))
    [ "$count" -gt 0 ] || continue
    "$sim" --first "$first" --seeds "$count" --stats >"$work/shard-$shard.txt" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

total_seeds=0; total_faults=0; total_violations=0
for file in "$work"/shard-*.txt; do
    last=$(tail -1 "$file")
    if ! [[ $last =~ ^([0-9]+)\ seeds,\ ([0-9]+)\ faults,\ ([0-9]+)\ violations$ ]]; then
        echo "sim check: a shard ended without its summary line: $last" >&2
        exit 1
    fi
    total_seeds=$((total_seeds + BASH_REMATCH[1]))
    total_faults=$((total_faults + BASH_REMATCH[2]))
    total_violations=$((total_violations + BASH_REMATCH[3]))
    grep -v '^[0-9]* seeds, ' "$file" >&2 || true
done
echo "$total_seeds seeds, $total_faults faults, $total_violations violations"
if [ "$status" -ne 0 ] || [ "$total_violations" -ne 0 ] || [ "$total_seeds" -lt "$seeds" ] || [ "$total_faults" -lt "$seeds" ]; then
    echo "sim check: failed (each failing seed above says how to reproduce it)" >&2
    exit 1
fi

# Same seed, same outcome: the whole trace, twice.
"$sim" --seed 1234 --trace >"$work/first.txt"
"$sim" --seed 1234 --trace >"$work/second.txt"
if ! cmp -s "$work/first.txt" "$work/second.txt"; then
    echo "sim check: seed 1234 ran differently twice:" >&2
    diff "$work/first.txt" "$work/second.txt" | head -20 >&2
    exit 1
fi
