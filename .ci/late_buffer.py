"""A late offline buffer for the cross-process Kafka check: a few extra users whose whole visit to
their trip destination (entry, dwell, exit) is only in a buffer published long after it happened.

  generate --inputs DIR --manifest FILE
      Appends to DIR (the simulated geofences/commands/fixes NDJSON) per late user: a circle
      geofence (150 m, dwellThreshold 5 min), a trip `start` to it, and fixes every 15 s: a drive
      toward it, a 24-minute offline buffer (enter, stay 12 min, leave; `"replayed": true`) and
      live fixes after it. The live fixes are merged into fixes.ndjson by event time; the buffer
      goes at the end of the file, so it is published (and replayed) after every live fix, at
      least 40 of them newer than it. Prints the number of buffered fixes (the file's last lines).
  check --manifest FILE --partitions N --replay DIR --locations FILE --dead-letters FILE
      After compare_events.py: the service's upserted events (DIR/seen.ndjson) and the replay's
      (DIR/p*/out/events.ndjson) each hold, per late user, an entry, a dwell, an exit and an
      arrival at its geofence inside the offline window; no dead letter of a late user in the
      replay (DIR/p*/out/dead-letters.ndjson) or on the topic (FILE, one value per line, read
      read_committed); and the locations topic (FILE, `partition<TAB>offset<TAB>value` lines) holds
      each partition's fixes in the order of DIR/p*/fixes.ndjson, each buffer after >= 40 newer
      live fixes of its user. And the process that got the buffers (the last section of
      --run-log, its metrics in --metrics) folded no fix but them, every live fix having been
      folded and committed by earlier, killed processes: it restored the late users' partitions
      from the state changelog (no snapshot), with users in them, dead-lettered nothing and rewound.
"""
import argparse
import datetime as dt
import json
import math
import os
import random
import re
import sys
import zlib

USERS = 3
STEP = dt.timedelta(seconds=15)
BEFORE, BUFFERED, LIVE = 20, 96, 48  # fixes: driving toward the geofence, offline buffer, live after it
MIN_NEWER_LIVE = 40
RADIUS, DWELL_MINUTES = 150.0, 5
# Where the late users drive: south of the simulated city (its geofences are north of 41.12),
# 3.3 km apart in latitude, each along its own parallel, so no one crosses another's geofence.
BASE_LAT, BASE_LNG, LAT_STEP = 41.08, -8.56, -0.03
EXPECTED = ("user.entered_geofence", "user.dwelled_in_geofence", "user.exited_geofence",
            "user.arrived_at_trip_destination")


