#!/usr/bin/env python3
"""Replay the real Porto taxi rides through the real `tripstream replay` and score it.

Standard library only. Usage:

    python3 bench/real-trajectories.py [--data DIR] [--tripstream PATH] [--work DIR]
                                       [--radius M] [--rebuild] [--check]

Inputs (never modified): DIR/porto-taxi-train-sample.ndjson, DIR defaults to
<repo>/../shared/data/real-trajectories (resolved from this file).

Steps:
  1. Writes geofences.ndjson (one 150 m circle "dropoff"/<tripId> around each ride's LAST fix),
     commands.ndjson (start at the first fix, complete 60 s after the last fix, stable-sorted by
     createdAt) and fixes.ndjson (all fixes stable-sorted by createdAt) into --work or a temp dir.
  2. Runs `tripstream replay --geofences G --commands C --fixes F --out OUT --quiet`.
     Binary: --tripstream PATH, else <repo>/.build/release/tripstream, else
     <repo>/.build-bench/release/tripstream, built if missing with
     `swift build -c release --product tripstream --scratch-path .build-bench`.
  3. Reads OUT/events.ndjson (upsert by _id, retracted dropped) and OUT/dead-letters.ndjson.
  4. Prints arrival / ETA / mileage / counts. Scoring conventions are those of
     bench/eta_model_study.py: MARE = mean over trips of |eta - rem| / rem at the fix closest to
     25/50/75 % of the trip's duration; "ride end" = time of the ride's last fix; "arrival" = first
     fix inside the destination circle after having been outside it (the 25/50/75 % points are
     then taken on start -> arrival, as in the study); the 4 bad-endpoint rides of the data README
     are excluded from scoring.

Exit status: 0 after printing; with --check, 1 if arrival detection < 99 % of applicable trips
(within 30 s) or MARE at 50 % (vs ride end) > 35 %. 2 on a setup/replay failure.
"""
import argparse
import collections
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

EARTH_R = 6371008.8  # metres (same as convert.py and the study)
BAD_ENDPOINTS = {  # data README "Bad end points": the last fix is a GPS jump, not the drop-off
    "1372646419620000372", "1372665674620000021", "1372667799620000050", "1372638451620000621"}
QS = (0.25, 0.50, 0.75)
LATENCY_MAX_S = 30.0
TARGET_ARRIVAL = 0.99
TARGET_MARE50 = 35.0
COMPLETE_AFTER_S = 60


