"""Checks what a read_committed consumer saw against `tripstream replay` over the same inputs.

The service folds each input partition on its own (stream time, and so dwell timers, is per
partition), so the expected events come from replaying each partition's records separately, in
file order (with --event-time: stably sorted by createdAt, the event-time fold of every_path.py);
records are assigned to partitions as librdkafka's default partitioner does (CRC32 of the key).
Upserting by _id and dropping retracted events, the two must be equal, apart from how an event
was delivered (`replayed`, `late`, which depend on processing time and on refolds) and
`actualCreatedAt`; every _id the service published more than once as an original must be an
identical re-publication; and every event must validate against schemas/ (unless --no-schema).
"""
import argparse
import json
import os
import subprocess
import sys
import zlib


def partition_of(key: str, count: int) -> int:
    return zlib.crc32(key.encode()) % count


def comparable(event: dict) -> str:
    event = dict(event)
    for field in ("actualCreatedAt", "replayed", "late", "corrected", "retracted"):
        event.pop(field, None)
    return json.dumps(event, sort_keys=True)


def upsert(events):
    latest = {}
    for event in events:
        latest[event["_id"]] = event
    return {k: comparable(v) for k, v in latest.items() if not v.get("retracted")}


def replay_partitions(tripstream, inputs, partitions, work, prefix="p", event_time=False):
    """Each partition's records (assigned by CRC32 of the userId, as the CI's kcat assigns them) folded by
    `tripstream replay --partitions 1` (one Kafka partition, one stream time) into WORK/PREFIX<p>/out,
    in file order or, with event_time, stably sorted by createdAt. Returns every partition's events."""
    events = []
    for p in range(partitions):
        part = os.path.join(work, f"{prefix}{p}")
        os.makedirs(part, exist_ok=True)
        for name in ("commands", "fixes"):
            with open(os.path.join(inputs, f"{name}.ndjson")) as src:
                lines = [line for line in src if line.strip() and partition_of(json.loads(line)["userId"], partitions) == p]
            if event_time:
                lines.sort(key=lambda line: json.loads(line)["createdAt"])  # stable: equal times keep their order
            with open(os.path.join(part, f"{name}.ndjson"), "w") as dst:
                dst.writelines(lines)
        subprocess.run([tripstream, "replay", "--quiet", "--partitions", "1",
                        "--geofences", os.path.join(inputs, "geofences.ndjson"),
                        "--commands", os.path.join(part, "commands.ndjson"), "--fixes", os.path.join(part, "fixes.ndjson"),
                        "--out", os.path.join(part, "out")], check=True)
        with open(os.path.join(part, "out", "events.ndjson")) as f:
            events += [json.loads(line) for line in f if line.strip()]
    return events


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tripstream", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--events", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kills", type=int, default=0)
    ap.add_argument("--min-kills", type=int, default=3, help="fail if the service was killed fewer times")
    ap.add_argument("--event-time", action="store_true",
                    help="expect the fold of each partition's inputs in event-time order (as every_path.py), not in file order")
    ap.add_argument("--no-schema", action="store_true", help="leave out the schema validation of the events seen")
    args = ap.parse_args()

    os.makedirs(args.work, exist_ok=True)
    expected_events = replay_partitions(args.tripstream, args.inputs, args.partitions, args.work,
                                        event_time=args.event_time)

    seen = []
    with open(args.events) as f:
        for line in f:
            if line.strip():
                seen.append(json.loads(line)["value"])
    with open(os.path.join(args.work, "seen.ndjson"), "w") as f:
        for event in seen:
            f.write(json.dumps(event, separators=(",", ":")) + "\n")

    expected, actual = upsert(expected_events), upsert(seen)
    failures = []
    missing = [k for k in expected if k not in actual]
    extra = [k for k in actual if k not in expected]
    different = [k for k in expected if k in actual and actual[k] != expected[k]]
    if missing:
        failures.append(f"{len(missing)} events lost, e.g. {expected[missing[0]]}")
    if extra:
        failures.append(f"{len(extra)} unexpected events, e.g. {actual[extra[0]]}")
    if different:
        failures.append(f"{len(different)} events differ, e.g.\n  expected {expected[different[0]]}\n  actual   {actual[different[0]]}")

    # A republication without corrected/retracted must repeat an earlier publication of its _id
    # identically. Not necessarily the latest: the dev broker cannot abort, so a process killed after
    # flushing outputs leaves them visible while its state rolls back to the last checkpoint, and
    # the restarted process folds the same inputs again in the same order, repeating the same
    # sequence (an event, then its correction by a late fix) after it. On a broker that aborts, the
    # rolled-back outputs are never read.
    published, repeats, divergent = {}, 0, []
    for event in seen:
        content = comparable(event)
        earlier = published.setdefault(event["_id"], [])
        if not (event.get("corrected") or event.get("retracted")) and earlier:
            repeats += 1
            if content not in earlier:
                divergent.append(event["_id"])
                if len(divergent) <= 3:
                    print(f"repeated {event['_id']} changed:\n  latest {earlier[-1]}\n  now    {content}",
                          file=sys.stderr)
        if content not in earlier:
            earlier.append(content)
    if args.kills < args.min_kills:
        failures.append(f"the service was killed only {args.kills} times")
    if divergent:
        failures.append(f"{len(divergent)} repeated _ids changed content, e.g. {divergent[0]}")

    schema = None if args.no_schema else subprocess.run(
        [sys.executable, "schemas/validate.py", "event", os.path.join(args.work, "seen.ndjson")], capture_output=True, text=True)
    if schema and schema.returncode != 0:
        failures.append("events do not validate:\n" + schema.stdout[-2000:] + schema.stderr[-2000:])

    print(f"events seen {len(seen)}, distinct {len(actual)}, expected {len(expected)}, "
          f"identical repeats {repeats}, service killed {args.kills} times", file=sys.stderr)
    for failure in failures:
        print("FAIL: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
