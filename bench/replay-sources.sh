#!/usr/bin/env bash
# Replay's sources, measured in one run on the same records (issue 9's figures):
#   1. replay from the topics (`replay --brokers`) against replay from files holding the same records
#      (`replay --partitions 1` over each Kafka partition's records, dumped with kcat): throughput
#      ratio, and whether the outputs are byte-identical;
#   2. `archive --until-end` of the locations topic against kcat reading the same topic;
#   3. a replay split over two processes run side by side (partitions 0..P/2-1 and P/2..P-1) against
#      one process doing all of them; and `replay --archive` for reference;
#   4. `replay --brokers` on the default threads (the cores) against one thread: speed-up, identical outputs.
#   (1. and 3. fold on one thread per process.)
# Usage: bench/replay-sources.sh [--users N] [--duration D] [--partitions P] [--tripstream PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
users=2000 duration=10m partitions=12 tripstream=.build/release/tripstream
while [ $# -gt 0 ]; do
    case $1 in
        --users) users=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --partitions) partitions=$2; shift 2 ;;
        --tripstream) tripstream=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$tripstream" ] || swift build -c release --product tripstream
work=$(mktemp -d)
. scripts/lib/dev-broker.sh
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

start_dev_broker "$tripstream" "$partitions" "$work"
"$tripstream" simulate --users "$users" --duration "$duration" --seed 9 --brokers "$brokers"
last=$((partitions - 1)) half=$((partitions / 2))

echo "== 1. replay from the topics against replay from files of the same records"
start=$(now)
"$tripstream" replay --quiet --brokers "$brokers" --since 1d --threads 1 --out "$work/topics"
topics_s=$(seconds "$start" "$(now)")
kcat -C -b "$brokers" -t tripstream.geofences -e -o beginning -q -f '%s\n' >"$work/geofences.ndjson"
for p in $(seq 0 "$last"); do
    kcat -C -b "$brokers" -t tripstream.locations -p "$p" -e -o beginning -q -f '%s\n' >"$work/fixes-$p.ndjson"
    kcat -C -b "$brokers" -t tripstream.trip-commands -p "$p" -e -o beginning -q -f '%s\n' >"$work/commands-$p.ndjson"
done
fixes=$(cat "$work"/fixes-*.ndjson | wc -l)
start=$(now)
for p in $(seq 0 "$last"); do
    "$tripstream" replay --quiet --partitions 1 --threads 1 -g "$work/geofences.ndjson" -c "$work/commands-$p.ndjson" \
        -f "$work/fixes-$p.ndjson" --out "$work/files-$p"
done
files_s=$(seconds "$start" "$(now)")
identical=yes
for file in events eta dead-letters trip-summaries; do
    for p in $(seq 0 "$last"); do cat "$work/files-$p/$file.ndjson"; done | cmp -s - "$work/topics/$file.ndjson" \
        || identical=no
done
echo "fixes           $fixes over $partitions partitions"
echo "from topics     $topics_s s ($(ratio "$fixes" "$topics_s") fixes/s)"
echo "from files      $files_s s ($(ratio "$fixes" "$files_s") fixes/s; one replay --partitions 1 per partition, in turn)"
echo "ratio           $(ratio "$files_s" "$topics_s") (topics throughput / files throughput)"
echo "identical       $identical (events, eta, dead-letters, trip-summaries: cmp)"

echo "== 2. archive of the locations topic against kcat"
start=$(now)
kcat -C -b "$brokers" -t tripstream.locations -e -o beginning -q >/dev/null
kcat_s=$(seconds "$start" "$(now)")
start=$(now)
"$tripstream" archive --quiet --brokers "$brokers" --out "$work/locations-only" --until-end \
    --commands-topic absent.commands --geofences-topic absent.geofences 2>/dev/null
archive_s=$(seconds "$start" "$(now)")
echo "kcat            $kcat_s s"
echo "archive         $archive_s s ($(ratio "$kcat_s" "$archive_s")× kcat's throughput)"

echo "== 3. one replay split over two processes side by side"
start=$(now)
( s=$(now); "$tripstream" replay --quiet --brokers "$brokers" --since 1d --partitions "0-$((half - 1))" --threads 1 \
    --out "$work/a" \
    && echo "first half      $(seconds "$s" "$(now)") s (partitions 0-$((half - 1)))" ) &
first=$!
( s=$(now); "$tripstream" replay --quiet --brokers "$brokers" --since 1d --partitions "$half-$last" --threads 1 \
    --out "$work/b" \
    && echo "second half     $(seconds "$s" "$(now)") s (partitions $half-$last)" ) &
wait "$first" $!
split_s=$(seconds "$start" "$(now)")
echo "both, wall      $split_s s, against $topics_s s for one process doing all ($(ratio "$topics_s" "$split_s")×)"
for file in events eta dead-letters trip-summaries; do
    cat "$work/a/$file.ndjson" "$work/b/$file.ndjson" | cmp -s - "$work/topics/$file.ndjson" || echo "split differs: $file"
done
"$tripstream" archive --quiet --brokers "$brokers" --out "$work/archive" --until-end 2>/dev/null
start=$(now)
"$tripstream" replay --quiet --archive "$work/archive" --since 1d --threads 1 --out "$work/from-archive"
echo "from archive    $(seconds "$start" "$(now)") s"
cmp -s "$work/from-archive/events.ndjson" "$work/topics/events.ndjson" && echo "archive         identical events" \
    || echo "archive         events differ"
echo "== 4. replay from the topics on the default threads ($(nproc) cores) against one thread (1.)"
start=$(now)
"$tripstream" replay --quiet --brokers "$brokers" --since 1d --out "$work/threads"
threads_s=$(seconds "$start" "$(now)")
identical=yes
for file in events eta dead-letters trip-summaries; do
    cmp -s "$work/threads/$file.ndjson" "$work/topics/$file.ndjson" || identical=no
done
echo "default threads $threads_s s, against $topics_s s on one thread ($(ratio "$topics_s" "$threads_s")× faster)"
echo "identical       $identical (events, eta, dead-letters, trip-summaries: cmp)"
echo "machine         $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
