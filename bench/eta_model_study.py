#!/usr/bin/env python3
"""ETA / arrival / mileage study for TripStream on the real Porto taxi rides.

Standard library only, deterministic. Usage:

    python3 bench/eta_model_study.py [--data DIR]

DIR defaults to <repo>/../shared/data/real-trajectories (resolved from this file).

What it does (all on porto-taxi-train-sample.ndjson, complete rides):
  * Replays every fix in a live-like stream (stable sort of all lines by createdAt).
    Each ride is a trip that starts at its first fix; its destination is a circle of
    radius R_DEST around its LAST fix.
  * Per fix, every model computes an ETA using only: the trip's own fixes so far, the
    destination, and what it learnt from trips that ENDED STRICTLY BEFORE the current
    fix time (learning = none | per user | fleet-wide).
  * Scores the ETA at the fix closest to 25 / 50 / 75 % of each trip's duration against
    two truths:
      "ride end"  : remaining = time of the ride's last fix - time of the fix
      "arrival"   : remaining = time of the arrival event (first fix inside the R_DEST
                    circle after the trip has been outside it) - time of the fix; the trip
                    duration used for the 25/50/75 % points is then start -> arrival.
    MARE = mean over trips of |eta - rem| / rem;  WAPE = sum |eta - rem| / sum rem.
  * Arrival-radius table and mileage-filter table.
"""
import argparse
import collections
import json
import math
import os
import statistics
from datetime import datetime, timezone

# ----------------------------------------------------------------------------- geometry

EARTH_R = 6371008.8  # metres (same as convert.py)


