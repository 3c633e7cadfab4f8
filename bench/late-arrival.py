#!/usr/bin/env python3
"""Two arrival orders of the same fixes, for checking that a replay's events do not depend on
the order fixes arrive in (DESIGN, "Ordering: offline replay").

    python3 bench/late-arrival.py FIXES OUT_DIR [--seed S] [--offline-share P] [--max-delay SECONDS]

writes OUT_DIR/in-order.ndjson (every fix in event-time order, duplicates dropped) and
OUT_DIR/late.ndjson (the same fixes as a fleet delivers them: for each user, runs of 3-40
consecutive fixes held back by an offline device for 30 s to --max-delay and marked
"replayed": true, as devices mark their offline buffers, and 1% of the fixes delivered twice).
Replaying both and comparing with `tripstream diff` must show no difference.
Standard library only.
"""
import argparse
import datetime
import json
import os
import random


def event_time(fix):
    return datetime.datetime.fromisoformat(fix["createdAt"].replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fixes")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--offline-share", type=float, default=0.05,
                        help="chance that an offline run starts at a fix (default 0.05)")
    parser.add_argument("--max-delay", type=float, default=3600, help="seconds (default 3600)")
    args = parser.parse_args()
    random.seed(args.seed)

    fixes, seen = [], set()
    with open(args.fixes, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if not line or line in seen:
                continue
            seen.add(line)
            fix = json.loads(line)
            fix.pop("replayed", None)
            fixes.append(fix)
    fixes.sort(key=lambda fix: (event_time(fix), fix["userId"]))

    arrival = [event_time(fix) for fix in fixes]
    offline = set()
    by_user = {}
    for index, fix in enumerate(fixes):
        by_user.setdefault(fix["userId"], []).append(index)
    for indices in by_user.values():
        position = 0
        while position < len(indices):
            if random.random() < args.offline_share:
                run = indices[position:position + random.randint(3, 40)]
                delay = random.uniform(30, args.max_delay)
                for index in run:
                    arrival[index] += delay
                    offline.add(index)
                position += len(run)
            else:
                position += 1

    os.makedirs(args.out, exist_ok=True)

    def encoded(fix, replayed=False):
        if replayed:
            fix = dict(fix, replayed=True)
        return json.dumps(fix, separators=(",", ":")) + "\n"

    with open(os.path.join(args.out, "in-order.ndjson"), "w", encoding="utf-8") as file:
        file.writelines(encoded(fix) for fix in fixes)
    moved = 0
    with open(os.path.join(args.out, "late.ndjson"), "w", encoding="utf-8") as file:
        order = sorted(range(len(fixes)), key=lambda index: (arrival[index], index))
        for position, index in enumerate(order):
            line = encoded(fixes[index], replayed=index in offline)
            file.write(line)
            if random.random() < 0.01:
                file.write(line)
            moved += position != index
    print(f"{len(fixes)} fixes, {len(offline)} delivered late by an offline device, {moved} out of event-time order")


if __name__ == "__main__":
    main()
