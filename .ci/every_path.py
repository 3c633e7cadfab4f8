"""One dataset, every path, one answer: the events of the service (as a read_committed consumer saw
them) and of every replay of the same inputs, upserted by _id, equal the fold of those inputs in
event-time order.

  python3 .ci/every_path.py --tripstream BIN --inputs DIR --partitions N --work DIR \
      --path NAME=EVENTS.ndjson [--path NAME=EVENTS.ndjson ...]

The reference is built here: each partition's fixes (records assigned as the CI's kcat assigns them,
CRC32 of the key) stably sorted by createdAt, folded by `tripstream replay --partitions 1` with that
partition's commands. Every --path must hold the same events, ignoring how each was delivered
(`actualCreatedAt`, `live`, `late`, `replayed`, `corrected`, `retracted`).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_events import replay_partitions, upsert  # noqa: E402


def read_events(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tripstream", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--partitions", type=int, required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--path", action="append", required=True, help="NAME=EVENTS.ndjson")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    reference = upsert(replay_partitions(args.tripstream, args.inputs, args.partitions, args.work,
                                          prefix="event-time-p", event_time=True))
    if not reference:
        print("FAIL: the event-time fold yielded no event", file=sys.stderr)
        return 1
    types = {}
    for content in reference.values():
        kind = json.loads(content)["type"]
        types[kind] = types.get(kind, 0) + 1
    print(f"event-time fold: {len(reference)} events: " + ", ".join(f"{k} {v}" for k, v in sorted(types.items())),
          file=sys.stderr)
    failed = False
    for spec in args.path:
        name, path = spec.split("=", 1)
        actual = upsert(read_events(path))
        missing = [k for k in reference if k not in actual]
        extra = [k for k in actual if k not in reference]
        different = [k for k in reference if k in actual and actual[k] != reference[k]]
        print(f"{name}: {len(actual)} events; missing {len(missing)}, extra {len(extra)}, differing {len(different)}",
              file=sys.stderr)
        for label, keys, source in (("missing", missing, reference), ("extra", extra, actual)):
            if keys:
                print(f"  {label}, e.g. {source[keys[0]]}", file=sys.stderr)
        if different:
            print(f"  differing, e.g.\n    event-time {reference[different[0]]}\n    {name} {actual[different[0]]}",
                  file=sys.stderr)
        failed = failed or bool(missing or extra or different)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