def hav(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(math.sqrt(min(1.0, a)))


# ----------------------------------------------------------------------------- constants

BAD_ENDPOINTS = {  # README "Bad end points": last fix is a GPS jump, not the drop-off
    "1372646419620000372", "1372665674620000021", "1372667799620000050", "1372638451620000621"}
QS = (0.25, 0.50, 0.75)

# Mileage filter (recommended values; the table below varies them)
MF_VMAX = 150.0 / 3.6   # m/s: implied speed from last accepted fix above this -> reject
MF_N = 3                # re-anchor after this many consecutive, mutually consistent rejects
MF_DMIN = 15.0          # m: add distance only once displacement from the anchor >= this

# Destination radius (recommended)
R_DEST = 100.0          # m

# ETA power-law model (recommended): eta_s = A * max(d, D_FLOOR) ** B * K_BIAS
PL_B = 0.5              # exponent (fixed): eta ~ sqrt(distance)
PL_LNA0 = 1.85          # prior ln(A) for ETA-to-arrival (recommended): A0 = e^1.85 = 6.36 s/m^0.5
                        # (in-sample: the fleet learner ends this file at ln A = 1.80)
PL_LNA0_RIDE_END = 2.08 # prior for ETA-to-last-fix: the baseline 4.85 m/s at d = 1500 m,
                        # ln(1500/4.85) - 0.5*ln(1500) = 2.077 (fleet learner ends at 2.03)
PL_N0 = 20.0            # prior weight, in checkpoint samples
PL_K_BIAS = 0.90        # deliberate shrink: relative error punishes over-estimates more
D_FLOOR = 50.0          # m
CP_EVERY = 60          # s: learning checkpoint period at trip start
CP_MAX = 8             # checkpoints kept per active trip
ETA_MIN_S = 15.0        # s: never report less than one fix period while not arrived


# ----------------------------------------------------------------------------- data

def load(path):
    lines = []
    with open(path, encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            o = json.loads(line)
            t = int(datetime.strptime(o["createdAt"], "%Y-%m-%dT%H:%M:%SZ")
                    .replace(tzinfo=timezone.utc).timestamp())
            lines.append((t, k, o["userId"], o["tripId"], o["latitude"], o["longitude"]))
    trips = collections.OrderedDict()
    for x in lines:
        trips.setdefault(x[3], []).append(x)
    stream = sorted(lines, key=lambda x: x[0])  # stable: ties keep file order
    return lines, trips, stream


# ----------------------------------------------------------------------------- mileage filter

class Mileage:
    """Online GPS-jump- and jitter-robust odometer. O(1) state (pending <= n-1 fixes)."""

    def __init__(self, vmax=MF_VMAX, n=MF_N, dmin=MF_DMIN):
        self.vmax, self.n, self.dmin = vmax, n, dmin
        self.acc = None      # last accepted fix (t, lat, lon)
        self.anc = None      # odometer anchor (lat, lon)
        self.pend = []       # consecutive rejected fixes, mutually consistent
        self.meters = 0.0
        self.rejected = 0

    def _accept(self, t, la, lo):
        self.acc = (t, la, lo)
        s = hav(self.anc[0], self.anc[1], la, lo)
        if s >= self.dmin:
            self.meters += s
            self.anc = (la, lo)

    def add(self, t, la, lo):
        """Returns True if the fix was accepted (possibly via re-anchoring)."""
        if self.acc is None:
            self.acc, self.anc = (t, la, lo), (la, lo)
            return True
        dt = max(t - self.acc[0], 1)
        if hav(self.acc[1], self.acc[2], la, lo) / dt <= self.vmax:
            self.pend = []
            self._accept(t, la, lo)
            return True
        self.rejected += 1
        if self.pend:
            p = self.pend[-1]
            if hav(p[1], p[2], la, lo) / max(t - p[0], 1) > self.vmax:
                self.pend = []
        self.pend.append((t, la, lo))
        if self.n and len(self.pend) >= self.n:   # the "jump" is real: re-anchor
            for p in self.pend:
                self._accept(*p)
            self.rejected -= len(self.pend)
            self.pend = []
            return True
        return False


# ----------------------------------------------------------------------------- trip truth

def arrival_index(fixes, dest, radius):
    """First fix inside the circle after the trip has been outside it; None if never."""
    outside = False
    for i, x in enumerate(fixes):
        if hav(x[4], x[5], dest[0], dest[1]) > radius:
            outside = True
        elif outside:
            return i
    return None


def eval_indexes(n):
    return {int(q * (n - 1) + 0.5): q for q in QS}


# ----------------------------------------------------------------------------- models

class Learner:
    """Per-key learnt state. Keys: '*' (fleet) or userId (per user)."""

    def __init__(self):
        self.pl = collections.defaultdict(lambda: [0.0, 0])           # sum ln-residual, n
        self.sp = collections.defaultdict(lambda: [0.0, 0.0, 0.0])    # sum driven m, sum straight m, sum s

    def commit(self, key, trip):
        s = self.sp[key]
        s[0] += trip["m"]
        s[1] += trip["d0"]
        s[2] += trip["dur"]
        p = self.pl[key]
        for (t_k, c_k) in trip["cps"]:
            rem = trip["t_end"] - t_k
            if rem > 0:
                p[0] += math.log(rem) - c_k
                p[1] += 1


def eta_seconds(model, tr, L, key, d, e, P):
    """tr: trip state, L: Learner, key: learning key or None, d: m to dest centre, e: s elapsed."""
    if model == "baseline":
        return d / P["UB"]
    if model == "powerlaw":
        s, n = (L.pl[key] if key is not None else (0.0, 0))
        lna = (s + P["N0"] * P["LNA0"]) / (n + P["N0"])
        eta = math.exp(lna) * max(d, D_FLOOR) ** P["B"] * P["K"]
        return max(eta, ETA_MIN_S)
    # circuity x distance / blended speed  (model 1)  or progress-rate blend (model 2)
    sd, ss, st = (L.sp[key] if key is not None else (0.0, 0.0, 0.0))
    v_prior = (sd + P["KT"] * P["V0"]) / (st + P["KT"])        # m/s, driven
    circ = (sd + P["KS"] * P["C0"]) / (ss + P["KS"])          # driven / straight
    u_prior = v_prior / circ                                  # straight-line closing m/s
    if e <= 0:
        u = u_prior
    else:
        if model == "speedblend":
            u_own = (tr["mf"].meters / e) / circ
        else:  # progress
            u_own = (tr["d0"] - d) / e
        u = (e * u_own + P["TAU"] * u_prior) / (e + P["TAU"])
    u = min(max(u, 0.5), 30.0)
    return max(d / u, ETA_MIN_S)


def run_eta(trips, stream, model, learn, P, target, radius=R_DEST):
    """Replays the stream; returns {q: [(eta_s, rem_s), ...]} over scored trips."""
    # Truth per trip (known only to the scorer; the learner sees it at trip end).
    truth = {}
    for tid, f in trips.items():
        dest = (f[-1][4], f[-1][5])
        ia = arrival_index(f, dest, radius)
        if target == "arrival":
            end_i = ia if ia is not None else len(f) - 1
        else:
            end_i = len(f) - 1
        truth[tid] = dict(dest=dest, end_i=end_i, t_end=f[end_i][0], idx=eval_indexes(end_i + 1))
    L = Learner()
    pending = []  # (t_end, key, tripsummary)
    state = {}
    out = {q: [] for q in QS}
    for (t, _k, user, tid, la, lo) in stream:
        while pending and pending[0][0] < t:   # only trips that ended strictly before now
            _, key, summ = pending.pop(0)
            if key is not None:
                L.commit(key, summ)
        tr = state.get(tid)
        T = truth[tid]
        if tr is None:
            tr = state[tid] = dict(t0=t, mf=Mileage(), i=-1, cps=[], cp_next=0, cp_every=CP_EVERY, done=False,
                                   d0=hav(la, lo, T["dest"][0], T["dest"][1]))
        tr["i"] += 1
        if tr["done"]:
            continue
        tr["mf"].add(t, la, lo)
        a = tr["mf"].acc
        d = hav(a[1], a[2], T["dest"][0], T["dest"][1])
        e = t - tr["t0"]
        # checkpoints for the power-law learner: every CP_EVERY s of elapsed time, at most
        # CP_MAX kept; when full, keep every other one and double the interval (O(1) state).
        if e >= tr["cp_next"]:
            tr["cps"].append((t, P.get("B", PL_B) * math.log(max(d, D_FLOOR))))
            tr["cp_next"] = e + tr["cp_every"]
            if len(tr["cps"]) == CP_MAX:
                tr["cps"] = tr["cps"][0::2]
                tr["cp_every"] *= 2
                tr["cp_next"] = (tr["cps"][-1][0] - tr["t0"]) + tr["cp_every"]
        key = None if learn == "none" else ("*" if learn == "fleet" else user)
        eta = eta_seconds(model, tr, L, key, d, e, P)
        q = T["idx"].get(tr["i"])
        if q is not None and tr["i"] < T["end_i"] and tid not in BAD_ENDPOINTS:
            out[q].append((eta, T["t_end"] - t))
        if tr["i"] == T["end_i"]:
            tr["done"] = True
            summ = dict(m=tr["mf"].meters, d0=tr["d0"], dur=max(e, 1), t_end=t, cps=tr["cps"])
            pending.append((t, key, summ))
    return out


def score(out):
    res = {}
    for q, v in out.items():
        v = [(a, b) for a, b in v if b > 0]
        mare = 100 * statistics.mean(abs(a - b) / b for a, b in v)
        wape = 100 * sum(abs(a - b) for a, b in v) / sum(b for a, b in v)
        bias = 100 * statistics.median((a - b) / b for a, b in v)
        res[q] = (mare, wape, bias, len(v))
    return res


# ----------------------------------------------------------------------------- main

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "real-trajectories"))
    ap.add_argument("--sweep", action="store_true", help="also print parameter sensitivity")
    args = ap.parse_args()
    path = os.path.join(args.data, "porto-taxi-train-sample.ndjson")
    lines, trips, stream = load(path)
    users = {f[0][2] for f in trips.values()}
    print("data: %s  trips=%d fixes=%d users=%d  bad-endpoint trips present (excluded from scoring): %s"
          % (os.path.basename(path), len(trips), len(lines), len(users),
             sorted(BAD_ENDPOINTS & set(trips)) or "none"))

    # fleet-typical constant speed for the baseline: median over trips of straight(first,last)/duration
    sl = sorted(hav(f[0][4], f[0][5], f[-1][4], f[-1][5]) / (f[-1][0] - f[0][0])
                for tid, f in trips.items() if tid not in BAD_ENDPOINTS)
    ub = statistics.median(sl)
    print("baseline constant: median trip straight-line speed = %.2f m/s (%.1f km/h)" % (ub, ub * 3.6))

    P = dict(UB=ub,
             B=PL_B, LNA0=PL_LNA0, N0=PL_N0, K=PL_K_BIAS,
             V0=8.0, C0=1.5, KT=1800.0, KS=5000.0, TAU=300.0)
    variants = [("baseline d/const", "baseline", "none")]
    for m, name in (("speedblend", "M1 circ*d/blend(own,prior)"),
                    ("progress", "M2 progress-rate blend"),
                    ("powerlaw", "M3 power law A*d^0.5")):
        for l in ("none", "user", "fleet"):
            variants.append(("%s [%s]" % (name, l), m, l))

    for target in ("ride_end", "arrival"):
        print()
        print("ETA error, truth = %s%s   cells: MARE%% / WAPE%% (median signed err%%)"
              % (target, " (first fix inside %g m circle after leaving it)" % R_DEST if target == "arrival" else
                 " (last fix of the ride)"))
        print("%-38s %-24s %-24s %-24s" % ("model [learning]", "25%", "50%", "75%"))
        for label, m, l in variants:
            PT = dict(P, LNA0=PL_LNA0 if target == "arrival" else PL_LNA0_RIDE_END)
            r = score(run_eta(trips, stream, m, l, PT, target))
            print("%-38s " % label + " ".join("%5.1f / %5.1f (%+5.1f)    " % r[q][:3] for q in QS)
                  + " n=%d" % r[0.5][3])

    if args.sweep:
        print()
        print("power-law sensitivity (fleet learning), truth=ride_end / arrival, 50% MARE/WAPE")
        for B in (0.5, 0.6, 0.7):
            for K in (1.0, 0.9, 0.85, 0.8):
                for N0 in (20.0,):
                    P2 = dict(P, B=B, K=K, N0=N0, LNA0=PL_LNA0_RIDE_END + (0.5 - B) * 7.31)
                    a = score(run_eta(trips, stream, "powerlaw", "fleet", P2, "ride_end"))
                    P2["LNA0"] = PL_LNA0 + (0.5 - B) * 7.31
                    b = score(run_eta(trips, stream, "powerlaw", "fleet", P2, "arrival"))
                    print("  B=%.1f K=%.2f  ride_end %5.1f/%5.1f   arrival %5.1f/%5.1f"
                          % (B, K, a[0.5][0], a[0.5][1], b[0.5][0], b[0.5][1]))

    arrival_table(trips)
    mileage_table(trips)


