#!/usr/bin/env bash
# `tripstream replay` from its three sources gives the same files, across processes:
#   - `tripstream dev-broker` in its own process, a small simulated fleet published to it,
#   - `replay --brokers` (the topics), `archive` then `replay --archive` (the archive),
#   - and `replay --partitions 1` over each Kafka partition's records as files (dumped with kcat),
#     concatenated in partition order: the three must be byte-identical (cmp) and `diff` finds nothing,
#   - `--partitions 1,2` from the topics equals the files of partitions 1 and 2,
#   - `--geofences FILE` with the topics (the same table, on 3 threads) equals the files too, and a what-if file
#     holding half the geofences gives events that `diff` tells apart,
#   - RFC 3339 --since/--until read what a duration does; a bad --since is a CLI error,
#   - an empty --to-topic-prefix is refused: a replay never writes the production topics.
# Usage: .ci/replay-sources-check.sh [path/to/tripstream]
set -euo pipefail
cd "$(dirname "$0")/.."
tripstream=${1:-.build/debug/tripstream}
[ -x "$tripstream" ] || swift build --product tripstream
work=$(mktemp -d)
partitions=3
. scripts/lib/dev-broker.sh
start_dev_broker "$tripstream" "$partitions" "$work"

"$tripstream" simulate --users 60 --geofences 80 --duration 20m --seed 4 --brokers "$brokers" >&2
"$tripstream" replay --quiet --brokers "$brokers" --since 1h --out "$work/topics"
"$tripstream" archive --quiet --brokers "$brokers" --out "$work/archive" --until-end
"$tripstream" replay --quiet --archive "$work/archive" --since 1h --out "$work/archive-out"
"$tripstream" replay --quiet --brokers "$brokers" --since 1h --partitions 1,2 --out "$work/selected"
# RFC 3339 bounds around everything read the same records as a duration.
"$tripstream" replay --quiet --brokers "$brokers" --since 2000-01-01T00:00:00Z --until 2200-01-01T00:00:00Z \
    --out "$work/rfc3339"
if "$tripstream" replay --quiet --brokers "$brokers" --since yesterday --out "$work/bad" 2>"$work/bad-since.txt"; then
    echo "replay accepted --since yesterday" >&2
    exit 1
fi
grep -q "neither an RFC 3339 time" "$work/bad-since.txt"

kcat -C -b "$brokers" -t tripstream.geofences -e -o beginning -q -f '%s\n' >"$work/geofences.ndjson"
for p in $(seq 0 $((partitions - 1))); do
    kcat -C -b "$brokers" -t tripstream.locations -p "$p" -e -o beginning -q -f '%s\n' >"$work/fixes-$p.ndjson"
    kcat -C -b "$brokers" -t tripstream.trip-commands -p "$p" -e -o beginning -q -f '%s\n' >"$work/commands-$p.ndjson"
    "$tripstream" replay --quiet --partitions 1 -g "$work/geofences.ndjson" -c "$work/commands-$p.ndjson" \
        -f "$work/fixes-$p.ndjson" --out "$work/files-$p"
done
"$tripstream" replay --quiet --brokers "$brokers" --since 1h -g "$work/geofences.ndjson" --threads 3 --out "$work/file-table"
awk 'NR % 2 == 0' "$work/geofences.ndjson" >"$work/what-if-geofences.ndjson"
"$tripstream" replay --quiet --brokers "$brokers" --since 1h -g "$work/what-if-geofences.ndjson" --out "$work/what-if"
status=0
"$tripstream" diff "$work/topics" "$work/what-if" --show 0 >/dev/null || status=$?
if [ "$status" != 1 ]; then
    echo "diff of the what-if geofences exited $status, not 1 (the runs differ)" >&2
    exit 1
fi
# Dead letters name their source: the topics' partition and offset, a file's line. The fleet has none.
for file in events eta trip-summaries dead-letters; do
    for p in $(seq 0 $((partitions - 1))); do cat "$work/files-$p/$file.ndjson"; done | cmp - "$work/topics/$file.ndjson"
    cmp "$work/topics/$file.ndjson" "$work/archive-out/$file.ndjson"
    cmp "$work/topics/$file.ndjson" "$work/rfc3339/$file.ndjson"
    cat "$work/files-1/$file.ndjson" "$work/files-2/$file.ndjson" | cmp - "$work/selected/$file.ndjson"
    for p in $(seq 0 $((partitions - 1))); do cat "$work/files-$p/$file.ndjson"; done | cmp - "$work/file-table/$file.ndjson"
done
test -s "$work/topics/events.ndjson"
# A replay never writes the production topics: an empty prefix would.
if "$tripstream" replay --quiet --brokers "$brokers" --since 1h --to-topic-prefix "" 2>"$work/prefix.txt"; then
    echo "replay accepted an empty --to-topic-prefix" >&2
    exit 1
fi
grep -q 'a topic of the service' "$work/prefix.txt"
"$tripstream" diff "$work/topics" "$work/archive-out" --show 0 >/dev/null
echo "replay from the topics, from the archive and from files: identical ($(wc -l <"$work/topics/events.ndjson") events)" >&2
