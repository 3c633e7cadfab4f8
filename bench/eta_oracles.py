#!/usr/bin/env python3
"""How far knowing the route and the pace can take an ETA on the real Porto rides (issue 31).

Standard library only, deterministic, ~2 s. Usage:

    python3 bench/eta_oracles.py [--data DIR]

Same split, destinations, arrival rule and scoring as bench/eta_learned.py: the held-out rides, the
fix closest to 25 / 50 / 75 % of each ride's time to arrival, MAE as % of the mean true remaining
time. Instead of models, ORACLES that are handed what no live ETA can know:

  path x map       the ride's actual remaining driven path (its future fixes, GPS jumps over
                   40 m/s left out), each step timed at the fleet's pace in its grid cell: what a
                   router that knew the exact road the driver will take, with our learned map,
                   would say. The map is learned from the training rides (fair), or from ALL rides
                   including the held-out ones themselves (leaky: it has seen these very trips),
                   at three cell sizes.
  path x ride pace the actual remaining path at the ride's own average pace over the whole ride
                   (start to arrival): knows the future path and the ride's future average speed.

If an oracle cannot reach 25 % at a point, no model fed with route and pace knowledge can: what is
left is the stops, lights and traffic of those particular minutes. Result on this split: the fair
map errs 31 / 34 / 35 %, the leaky 110 m map 22 / 25 / 30 %, the ride's own pace 14 / 26 / 38 %;
the learned model (bench/eta_learned.py) 32 / 33 / 39 %.
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eta_model_study import QS, eval_indexes, hav  # noqa: E402
from eta_learned import DEFAULT_DATA, held_out_split  # noqa: E402

MAX_STEP_SPEED = 40.0   # m/s: a step implying more is a GPS jump, left out of paths and maps
PRIOR_METERS = 60.0     # a cell's pace leans toward the fleet's by this many meters of driving
CELL_SIZES = (0.005, 0.0025, 0.001)   # degrees of latitude (~556, 278, 111 m)


def steps(fixes, first, last):
    """(index, meters, seconds) of each plausible step between fixes first..last."""
    for j in range(first + 1, last + 1):
        dt = fixes[j][0] - fixes[j - 1][0]
        meters = hav(fixes[j - 1][4], fixes[j - 1][5], fixes[j][4], fixes[j][5])
        if dt > 0 and meters / dt <= MAX_STEP_SPEED:
            yield j, meters, dt


def cell_key(lat, lon, deg):
    return (int(math.floor(lat / deg)), int(math.floor(lon * math.cos(math.radians(lat)) / deg)))


def pace_map(trips, rides, deg):
    """Seconds per meter in each cell (time over distance driven there), and the fleet's."""
    cells = collections.defaultdict(lambda: [0.0, 0.0])
    meters_all = seconds_all = 0.0
    for tid in rides:
        fixes = trips[tid]
        for j, meters, dt in steps(fixes, 0, len(fixes) - 1):
            c = cells[cell_key(fixes[j][4], fixes[j][5], deg)]
            c[0] += meters
            c[1] += dt
            meters_all += meters
            seconds_all += dt
    fleet = seconds_all / meters_all
    return {k: (s + PRIOR_METERS * fleet) / (m + PRIOR_METERS) for k, (m, s) in cells.items()}, fleet


def score(trips, truth, held, predict):
    """MAE as % of the mean true remaining time at 25/50/75 % of the held-out rides."""
    out = []
    for q in QS:
        err = rem_sum = 0.0
        for tid, (_dest, ia) in truth.items():
            if tid not in held:
                continue
            fixes = trips[tid]
            for i, qq in eval_indexes(ia + 1).items():
                if qq == q:
                    rem = fixes[ia][0] - fixes[i][0]
                    err += abs(predict(fixes, i, ia) - rem)
                    rem_sum += rem
        out.append(100.0 * err / rem_sum)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    trips, _, held, truth = held_out_split(args.data)
    training = [tid for tid in trips if tid not in held]

    print("held-out rides scored: %d; MAE as %% of the true remaining time" % sum(1 for t in truth if t in held))
    print("  %-52s %6s %6s %6s" % ("oracle", "25%", "50%", "75%"))

    def row(name, predict):
        print("  %-52s %s" % (name, " ".join("%5.1f%%" % x for x in score(trips, truth, held, predict))))

    for deg in CELL_SIZES:
        for label, rides in (("training rides", training), ("all rides, leaky", list(trips))):
            pace, fleet = pace_map(trips, rides, deg)

            def by_map(fixes, i, ia, pace=pace, fleet=fleet, deg=deg):
                return sum(m * pace.get(cell_key(fixes[j][4], fixes[j][5], deg), fleet) for j, m, _ in steps(fixes, i, ia))
            row("path x map (%3.0f m cells, %s)" % (deg * 111_195, label), by_map)

    def by_ride_pace(fixes, i, ia):
        whole = list(steps(fixes, 0, ia))
        per_meter = sum(dt for _, _, dt in whole) / max(sum(m for _, m, _ in whole), 1.0)
        return sum(m for _, m, _ in steps(fixes, i, ia)) * per_meter
    row("path x the ride's own average pace", by_ride_pace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