def arrival_table(trips):
    print()
    print("Arrival: destination circle around the last fix; arrival = first ACCEPTED fix inside after")
    print("having been outside. 'final' = arrival fix starts the final stay inside (no later fix outside);")
    print("'early' = fired > 60 s before the final stay inside began (passed by, or left and came back).")
    print("lead = last-fix time - arrival time; 'drive lead' excludes the terminal dwell (fixes within 20 m of the last).")
    print("offset50/100 = % trips that ever enter when the circle centre is moved 50/100 m north (drop-off")
    print("not exactly at the address).")
    print("%6s %7s %8s %8s %10s %9s %9s %10s %9s %9s" % ("R(m)", "fired%", "final%", "early%", "startIn",
                                                         "leadMed", "leadP90", "driveMed", "offset50", "offset100"))
    scored = [(tid, f) for tid, f in trips.items() if tid not in BAD_ENDPOINTS]
    for R in (25, 50, 75, 100, 150, 200, 300):
        fired = final = early = start_in = 0
        leads, dleads = [], []
        off = {50: 0, 100: 0}
        for tid, f in scored:
            dest = (f[-1][4], f[-1][5])
            mf = Mileage()
            acc_flags = [mf.add(x[0], x[4], x[5]) for x in f]
            inside = [acc_flags[i] and hav(x[4], x[5], *dest) <= R for i, x in enumerate(f)]
            if inside[0]:
                start_in += 1
            ia, outside = None, False
            for i, x in enumerate(f):
                if not acc_flags[i]:
                    continue
                if not inside[i]:
                    outside = True
                elif outside:
                    ia = i
                    break
            if ia is None:
                continue
            fired += 1
            later_out = [j for j in range(ia + 1, len(f)) if acc_flags[j] and not inside[j]]
            if not later_out:
                final += 1
            elif f[later_out[-1] + 1][0] - f[ia][0] > 60:
                early += 1   # fired > 60 s before the start of the final stay inside
            leads.append(f[-1][0] - f[ia][0])
            j = len(f) - 1
            while j > 0 and hav(f[j - 1][4], f[j - 1][5], *dest) <= 20:
                j -= 1
            dleads.append(max(0, f[j][0] - f[ia][0]))
            for o in off:
                c = (dest[0] + o / 111195.0, dest[1])
                if any(acc_flags[i] and hav(x[4], x[5], *c) <= R for i, x in enumerate(f)):
                    off[o] += 1
        n = len(scored)
        leads.sort()
        dleads.sort()
        print("%6d %7.1f %8.1f %8.1f %10d %8.0fs %8.0fs %9.0fs %9.1f %9.1f" % (
            R, 100 * fired / n, 100 * final / n, 100 * early / n, start_in,
            statistics.median(leads), leads[int(0.9 * (len(leads) - 1))], statistics.median(dleads),
            100 * off[50] / n, 100 * off[100] / n))