def parse_time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def compact(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"))


def read_ndjson(path: str):
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def partition_of(key: str, count: int) -> int:
    return zlib.crc32(key.encode()) % count


def generate(args) -> int:
    fixes_path = os.path.join(args.inputs, "fixes.ndjson")
    sim_lines = read_ndjson(fixes_path)
    sim_users = {json.loads(line)["userId"] for line in sim_lines}
    times = [parse_time(json.loads(line)["createdAt"]) for line in sim_lines]
    first, last = min(times), max(times)
    span = STEP * (BEFORE + BUFFERED + LIVE - 1)
    starts = [first + dt.timedelta(minutes=2 + k) for k in range(USERS)]
    if starts[-1] + span > last:
        sys.exit(f"late_buffer: the simulation spans {first}..{last}, too short for {span} of late fixes from "
                 f"{starts[-1]}; raise simulate --duration")

    rng = random.Random(7)
    geofences, commands, live, buffered, manifest = [], [], [], [], {"users": []}
    for k in range(USERS):
        user = f"late-{k + 1}"
        assert user not in sim_users, f"{user} collides with a simulated user"
        center_lat, center_lng = BASE_LAT + k * LAT_STEP, BASE_LNG
        meters_per_lng = 111_320 * math.cos(math.radians(center_lat))

        def fix(t, x, speed, replayed=False):
            # x: meters east of the geofence's center along its parallel, with a few meters of noise.
            record = {"userId": user, "createdAt": format_time(t),
                      "latitude": round(center_lat + rng.uniform(-6, 6) / 111_320, 7),
                      "longitude": round(center_lng + (x + rng.uniform(-6, 6)) / meters_per_lng, 7),
                      "accuracy": rng.randint(6, 14), "speed": speed, "deviceId": f"{user}-device"}
            if replayed:
                record["replayed"] = True
            return compact(record)

        geofence = {"tag": "late", "externalId": user, "description": f"Late buffer destination of {user}",
                    "type": "circle", "coordinates": [center_lng, round(center_lat, 7)], "radius": RADIUS,
                    "metadata": {"check": "late-buffer"}, "enabled": True, "dwellThreshold": DWELL_MINUTES}
        geofences.append(compact(geofence))
        start = starts[k]
        commands.append(compact({
            "type": "start", "userId": user, "createdAt": format_time(start - dt.timedelta(seconds=30)),
            "trip": {"externalId": f"{user}-trip-0", "destinationGeofenceTag": "late",
                     "destinationGeofenceExternalId": user, "mode": "car", "approachingThreshold": 3,
                     "scheduledArrivalAt": format_time(start + dt.timedelta(minutes=15)),
                     "metadata": {"orderId": f"{user}-0"}}}))
        t = start
        # Online: 20 fixes at 10 m/s toward the geofence, the last one 600 m before its center.
        for i in range(BEFORE):
            live.append((t, fix(t, -600 - 150 * (BEFORE - 1 - i), 10.0)))
            t += STEP
        offline_from = t
        # Offline (buffered): 8 fixes at 5 m/s to the center (inside from the 6th, 75 m deep),
        # 48 fixes (12 min) parked there, then 40 fixes at 10 m/s away (outside from the 2nd).
        for j in range(BUFFERED):
            if j < 8:
                x, speed = -600 + 75 * (j + 1), 5.0
            elif j < 56:
                x, speed = 0, 0.0
            else:
                x, speed = 150 * (j - 55), 10.0
            buffered.append(fix(t, x, speed, replayed=True))
            t += STEP
        offline_to = t - STEP
        # Online again: 48 live fixes (12 min), driving on at 10 m/s.
        for i in range(LIVE):
            live.append((t, fix(t, 150 * (BUFFERED - 55 + 1 + i), 10.0)))
            t += STEP
        manifest["users"].append({"userId": user, "geofence": {"tag": "late", "externalId": user},
                                  "offlineFrom": format_time(offline_from), "offlineTo": format_time(offline_to),
                                  "buffered": BUFFERED})

    # Live fixes at their place in the simulated arrival order (its running maximum of createdAt;
    # the simulator's own late replays keep their place), the buffer after everything.
    live.sort(key=lambda item: item[0])
    out, newest, i = [], None, 0
    for line in sim_lines:
        t = parse_time(json.loads(line)["createdAt"])
        newest = t if newest is None else max(newest, t)
        while i < len(live) and live[i][0] <= newest:
            out.append(live[i][1])
            i += 1
        out.append(line)
    out += [line for _, line in live[i:]]
    out += buffered
    with open(fixes_path, "w") as f:
        f.writelines(line + "\n" for line in out)
    for name, lines in (("geofences", geofences), ("commands", commands)):
        with open(os.path.join(args.inputs, f"{name}.ndjson"), "a") as f:
            f.writelines(line + "\n" for line in lines)
    manifest["buffered"] = len(buffered)
    with open(args.manifest, "w") as f:
        json.dump(manifest, f, indent=1)
    print(len(buffered))
    return 0


def upserted(events):
    latest = {}
    for event in events:
        latest[event["_id"]] = event
    return [e for e in latest.values() if not e.get("retracted")]


def check(args) -> int:
    with open(args.manifest) as f:
        manifest = json.load(f)
    users = {u["userId"]: u for u in manifest["users"]}
    failures = []

    # 1. The topic holds each partition's fixes in the order the replay read them, and each
    #    buffer after at least 40 live fixes of its user newer than the whole buffer.
    topic = {}
    with open(args.locations) as f:
        for line in f:
            if line.strip():
                p, offset, value = line.rstrip("\n").split("\t", 2)
                topic.setdefault(int(p), []).append((int(offset), value))
    for p in range(args.partitions):
        published = [value for _, value in sorted(topic.get(p, []))]
        replayed = read_ndjson(os.path.join(args.replay, f"p{p}", "fixes.ndjson"))
        if published != replayed:
            diverge = next((i for i, (a, b) in enumerate(zip(published, replayed)) if a != b),
                           min(len(published), len(replayed)))
            failures.append(f"partition {p}: the locations topic ({len(published)} fixes) differs from the replay's "
                            f"input ({len(replayed)} fixes) from record {diverge} on")
        newer_live = {}
        for value in published:
            fix = json.loads(value)
            user = users.get(fix["userId"])
            if user is None:
                continue
            if fix.get("replayed"):
                count = newer_live.get(fix["userId"], 0)
                if count < MIN_NEWER_LIVE:
                    failures.append(f"{fix['userId']}: buffered fix {fix['createdAt']} published after only "
                                    f"{count} live fixes newer than the buffer")
                    newer_live[fix["userId"]] = MIN_NEWER_LIVE  # report once per user
            elif fix["createdAt"] > user["offlineTo"]:
                newer_live[fix["userId"]] = newer_live.get(fix["userId"], 0) + 1
    buffered_in_topic = sum(1 for values in topic.values() for _, v in values
                            if json.loads(v)["userId"] in users and json.loads(v).get("replayed"))
    if buffered_in_topic != manifest["buffered"]:
        failures.append(f"{buffered_in_topic} buffered fixes on the locations topic, {manifest['buffered']} generated")

    # 2. No input of a late user dead-lettered, neither by the service nor by the replay.
    def late_dead_letters(letters, source):
        by_reason = {}
        for letter in letters:
            key = letter.get("key")
            if key is None:
                key = json.loads(letter.get("value", "{}")).get("userId")
            if key in users:
                by_reason.setdefault(letter["reason"], []).append(letter)
        for reason, found in sorted(by_reason.items()):
            failures.append(f"{source}: {len(found)} dead letters '{reason}' of late users, e.g. {compact(found[0])}")
    with open(args.dead_letters) as f:
        late_dead_letters([json.loads(line) for line in f if line.strip()], "tripstream.dead-letters topic")
    replay_letters = []
    for p in range(args.partitions):
        with open(os.path.join(args.replay, f"p{p}", "out", "dead-letters.ndjson")) as f:
            replay_letters += [json.loads(line) for line in f if line.strip()]
    late_dead_letters(replay_letters, "replay dead-letters.ndjson")

    # 2b. Across processes: the last process restored what earlier ones folded, and was handed
    #     nothing but the buffers.
    metrics = {}
    with open(args.metrics) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                metrics[name] = float(value)
    consumed = metrics.get('tripstream_records_consumed_total{topic="tripstream.locations"}', -1)
    if consumed != manifest["buffered"]:
        failures.append(f"the process that got the buffers folded {consumed:.0f} fixes, not just the "
                        f"{manifest['buffered']} buffered ones")
    letters = {name: v for name, v in metrics.items() if name.startswith("tripstream_dead_letters_total") and v}
    if letters:
        failures.append(f"the process that got the buffers dead-lettered: {letters}")
    rewinds = metrics.get("tripstream_rewinds_total", 0)
    if rewinds < 1:
        failures.append("the process that got the buffers rewound nothing (tripstream_rewinds_total 0)")
    # Services that count them: every buffered fix placed by a refold, no history segment skipped.
    late_inputs = metrics.get("tripstream_late_inputs_total")
    if late_inputs is not None and late_inputs != manifest["buffered"]:
        failures.append(f"the process that got the buffers placed {late_inputs:.0f} late inputs by refolds, "
                        f"not the {manifest['buffered']} buffered fixes")
    if metrics.get("tripstream_corrupt_history_segments_total", 0):
        failures.append(f"the process that got the buffers skipped "
                        f"{metrics['tripstream_corrupt_history_segments_total']:.0f} unreadable history segments")
    with open(args.run_log) as f:
        last = f.read().rsplit("== tripstream run #", 1)[-1]
    restored, snapshots = {}, set()
    for m in re.finditer(r"restored partition (\d+): (\d+) users, (\d+) changelog records \((\d+) history segments\)"
                         r"[^\n]*?( \(from a snapshot\))?$", last, re.M):
        restored[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
        if m.group(5):
            snapshots.add(int(m.group(1)))
    for p in sorted({partition_of(user, args.partitions) for user in users}):
        users_restored, records_restored, _ = restored.get(p, (0, 0, 0))
        if p in snapshots:
            failures.append(f"the process that got the buffers restored partition {p} from a local snapshot, "
                            f"not from the changelog alone")
        if users_restored == 0 or records_restored == 0:
            failures.append(f"the process that got the buffers restored {users_restored} users from {records_restored} "
                            f"changelog records in partition {p} (of "
                            f"{', '.join(u for u in users if partition_of(u, args.partitions) == p)})")
    restore_summary = ", ".join(f"p{p} {u} users/{r} changelog records/{g} segments"
                                for p, (u, r, g) in sorted(restored.items()))

    # 3. Entry, dwell, exit and arrival at the late user's geofence, placed inside the offline window.
    def placed(events, source):
        for user, spec in users.items():
            present = {}
            for event in events:
                if event["user"]["userId"] != user or event["type"] not in EXPECTED:
                    continue
                if event["type"] == "user.arrived_at_trip_destination":
                    trip = event.get("trip", {})
                    target = (trip.get("destinationGeofenceTag"), trip.get("destinationGeofenceExternalId"))
                else:
                    geofence = event.get("geofence", {})
                    target = (geofence.get("tag"), geofence.get("externalId"))
                if target != (spec["geofence"]["tag"], spec["geofence"]["externalId"]):
                    continue
                if spec["offlineFrom"] <= event["createdAt"] <= spec["offlineTo"]:
                    present.setdefault(event["type"], []).append(event["createdAt"])
                else:
                    failures.append(f"{source}: {user} {event['type']} at {event['createdAt']}, outside the offline "
                                    f"window {spec['offlineFrom']}..{spec['offlineTo']}")
            missing = [t for t in EXPECTED if t not in present]
            if missing:
                failures.append(f"{source}: {user} lacks {', '.join(missing)} in its offline window "
                                f"{spec['offlineFrom']}..{spec['offlineTo']} (has {sorted(present.items())})")
            else:
                order = [min(present[t]) for t in EXPECTED[:3]]
                if not order[0] < order[1] < order[2]:
                    failures.append(f"{source}: {user} entry/dwell/exit out of order: {order}")
    with open(os.path.join(args.replay, "seen.ndjson")) as f:
        placed(upserted(json.loads(line) for line in f if line.strip()), "service (upserted events)")
    replay_events = []
    for p in range(args.partitions):
        with open(os.path.join(args.replay, f"p{p}", "out", "events.ndjson")) as f:
            replay_events += [json.loads(line) for line in f if line.strip()]
    placed(upserted(replay_events), "replay")

    for failure in failures:
        print("FAIL: late buffer: " + failure, file=sys.stderr)
    if failures:
        return 1
    print(f"late buffers: {len(users)} users, {manifest['buffered']} buffered fixes placed after >= {MIN_NEWER_LIVE} "
          f"newer live fixes each, by a restarted process that folded only them ({rewinds:.0f} rewinds"
          f"{'' if late_inputs is None else f', {late_inputs:.0f} late inputs'}; restored "
          f"{restore_summary}), no dead letters, entries/dwells/exits/arrivals present", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--inputs", required=True)
    g.add_argument("--manifest", required=True)
    c = sub.add_parser("check")
    c.add_argument("--manifest", required=True)
    c.add_argument("--partitions", type=int, required=True)
    c.add_argument("--replay", required=True)
    c.add_argument("--locations", required=True)
    c.add_argument("--dead-letters", required=True)
    c.add_argument("--run-log", required=True)
    c.add_argument("--metrics", required=True)
    args = ap.parse_args()
    return generate(args) if args.command == "generate" else check(args)


if __name__ == "__main__":
    sys.exit(main())