def hav(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(math.sqrt(min(1.0, a)))


_TS_CACHE = {}


def parse_ts(s):
    """ISO-8601 UTC timestamp -> float Unix seconds (accepts fractions and Z or +hh:mm)."""
    v = _TS_CACHE.get(s)
    if v is None:
        x = s[:-1] + "+00:00" if s.endswith("Z") else s
        v = datetime.fromisoformat(x).timestamp()
        _TS_CACHE[s] = v
    return v


def fmt_ts(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fail(msg):
    print("error: " + msg, file=sys.stderr)
    sys.exit(2)


def pct(a, b):
    return 100.0 * a / b if b else float("nan")


def quantile(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


# ----------------------------------------------------------------------------- inputs

def load_fixes(path):
    """Returns (lines, trips): lines = [(t, k, raw_line, obj)], trips = {tripId: [(t, lat, lon, userId)]}."""
    lines, trips = [], collections.OrderedDict()
    with open(path, encoding="utf-8") as fh:
        for k, raw in enumerate(fh):
            raw = raw.rstrip("\n")
            if not raw.strip():
                continue
            o = json.loads(raw)
            t = parse_ts(o["createdAt"])
            lines.append((t, k, raw, o))
            trips.setdefault(o["tripId"], []).append((t, o["latitude"], o["longitude"], o["userId"], o["createdAt"]))
    for f in trips.values():
        f.sort(key=lambda x: x[0])  # stable; the README says they already are in time order
    return lines, trips


def write_inputs(work, lines, trips, radius):
    g = os.path.join(work, "geofences.ndjson")
    c = os.path.join(work, "commands.ndjson")
    fx = os.path.join(work, "fixes.ndjson")
    with open(g, "w", encoding="utf-8") as out:
        for tid, f in trips.items():
            last = f[-1]
            out.write(json.dumps({"tag": "dropoff", "externalId": tid, "description": "drop-off of %s" % tid,
                                  "type": "circle", "coordinates": [last[2], last[1]], "radius": radius},
                                 separators=(",", ":")) + "\n")
    cmds = []
    for tid, f in trips.items():
        first, last = f[0], f[-1]
        user = first[3]
        cmds.append((first[0], {"type": "start", "userId": user, "createdAt": first[4],
                                "trip": {"externalId": tid, "destinationGeofenceTag": "dropoff",
                                         "destinationGeofenceExternalId": tid, "mode": "car",
                                         "approachingThreshold": 2}}))
        te = last[0] + COMPLETE_AFTER_S
        cmds.append((te, {"type": "complete", "userId": user, "createdAt": fmt_ts(te),
                          "trip": {"externalId": tid}}))
    cmds.sort(key=lambda x: x[0])  # stable: a start stays before a complete at the same second
    with open(c, "w", encoding="utf-8") as out:
        for _, o in cmds:
            out.write(json.dumps(o, separators=(",", ":")) + "\n")
    with open(fx, "w", encoding="utf-8") as out:
        for x in sorted(lines, key=lambda x: x[0]):
            out.write(x[2] + "\n")
    return g, c, fx, len(cmds)


# ----------------------------------------------------------------------------- binary

def find_or_build(repo, explicit, rebuild, retries, wait):
    if explicit:
        if not os.path.isfile(explicit):
            fail("--tripstream %s does not exist" % explicit)
        return explicit
    shared = os.path.join(repo, ".build", "release", "tripstream")
    bench = os.path.join(repo, ".build-bench", "release", "tripstream")
    if not rebuild:
        for p in (shared, bench):
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    cmd = ["swift", "build", "-c", "release", "--product", "tripstream", "--scratch-path", ".build-bench"]
    for attempt in range(retries + 1):
        print("building tripstream: (cd %s && %s)  [attempt %d/%d]"
              % (repo, " ".join(cmd), attempt + 1, retries + 1), flush=True)
        r = subprocess.run(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0 and os.path.isfile(bench):
            return bench
        tail = "\n".join(r.stdout.splitlines()[-25:])
        print("build failed (exit %d):\n%s" % (r.returncode, tail), flush=True)
        if attempt < retries:
            print("retrying in %d s (sources may be mid-change)..." % wait, flush=True)
            time.sleep(wait)
    sys.exit(2)


# ----------------------------------------------------------------------------- outputs

def read_events(path):
    """Upsert by _id (later lines replace earlier). Returns (events in first-seen order, raw stats)."""
    by_id = collections.OrderedDict()
    stats = collections.Counter()
    bad = 0
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                e = json.loads(raw)
            except ValueError:
                bad += 1
                continue
            stats["lines"] += 1
            if e.get("corrected"):
                stats["corrected"] += 1
            if e.get("retracted"):
                stats["retracted"] += 1
            by_id[e.get("_id")] = e
    stats["unparsable"] = bad
    events = [e for e in by_id.values() if not e.get("retracted")]
    return events, stats


def read_dead_letters(path):
    c = collections.Counter()
    if not os.path.exists(path):
        return c
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                c[json.loads(raw).get("reason", "?")] += 1
            except ValueError:
                c["<unparsable line>"] += 1
    return c


def trip_of(e):
    t = e.get("trip") or {}
    return t.get("externalId"), t


# ----------------------------------------------------------------------------- scoring

def arrival_index(f, dest, radius):
    """First fix inside the circle after the trip has been outside it; None if never (study def)."""
    outside = False
    for i, x in enumerate(f):
        if hav(x[1], x[2], dest[0], dest[1]) > radius:
            outside = True
        elif outside:
            return i
    return None


def eval_points(f, end_i):
    """{fix index: q} for the fixes closest in time to q of f[0]..f[end_i] (ties -> later fix)."""
    t0, t1 = f[0][0], f[end_i][0]
    res = {}
    for q in QS:
        target = t0 + q * (t1 - t0)
        best = min(range(end_i + 1), key=lambda i: (abs(f[i][0] - target), -i))
        res[best] = q
    return res


def errstats(pairs):
    """pairs: [(eta_s, rem_s)] with rem > 0 -> (MARE%, WAPE%, median signed %, n)."""
    pairs = [(a, b) for a, b in pairs if b > 0]
    if not pairs:
        return (float("nan"),) * 3 + (0,)
    mare = 100 * statistics.mean(abs(a - b) / b for a, b in pairs)
    wape = 100 * sum(abs(a - b) for a, b in pairs) / sum(b for a, b in pairs)
    bias = 100 * statistics.median((a - b) / b for a, b in pairs)
    return mare, wape, bias, len(pairs)


def mileage_ref(f):
    """(raw path m, README method m: drop a fix if implied speed from the last kept fix > 150 km/h)."""
    raw = sum(hav(a[1], a[2], b[1], b[2]) for a, b in zip(f, f[1:]))
    ref, last = 0.0, f[0]
    for x in f[1:]:
        s = hav(last[1], last[2], x[1], x[2])
        if s / max(x[0] - last[0], 1) <= 150 / 3.6:
            ref += s
            last = x
    return raw, ref


# ----------------------------------------------------------------------------- main

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(repo, "..", "shared", "data", "real-trajectories"),
                    help="directory holding porto-taxi-train-sample.ndjson")
    ap.add_argument("--tripstream", help="tripstream binary (default: .build/release, else .build-bench/release)")
    ap.add_argument("--work", help="directory for inputs and replay output (default: a temp dir, removed)")
    ap.add_argument("--radius", type=float, default=150.0, help="drop-off circle radius, m (default 150)")
    ap.add_argument("--rebuild", action="store_true", help="build into .build-bench even if a binary exists")
    ap.add_argument("--build-retries", type=int, default=1, help="retries of a failed swift build (default 1)")
    ap.add_argument("--build-wait", type=int, default=90, help="seconds between build retries (default 90)")
    ap.add_argument("--timeout", type=float, default=300.0, help="replay timeout, s (default 300)")
    ap.add_argument("--check", action="store_true", help="exit 1 if arrival < 99%% or MARE50 > 35%%")
    ap.add_argument("--verbose", "-v", action="store_true", help="list missed / late arrivals")
    args = ap.parse_args()

    data = os.path.normpath(os.path.abspath(args.data))
    path = os.path.join(data, "porto-taxi-train-sample.ndjson")
    if not os.path.isfile(path):
        fail("%s not found (use --data DIR)" % path)
    binary = find_or_build(repo, args.tripstream, args.rebuild, args.build_retries, args.build_wait)
    binary = os.path.abspath(binary)

    t_start = time.monotonic()
    lines, trips = load_fixes(path)
    users = {f[0][3] for f in trips.values()}
    tmp = None
    if args.work:
        work = os.path.abspath(args.work)
        os.makedirs(work, exist_ok=True)
    else:
        work = tmp = tempfile.mkdtemp(prefix="tripstream-real-")
    try:
        return run(args, binary, path, lines, trips, users, work, t_start)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def run(args, binary, path, lines, trips, users, work, t_start):
    R = args.radius
    g, c, fx, ncmd = write_inputs(work, lines, trips, R)
    out = os.path.join(work, "out")
    if os.path.isdir(out):
        for name in ("events.ndjson", "eta.ndjson", "dead-letters.ndjson"):
            p = os.path.join(out, name)
            if os.path.exists(p):
                os.remove(p)
    cmd = [binary, "replay", "--geofences", g, "--commands", c, "--fixes", fx, "--out", out, "--quiet"]
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("error: replay timed out after %.0f s: %s" % (args.timeout, " ".join(cmd)))
        return 2
    wall = time.monotonic() - t0
    if r.returncode != 0:
        print("error: replay exited %d: %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout[-3000:], r.stderr[-3000:]))
        return 2
    ev_path = os.path.join(out, "events.ndjson")
    if not os.path.isfile(ev_path):
        print("error: replay wrote no %s" % ev_path)
        return 2
    events, evstats = read_events(ev_path)
    dead = read_dead_letters(os.path.join(out, "dead-letters.ndjson"))

    # ---- index events
    by_type = collections.Counter(e.get("type", "?") for e in events)
    arrived = {}                              # tripId -> earliest arrival time
    updated = {}                              # (tripId, t) -> eta seconds or None
    stopped = {}                              # tripId -> trip object of the stopped_trip event
    started = set()
    upd_arrived = set()
    for e in events:
        ty = e.get("type")
        tid, tr = trip_of(e)
        if tid is None:
            continue
        try:
            te = parse_ts(e["createdAt"])
        except (KeyError, ValueError, TypeError):
            continue
        if ty == "user.arrived_at_trip_destination":
            if tid not in arrived or te < arrived[tid]:
                arrived[tid] = te
        elif ty == "user.updated_trip":
            eta = tr.get("eta") or {}
            d = eta.get("duration")
            updated[(tid, te)] = None if d is None else 60.0 * float(d)
            if tr.get("status") == "arrived":
                upd_arrived.add((tid, te))
        elif ty == "user.stopped_trip":
            stopped[tid] = tr
        elif ty == "user.started_trip":
            started.add(tid)
    status = collections.Counter(tr.get("status", "?") for tr in stopped.values())

    scored = [tid for tid in trips if tid not in BAD_ENDPOINTS]
    bad_present = sorted(BAD_ENDPOINTS & set(trips))

    # ---- arrival
    applicable, na, detected, within, early, late_list, missed = 0, [], 0, 0, [], [], []
    lat = []
    arr_t = {}
    early_at_start = 0
    for tid in scored:
        f = trips[tid]
        dest = (f[-1][1], f[-1][2])
        ia = arrival_index(f, dest, R)
        if ia is None:
            na.append(tid)
            continue
        applicable += 1
        arr_t[tid] = (ia, f[ia][0])
        if tid not in arrived:
            missed.append(tid)
            continue
        detected += 1
        L = arrived[tid] - f[ia][0]
        lat.append(L)
        if 0 <= L <= LATENCY_MAX_S:
            within += 1
        elif L < 0:
            early.append((tid, L))
            if arrived[tid] == f[0][0] and hav(f[0][1], f[0][2], dest[0], dest[1]) <= R:
                early_at_start += 1
        else:
            late_list.append((tid, L))
    na_arrived = sum(1 for tid in na if tid in arrived)
    na_at_start = sum(1 for tid in na if arrived.get(tid) == trips[tid][0][0])

    # ---- ETA
    sl = sorted(hav(f[0][1], f[0][2], f[-1][1], f[-1][2]) / max(f[-1][0] - f[0][0], 1)
                for tid, f in trips.items() if tid not in BAD_ENDPOINTS)
    ub = statistics.median(sl)
    cols = {}
    missing = collections.Counter()
    for target in ("ride_end", "arrival"):
        prod = {q: [] for q in QS}
        base = {q: [] for q in QS}
        for tid in scored:
            f = trips[tid]
            if target == "ride_end":
                end_i = len(f) - 1
            else:
                if tid not in arr_t:
                    continue
                end_i = arr_t[tid][0]
            t_end = f[end_i][0]
            dest = (f[-1][1], f[-1][2])
            for i, q in eval_points(f, end_i).items():
                if i >= end_i:
                    continue
                t, la, lo = f[i][0], f[i][1], f[i][2]
                rem = t_end - t
                base[q].append((hav(la, lo, dest[0], dest[1]) / ub, rem))
                eta = updated.get((tid, t), "absent")
                if eta == "absent":
                    missing[(target, q, "no updated_trip event")] += 1
                elif eta is None:
                    missing[(target, q, "updated_trip without eta")] += 1
                else:
                    prod[q].append((eta, rem))
                    if (tid, t) in upd_arrived:
                        missing[(target, q, "scored, but status already arrived (eta 0)")] += 1
        cols[target] = ({q: errstats(prod[q]) for q in QS}, {q: errstats(base[q]) for q in QS})

    # ---- mileage
    raw_all = ref_all = raw_c = ref_c = prod_c = 0.0
    n_completed = 0
    prev_of = {}            # tripId -> previous ride of the same taxi (by start time)
    next_of = {}
    last_by_user = {}
    for tid in sorted(trips, key=lambda x: (trips[x][0][0], x)):
        u = trips[tid][0][3]
        if u in last_by_user:
            prev_of[tid] = last_by_user[u]
            next_of[last_by_user[u]] = tid
        last_by_user[u] = tid
    split = {k: [0, 0.0, 0.0, 0.0] for k in ("first", "later")}   # n, product, ref, gaps
    for tid, f in trips.items():
        raw, ref = mileage_ref(f)
        raw_all += raw
        ref_all += ref
        tr = stopped.get(tid)
        if tr is not None and tr.get("status") == "completed":
            s = (tr.get("summary") or {}).get("distance")
            if s is not None:
                n_completed += 1
                prod_c += float(s)
                raw_c += raw
                ref_c += ref
                k = "later" if tid in prev_of else "first"
                p = trips[prev_of[tid]][-1] if tid in prev_of else None
                gap = hav(p[1], p[2], f[0][1], f[0][2]) if p else 0.0
                for j, v in enumerate((1, float(s), ref, gap)):
                    split[k][j] += v

    elapsed = time.monotonic() - t_start

    # ---- report
    P = print
    P("TripStream real-trajectory replay  (%s)" % os.path.basename(path))
    P("binary   %s  (built %s)" % (binary, datetime.fromtimestamp(os.path.getmtime(binary)).strftime("%Y-%m-%d %H:%M:%S")))
    P("inputs   trips=%d fixes=%d users=%d geofences=%d (circle r=%g m) commands=%d  work=%s"
      % (len(trips), len(lines), len(users), len(trips), R, ncmd, work if args.work else "(temp)"))
    P("scored   %d trips (bad-endpoint trips excluded: %s)" % (len(scored), ", ".join(bad_present) or "none present"))
    P("replay   wall %.2f s;  events lines=%d corrected=%d retracted=%d unparsable=%d -> %d live events after upsert"
      % (wall, evstats["lines"], evstats["corrected"], evstats["retracted"], evstats["unparsable"], len(events)))
    P()
    ok_arr = within / applicable if applicable else 0.0
    P("Arrival (first fix inside r=%g m of the last fix after having been outside; target >= %.0f%% within %.0f s)"
      % (R, 100 * TARGET_ARRIVAL, LATENCY_MAX_S))
    P("  applicable %d, not applicable (never outside the circle) %d [product reported arrived: %d, at the start fix: %d]"
      % (applicable, len(na), na_arrived, na_at_start))
    P("  detected   %d/%d = %.1f%%   within 0..%.0f s: %d = %.1f%%   early (<0 s): %d   late (>%.0f s): %d   missed: %d"
      % (detected, applicable, pct(detected, applicable), LATENCY_MAX_S, within, pct(within, applicable),
         len(early), LATENCY_MAX_S, len(late_list), len(missed)))
    if lat:
        P("  latency    median %.0f s  p90 %.0f s  min %.0f s  max %.0f s;  histogram %s"
          % (statistics.median(lat), quantile(lat, 0.9), min(lat), max(lat),
             ", ".join("%s:%d" % (k, v) for k, v in sorted(collections.Counter(
                 "<0" if x < 0 else "%gs" % x if x <= 60 else ">60" for x in lat).items(),
                 key=lambda kv: (kv[0] != "<0", float(kv[0][:-1]) if kv[0][-1] == "s" else 1e9)))))
    if early:
        P("  early: %d of %d fired at the trip's first fix, which lies inside the circle (trip started at its"
          " drop-off, left, came back)" % (early_at_start, len(early)))
    if args.verbose or len(missed) + len(late_list) + len(early) <= 12:
        for tid in missed[:20]:
            P("    missed  %s (first fix inside %s)%s" % (tid, fmt_ts(arr_t[tid][1]),
                                                      "  [trip %s]" % stopped[tid].get("status") if tid in stopped else ""))
        for tid, L in (early + late_list)[:20]:
            P("    %s %s latency %+.0f s" % ("early" if L < 0 else "late ", tid, L))
    P()
    P("ETA (user.updated_trip eta.duration at the fix closest to 25/50/75%% of the trip; baseline = straight-line"
      " distance / %.2f m/s)" % ub)
    P("  cells: MARE%% / WAPE%% (median signed err%%) n;  target MARE50 (ride end) <= %.0f%%" % TARGET_MARE50)
    for target, label in (("ride_end", "truth = ride end (last fix)"),
                          ("arrival", "truth = arrival (first fix inside; points on start->arrival)")):
        P("  %s" % label)
        P("    %-12s %-30s %-30s %-30s" % ("", "25%", "50%", "75%"))
        prod, base = cols[target]
        for name, res in (("tripstream", prod), ("baseline", base)):
            P("    %-12s " % name + " ".join("%5.1f / %5.1f (%+6.1f) n=%-4d  " % res[q] for q in QS))
    if missing:
        P("  notes: " + ", ".join("%s@%d%% %s: %d" % (t, int(q * 100), why, n)
                                                for (t, q, why), n in sorted(missing.items())))
    P()
    P("Mileage (trip.summary.distance of completed stopped_trip events)")
    P("  completed trips with summary %d/%d" % (n_completed, len(trips)))
    P("  tripstream %8.1f km | raw path %8.1f km (ratio %.4f) | >150 km/h fixes dropped %8.1f km (ratio %.4f)"
      % (prod_c / 1000, raw_c / 1000, prod_c / raw_c if raw_c else float("nan"), ref_c / 1000,
         prod_c / ref_c if ref_c else float("nan")))
    P("  all %d trips: raw %.1f km, >150 km/h dropped %.1f km (ratio ref/raw %.4f)"
      % (len(trips), raw_all / 1000, ref_all / 1000, ref_all / raw_all if raw_all else float("nan")))
    for k, label in (("first", "first ride of its taxi"), ("later", "later rides of a taxi")):
        n, pr, rf, gp = split[k]
        if n:
            P("  %-23s n=%-3d tripstream %7.1f km vs ref %7.1f km (ratio %.4f, excess %+.1f km); straight-line gap"
              " from the taxi's previous ride end to this ride's start: %.1f km" % (label, n, pr / 1000, rf / 1000,
                                                                                   pr / rf if rf else float("nan"),
                                                                                   (pr - rf) / 1000, gp / 1000))
    P()
    P("Trips    started %d, stopped %d by status: %s" % (len(started), len(stopped),
                                                        ", ".join("%s=%d" % kv for kv in sorted(status.items())) or "-"))
    canceled = sorted(t for t, tr in stopped.items() if tr.get("status") == "canceled")
    if canceled:
        why = []
        for tid in canceled[:10]:
            nx = next_of.get(tid)
            if nx is None:
                why.append("%s (no next ride of this taxi)" % tid)
                continue
            dt = trips[nx][0][0] - trips[tid][-1][0]
            why.append("%s (next ride %s starts %+.0f s after this ride's last fix: %s)" % (
                tid, nx, dt, "overlap" if dt < 0 else "within the %d s complete delay" % COMPLETE_AFTER_S
                if dt < COMPLETE_AFTER_S else "?"))
        P("  canceled by the taxi's next start:" + ("\n" + " " * 4).join([""] + why)
          + (" ..." if len(canceled) > 10 else ""))
    P("Events   " + ", ".join("%s=%d" % (k.replace("user.", ""), v) for k, v in sorted(by_type.items())))
    P("Dead letters %d%s" % (sum(dead.values()), (": " + ", ".join("%s=%d" % kv for kv in sorted(dead.items())))
                             if dead else ""))
    mare50 = cols["ride_end"][0][0.5][0]
    passed_arr = ok_arr >= TARGET_ARRIVAL
    passed_eta = mare50 == mare50 and mare50 <= TARGET_MARE50
    P()
    P("Targets  arrival within %.0f s %.1f%% (>= %.0f%%): %s | MARE50 ride end %.1f%% (<= %.0f%%): %s"
      % (LATENCY_MAX_S, 100 * ok_arr, 100 * TARGET_ARRIVAL, "PASS" if passed_arr else "FAIL",
         mare50, TARGET_MARE50, "PASS" if passed_eta else "FAIL"))
    P("total %.2f s (replay %.2f s)" % (elapsed, wall))
    if args.check and not (passed_arr and passed_eta):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