def mileage_table(trips):
    print()
    raw = sum(hav(a[4], a[5], b[4], b[5]) for f in trips.values() for a, b in zip(f, f[1:]))
    seg150 = sum(hav(a[4], a[5], b[4], b[5]) for f in trips.values() for a, b in zip(f, f[1:])
                 if hav(a[4], a[5], b[4], b[5]) / max(b[0] - a[0], 1) <= 150 / 3.6)
    # README method reproduced: drop a fix if the implied speed from the last kept fix > 150 km/h
    ref, dropped = 0.0, 0
    for f in trips.values():
        last = f[0]
        for x in f[1:]:
            s = hav(last[4], last[5], x[4], x[5])
            if s / max(x[0] - last[0], 1) > 150 / 3.6:
                dropped += 1
            else:
                ref += s
                last = x
    print("Mileage (all %d trips of this file)" % len(trips))
    print("  raw sum of fix-to-fix steps         %8.1f km" % (raw / 1000))
    print("  raw minus >150 km/h segments        %8.1f km" % (seg150 / 1000))
    print("  drop fixes >150 km/h vs last kept   %8.1f km  (%d fixes dropped; README method, ratio to raw %.4f;"
          % (ref / 1000, dropped, ref / raw))
    print("                                                 README full 971-ride figures: 6227/6705.6 = %.4f)"
          % (6227 / 6705.6))
    print("  %-34s %10s %9s %12s" % ("filter (Vmax km/h, N re-anchor, Dmin m)", "total km", "vs ref", "rejected"))
    for v, n, dm in ((150, 0, 0), (150, 3, 0), (150, 3, 10), (150, 3, 15), (150, 3, 20), (150, 3, 30),
                     (150, 2, 15), (150, 4, 15), (120, 3, 15), (200, 3, 15)):
        tot, rej = 0.0, 0
        for f in trips.values():
            mf = Mileage(v / 3.6, n, dm)
            for x in f:
                mf.add(x[0], x[4], x[5])
            tot += mf.meters
            rej += mf.rejected + len(mf.pend)
        print("  Vmax=%3d N=%d Dmin=%2d%-15s %10.1f %+8.2f%% %12d" % (
            v, n, dm, "  (recommended)" if (v, n, dm) == (150, MF_N, MF_DMIN) else "",
            tot / 1000, 100 * (tot - ref) / ref, rej))


if __name__ == "__main__":
    main()
