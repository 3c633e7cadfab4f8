#!/usr/bin/env python3
"""Would a dispatcher act on it? Every event type of `tripstream replay` over real Porto taxi rides.

Standard library only. Usage:

    python3 bench/alert-precision.py [--data DIR] [--tripstream PATH] [--work DIR] [--check]
                                     [--set NAME=VALUE ...]

The setup of issue 39, as a new user would make it: each ride of
DIR/porto-taxi-train-sample.ndjson (DIR defaults to <repo>/../shared/data/real-trajectories) is a
user with a trip to a 100 m circle around its drop-off (its last fix), and the drop-offs share one
tag ("dropoff"), as a chain's stores or a depot's docks do. Nobody completes a trip: the device goes
quiet once the passenger is out, as on real rides. The 63 official taxi stands are geofences too
(tag "stand", 50 m, dwell after 5 minutes), for entries, exits and dwells. Each trip has a scheduled
arrival: every other ride (by tripId) is scheduled 5 minutes after its real arrival (on time: a
delay alert is false), the others 5 minutes before it (late: a delay alert is true).

Prints, per event type, the count per ride and what the rides' truth says of it:
  - wrong-destination arrivals per ride, and how many were at a real stop (>= 60 s within 30 m);
  - signal lost before and after the trip's arrival (before: true when the ride has no fix in the gap);
  - approaching and arrival counts per trip leg (each at most once), arrivals within 30 s;
  - entries, exits and dwells per ride;
  - moving-away (true when the ride ended farther from the drop-off than 5 minutes before the
    event... see `moving_away_truth`) and delay (precision and recall against the schedule).

Binary: --tripstream PATH, else <repo>/.build/release/tripstream, else .build-bench's (built if
missing), as bench/real-trajectories.py finds it.
--check exits 1 unless: at most 0.1 wrong-destination arrivals per ride, no signal lost after
arrival, arrivals within 30 s for at least 99 % of the rides that reach their drop-off, approaching
and arrival at most once per trip leg, at most 0.1 moving-away alerts per ride, and delay alerts at
least 80 % precise. Exit 2 on a setup or replay failure.
"""
import argparse
import collections
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
_spec = importlib.util.spec_from_file_location("rt", os.path.join(HERE, "real-trajectories.py"))
rt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt)

RADIUS_M = 100
STAND_RADIUS_M = 50
STAND_DWELL_MIN = 5
SCHEDULE_SLACK_S = 300
REAL_STOP_S = 60
REAL_STOP_M = 30
MOVING_AWAY_MARGIN_M = 200

TYPE = "user.%s".__mod__
WRONG, SIGNAL_LOST, APPROACHING, ARRIVED = (TYPE(t) for t in (
    "arrived_at_wrong_trip_destination", "trip_signal_lost", "approaching_trip_destination",
    "arrived_at_trip_destination"))
MOVING_AWAY, DELAYED = TYPE("moving_away_from_trip_destination"), TYPE("delayed_during_trip")
ENTERED, EXITED, DWELLED = TYPE("entered_geofence"), TYPE("exited_geofence"), TYPE("dwelled_in_geofence")


def on_time(trip_id):
    """Half the rides are scheduled with slack (on time), half behind their real arrival (late)."""
    return zlib.crc32(trip_id.encode()) % 2 == 0


def write_inputs(work, data):
    """The replay's inputs; returns (paths, rides): rides = {tripId: (fixes, arrival index or None)}."""
    lines, trips = rt.load_fixes(os.path.join(data, "porto-taxi-train-sample.ndjson"))
    rides = {}
    for tid, f in trips.items():
        last = f[-1]
        rides[tid] = (f, rt.arrival_index(f, (last[1], last[2]), RADIUS_M))
    geofences = os.path.join(work, "geofences.ndjson")
    with open(geofences, "w", encoding="utf-8") as out:
        for tid, (f, _) in rides.items():
            out.write(json.dumps({"tag": "dropoff", "externalId": tid, "type": "circle",
                                  "coordinates": [f[-1][2], f[-1][1]], "radius": RADIUS_M}, separators=(",", ":")) + "\n")
        with open(os.path.join(data, "porto-taxi-stands.json"), encoding="utf-8") as fh:
            for stand in json.load(fh):
                out.write(json.dumps({"tag": "stand", "externalId": stand["standId"], "description": stand["name"],
                                      "type": "circle", "coordinates": [stand["longitude"], stand["latitude"]],
                                      "radius": STAND_RADIUS_M, "dwellThreshold": STAND_DWELL_MIN},
                                     separators=(",", ":")) + "\n")
    starts = []
    for tid, (f, arrival) in rides.items():
        arrives_at = f[arrival][0] if arrival is not None else f[-1][0]
        scheduled = arrives_at + (SCHEDULE_SLACK_S if on_time(tid) else -SCHEDULE_SLACK_S)
        starts.append((f[0][0], {"type": "start", "userId": tid, "createdAt": f[0][4],
                                 "trip": {"externalId": tid, "destinationGeofenceTag": "dropoff",
                                          "destinationGeofenceExternalId": tid, "mode": "car",
                                          "approachingThreshold": 2, "scheduledArrivalAt": rt.fmt_ts(scheduled)}}))
    starts.sort(key=lambda x: x[0])
    commands = os.path.join(work, "commands.ndjson")
    with open(commands, "w", encoding="utf-8") as out:
        for _, o in starts:
            out.write(json.dumps(o, separators=(",", ":")) + "\n")
    fixes = os.path.join(work, "fixes.ndjson")
    with open(fixes, "w", encoding="utf-8") as out:
        for t, _, raw, o in sorted(lines, key=lambda x: x[0]):
            o = dict(o)
            o["userId"] = o["tripId"]  # each ride is a user
            out.write(json.dumps(o, separators=(",", ":")) + "\n")
    return (geofences, commands, fixes), rides


