#!/usr/bin/env python3
"""What an offline gradient-boosted learner reaches on the held-out Porto rides (issue 31).

A ceiling check for the online ETA, not a model the service runs. Needs LightGBM and NumPy
(`pip install lightgbm numpy`); deterministic (fixed seed, 2 threads); a few seconds. Usage:

    python3 bench/eta_gbm.py [--data DIR]

Same split, destinations, arrival rule and scoring as bench/eta_learned.py. Every fix of every
training ride (before its arrival) is a training row; the held-out rides are scored at the fix
closest to 25 / 50 / 75 % of their time to arrival. The maps are learned from the training rides
only. Features, all knowable at the fix: elapsed time, distance to the destination's edge now and
at the start, their ratio, the trip's recent speed and closing rate (1-minute moving averages),
distance covered (GPS-jump-filtered), seconds spent under 1 m/s, hour of day, the map's pace in
the cell here, at the destination and along the straight line to it, and the coordinates of the
fix and of the destination (so the trees can learn places). Target: ln(seconds left), fitted with
an absolute loss (the median, what an MAE rewards), and seconds left with the same loss.

Result on this split, across the settings below: fitted on ln(seconds), 32.5-33.9 / 35.0-35.8 /
36.4-38.1 % of the true remaining time at 25 / 50 / 75 %; on seconds, 33-35 / 38-40 / 43-45 %. The
online log-linear model the service runs (bench/eta_learned.py) reaches 32 / 33 / 39 %. More
capacity, more features and the places themselves do not move the plateau near a third.
"""
import argparse
import math
import os
import sys

try:
    import lightgbm
    import numpy
except ImportError:
    print("error: bench/eta_gbm.py needs LightGBM and NumPy: pip install lightgbm numpy", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eta_model_study import QS, Mileage, eval_indexes, hav  # noqa: E402
from eta_learned import DEFAULT_DATA, RADIUS, cell_of, held_out_split  # noqa: E402

EDGE_PAD_M = 30.0
TAU_S = 60.0            # s, time constant of the recent speed and closing rate
STILL_MPS = 1.0         # m/s: slower steps count as standing still
MAX_STEP_SPEED = 40.0   # m/s: a faster step is a GPS jump, left out of the map
CELL_PRIOR_STEPS = 20.0
SETTINGS = ((7, 0.05, 400, 40), (7, 0.03, 800, 40), (15, 0.05, 300, 40), (15, 0.05, 300, 100))


def pace_map(trips, rides):
    """ln(step speed) per cell, shrunk toward the fleet's, from the given rides' steps."""
    cells, every = {}, []
    for tid in rides:
        fixes = trips[tid]
        for a, b in zip(fixes, fixes[1:]):
            dt = b[0] - a[0]
            if dt <= 0:
                continue
            v = hav(a[4], a[5], b[4], b[5]) / dt
            if v > MAX_STEP_SPEED:
                continue
            x = math.log(max(v, 0.3))
            cells.setdefault(cell_of(b[4], b[5]), []).append(x)
            every.append(x)
    fleet = sum(every) / len(every)
    table = {c: (sum(xs) + CELL_PRIOR_STEPS * fleet) / (len(xs) + CELL_PRIOR_STEPS) for c, xs in cells.items()}
    return lambda lat, lon: table.get(cell_of(lat, lon), fleet)


def rows_of(fixes, dest, arrival, pace):
    """(fix index, features, seconds left) for each accepted fix before the arrival fix."""
    mileage, out = Mileage(), []
    speed, closing, still, previous = 5.0, 2.0, 0.0, None
    d0 = hav(fixes[0][4], fixes[0][5], *dest)
    line = lambda la, lo: sum(pace(la + (dest[0] - la) * (k + 0.5) / 8, lo + (dest[1] - lo) * (k + 0.5) / 8)  # noqa: E731
                              for k in range(8)) / 8
    for i in range(arrival):
        t = fixes[i][0]
        if not mileage.add(t, fixes[i][4], fixes[i][5]):
            continue
        _, la, lo = mileage.acc
        d = hav(la, lo, *dest)
        if previous is not None and t > previous[0]:
            dt = t - previous[0]
            v = hav(previous[1], previous[2], la, lo) / dt
            weight = 1 - math.exp(-dt / TAU_S)
            speed += weight * (v - speed)
            closing += weight * ((previous[3] - d) / dt - closing)
            still += dt if v < STILL_MPS else 0
        previous = (t, la, lo, d)
        edge, edge0 = max(d - RADIUS, 0) + EDGE_PAD_M, max(d0 - RADIUS, 0) + EDGE_PAD_M
        features = [t - fixes[0][0], edge, edge0, edge / edge0, speed, closing, mileage.meters, still,
                    (t // 3600) % 24, pace(la, lo), pace(*dest), line(la, lo), la, lo, dest[0], dest[1]]
        out.append((i, features, fixes[arrival][0] - t))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=DEFAULT_DATA)
    args = ap.parse_args()
    trips, _, held, truth = held_out_split(args.data)
    pace = pace_map(trips, [tid for tid in trips if tid not in held])

    train_x, train_y, test = [], [], []
    for tid, (dest, arrival) in sorted(truth.items()):
        rows = rows_of(trips[tid], dest, arrival, pace)
        if tid not in held:
            train_x += [features for _, features, _ in rows]
            train_y += [left for _, _, left in rows]
            continue
        points = eval_indexes(arrival + 1)
        test += [(points[i], features, left) for i, features, left in rows if i in points]
    x, y = numpy.array(train_x), numpy.array(train_y, dtype=float)
    test_x = numpy.array([features for _, features, _ in test])
    print("training rows (fixes): %d; held-out points scored: %d" % (len(x), len(test)))
    print("MAE as % of the true remaining time at 25 / 50 / 75 % of the time to arrival")

    def score(predicted):
        out = []
        for q in QS:
            pairs = [(p, left) for p, (qq, _, left) in zip(predicted, test) if qq == q]
            out.append(100 * sum(abs(p - left) for p, left in pairs) / sum(left for _, left in pairs))
        return " / ".join("%4.1f" % v for v in out)

    for target, label, back in ((numpy.log(numpy.maximum(y, 1)), "ln seconds", numpy.exp), (y, "seconds", None)):
        for leaves, rate, rounds, leaf_rows in SETTINGS:
            params = dict(objective="l1", num_leaves=leaves, learning_rate=rate, min_data_in_leaf=leaf_rows,
                          bagging_fraction=0.8, bagging_freq=1, feature_fraction=0.8, seed=1,
                          deterministic=True, num_threads=2, verbose=-1)
            booster = lightgbm.train(params, lightgbm.Dataset(x, target), num_boost_round=rounds)
            predicted = booster.predict(test_x)
            print("  target %-10s leaves %2d rate %.2f rounds %3d min rows/leaf %3d: %s" % (
                label, leaves, rate, rounds, leaf_rows, score(back(predicted) if back else predicted)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