def real_stop_near(f, at_time, lat, lon):
    """Whether the ride stood still (>= REAL_STOP_S within REAL_STOP_M of one point) around `at_time`,
    inside the circle at (lat, lon): the truth a wrong-destination stop is judged by."""
    inside = [x for x in f if rt.hav(x[1], x[2], lat, lon) <= RADIUS_M and abs(x[0] - at_time) <= 600]
    for i, a in enumerate(inside):
        for b in inside[i + 1:]:
            if b[0] - a[0] >= REAL_STOP_S and all(rt.hav(a[1], a[2], x[1], x[2]) <= REAL_STOP_M
                                                  for x in inside if a[0] <= x[0] <= b[0]):
                return True
    return False


def moving_away_truth(f, at_time, dest):
    """True when the ride really was moving away: at the event it is farther from the drop-off than
    at its closest in the 5 minutes before, by more than MOVING_AWAY_MARGIN_M."""
    now = [x for x in f if x[0] <= at_time]
    if not now:
        return False
    before = [rt.hav(x[1], x[2], dest[0], dest[1]) for x in now if x[0] >= at_time - 300]
    return rt.hav(now[-1][1], now[-1][2], dest[0], dest[1]) > min(before) + MOVING_AWAY_MARGIN_M


def audit(events, rides):
    n = len(rides)
    by_type = collections.Counter(e["type"] for e in events)
    per_trip = collections.defaultdict(lambda: collections.defaultdict(list))
    for e in events:
        tid = (e.get("trip") or {}).get("externalId") or e.get("user", {}).get("userId")
        per_trip[tid][e["type"]].append(e)
    r = {"rides": n, "by_type": by_type}
    wrong = [e for e in events if e["type"] == WRONG]
    r["wrong_per_ride"] = len(wrong) / n
    # A drop-off circle's center is its ride's last fix.
    r["wrong_at_real_stop"] = sum(
        real_stop_near(rides[e["user"]["userId"]][0], rt.parse_ts(e["createdAt"]),
                       *rides[e["geofence"]["externalId"]][0][-1][1:3]) for e in wrong)
    lost_before = lost_after = lost_true = 0
    arrivals_ok = arrivals_due = 0
    late_arrivals = []
    most_approaching = most_arrivals = 0
    delay = collections.Counter()
    moving_true = 0
    for tid, (f, arrival) in rides.items():
        mine = per_trip.get(tid, {})
        arrived = mine.get(ARRIVED, [])
        arrived_at = min((rt.parse_ts(e["createdAt"]) for e in arrived), default=None)
        for e in mine.get(SIGNAL_LOST, []):
            at = rt.parse_ts(e["createdAt"])
            if arrived_at is not None and at >= arrived_at:
                lost_after += 1
            else:
                lost_before += 1
                # True when the ride really has no fix in the `duration` before the event.
                lost_true += not any(at - e.get("duration", 10) * 60 <= x[0] < at for x in f)
        most_approaching = max(most_approaching, len(mine.get(APPROACHING, [])))
        most_arrivals = max(most_arrivals, len(arrived))
        if arrival is not None and tid not in rt.BAD_ENDPOINTS:
            arrivals_due += 1
            if arrived_at is not None and abs(arrived_at - f[arrival][0]) <= rt.LATENCY_MAX_S:
                arrivals_ok += 1
            else:
                late_arrivals.append(tid)
        alerted = bool(mine.get(DELAYED))
        delay[("on time" if on_time(tid) else "late", alerted)] += 1
        dest = (f[-1][1], f[-1][2])
        moving_true += sum(moving_away_truth(f, rt.parse_ts(e["createdAt"]), dest) for e in mine.get(MOVING_AWAY, []))
    r.update(lost_before=lost_before, lost_after=lost_after, lost_true=lost_true, arrivals_ok=arrivals_ok, arrivals_due=arrivals_due,
             late_arrivals=late_arrivals, most_approaching=most_approaching, most_arrivals=most_arrivals,
             moving_away=by_type[MOVING_AWAY], moving_true=moving_true, delay=delay)
    return r


def report(r):
    n = r["rides"]
    print("%d real rides, each a user with a trip to a %d m drop-off circle of one shared tag; never completed"
          % (n, RADIUS_M))
    print()
    print("%-44s %8s %9s" % ("event type", "events", "per ride"))
    for t, c in sorted(r["by_type"].items()):
        print("%-44s %8d %9.2f" % (t, c, c / n))
    print()
    print("wrong-destination arrivals      %.3f per ride (%d at a real stop of %d s within %d m)"
          % (r["wrong_per_ride"], r["wrong_at_real_stop"], REAL_STOP_S, REAL_STOP_M))
    print("signal lost                     %d before arrival (%d with no fix in the gap it reports), %d after arrival"
          % (r["lost_before"], r["lost_true"], r["lost_after"]))
    print("arrivals within %d s             %d of %d rides that reach their drop-off (%.1f %%)"
          % (rt.LATENCY_MAX_S, r["arrivals_ok"], r["arrivals_due"], rt.pct(r["arrivals_ok"], r["arrivals_due"])))
    print("per trip leg                    at most %d approaching, at most %d arrival"
          % (r["most_approaching"], r["most_arrivals"]))
    print("entries / exits / dwells        %.2f / %.2f / %.2f per ride"
          % tuple(r["by_type"][t] / n for t in (ENTERED, EXITED, DWELLED)))
    print("moving away                     %d (%.3f per ride), %d moving away by the ride's own track"
          % (r["moving_away"], r["moving_away"] / n, r["moving_true"]))
    d = r["delay"]
    alerts = d[("on time", True)] + d[("late", True)]
    print("delay                           %d alerts: %d on late rides, %d on rides on time; %d of %d late rides "
          "alerted (precision %.1f %%, recall %.1f %%)"
          % (alerts, d[("late", True)], d[("on time", True)], d[("late", True)], d[("late", True)] + d[("late", False)],
             rt.pct(d[("late", True)], alerts), rt.pct(d[("late", True)], d[("late", True)] + d[("late", False)])))


def check(r):
    d = r["delay"]
    alerts = d[("on time", True)] + d[("late", True)]
    failures = []
    if r["wrong_per_ride"] > 0.1:
        failures.append("%.3f wrong-destination arrivals per ride (at most 0.1)" % r["wrong_per_ride"])
    if r["lost_after"]:
        failures.append("%d signal-lost events after arrival (0)" % r["lost_after"])
    if r["arrivals_ok"] < 0.99 * r["arrivals_due"]:
        failures.append("arrivals within 30 s: %d of %d (at least 99 %%; late or missing: %s)"
                        % (r["arrivals_ok"], r["arrivals_due"], ", ".join(r["late_arrivals"][:5])))
    if r["most_approaching"] > 1 or r["most_arrivals"] > 1:
        failures.append("a trip leg approached %d times or arrived %d times (at most once each)"
                        % (r["most_approaching"], r["most_arrivals"]))
    if r["moving_away"] > 0.1 * r["rides"]:
        failures.append("%d moving-away alerts (at most 0.1 per ride)" % r["moving_away"])
    if alerts and d[("late", True)] < 0.8 * alerts:
        failures.append("delay alerts %.1f %% precise (at least 80 %%)" % rt.pct(d[("late", True)], alerts))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data", "real-trajectories"))
    ap.add_argument("--tripstream", help="the tripstream binary (default: a release build, built if missing)")
    ap.add_argument("--work", help="keep the inputs and outputs here (default: a temporary directory)")
    ap.add_argument("--check", action="store_true", help="exit 1 unless the thresholds above hold")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="passed to replay as --set (what-if: e.g. wrong-destination=entry)")
    a = ap.parse_args()
    if not os.path.isdir(a.data):
        rt.fail("no data directory %s" % a.data)
    binary = rt.find_or_build(REPO, a.tripstream, False, 0, 0)
    with tempfile.TemporaryDirectory() as scratch:
        work = a.work or scratch
        os.makedirs(work, exist_ok=True)
        (geofences, commands, fixes), rides = write_inputs(work, a.data)
        out = os.path.join(work, "out")
        cmd = [binary, "replay", "--quiet", "--geofences", geofences, "--commands", commands, "--fixes", fixes,
               "--out", out] + [x for s in a.set for x in ("--set", s)]
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            rt.fail("replay failed (exit %d): %s" % (run.returncode, run.stderr.strip()[-2000:]))
        events, _ = rt.read_events(os.path.join(out, "events.ndjson"))
    result = audit(events, rides)
    report(result)
    if a.check:
        failures = check(result)
        for failure in failures:
            print("FAIL: " + failure, file=sys.stderr)
        if failures:
            sys.exit(1)


if __name__ == "__main__":
    main()
