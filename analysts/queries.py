#!/usr/bin/env python3
"""An analyst's client: DuckDB over a TripStream replay's output folder, through the views of
analysts/views.sql (the ones `duckdb -init analysts/views.sql` gives), printing each query's table:

  arrivals        arrivals per trip destination (tag/externalId)
  delay           median arrival delay in minutes against scheduledArrivalAt (negative: early)
  per-hour        events per type per hour of event time
  dead-letters    inputs refused, per reason
  summaries       finished trips per status: count, kilometers, median minutes

Events and trip summaries are upserted by _id first, as a consumer would: the latest publication of an
_id wins and a retraction removes it. `--check` recomputes every figure with plain Python over the same
files and fails unless DuckDB agrees (CI runs it on a simulated fleet).

    python3 analysts/queries.py OUT_DIR [--check] [--rows N]
"""
import argparse
import json
import os
import statistics
import sys
from collections import Counter, OrderedDict
from datetime import datetime

import duckdb

VIEWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "views.sql")

QUERIES = OrderedDict(
    arrivals="""
        SELECT (trip->>'destinationGeofenceTag') || '/' || (trip->>'destinationGeofenceExternalId') AS destination,
               count(*) AS arrivals
        FROM events WHERE type = 'user.arrived_at_trip_destination'
        GROUP BY destination ORDER BY arrivals DESC, destination""",
    delay="""
        SELECT median(epoch(CAST(trip->>'arrivedAt' AS TIMESTAMP)) - epoch(CAST(trip->>'scheduledArrivalAt' AS TIMESTAMP))) / 60
               AS median_delay_minutes,
               count(*) AS arrivals
        FROM events
        WHERE type = 'user.arrived_at_trip_destination' AND (trip->>'scheduledArrivalAt') IS NOT NULL""",
    per_hour="""
        SELECT type, date_trunc('hour', created_at) AS hour, count(*) AS events
        FROM events GROUP BY type, hour ORDER BY hour, type""",
    dead_letters="""
        SELECT reason, count(*) AS inputs FROM dead_letters GROUP BY reason ORDER BY inputs DESC, reason""",
    summaries="""
        SELECT status, count(*) AS trips, round(sum(distance_meters) / 1000, 3) AS km,
               median(duration_seconds) / 60 AS median_minutes
        FROM trip_summaries GROUP BY status ORDER BY status""",
)


def connect(folder):
    """A connection with analysts/views.sql loaded over `folder`, as the DuckDB CLI loads it with -init."""
    connection = duckdb.connect()
    # The CLI has getenv(); the Python client does not, so views.sql's default finds it here.
    types = getattr(duckdb, "sqltypes", None) or duckdb.typing  # its name since DuckDB 1.4; `typing` before
    connection.create_function("getenv", lambda name: os.environ.get(name, ""), [types.VARCHAR], types.VARCHAR)
    connection.execute("SET VARIABLE tripstream_out = ?", [folder])
    with open(VIEWS) as views:
        connection.execute(views.read())
    return connection


def run_queries(folder):
    """Each query's column names and rows."""
    connection = connect(folder)
    results = OrderedDict()
    for name, sql in QUERIES.items():
        relation = connection.sql(sql)
        results[name] = (relation.columns, relation.fetchall())
    return results


def print_table(name, columns, rows, limit):
    """The first `limit` rows, columns aligned, NULL as an empty cell."""
    cells = [[("" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)) for v in row] for row in rows[:limit]]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print(f"{name} ({len(rows)} rows)")
    print("  " + "  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    for row in cells:
        print("  " + "  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
    if len(rows) > limit:
        print(f"  … {len(rows) - limit} more rows (--rows)")
    print()


def parse_time(text):
    return datetime.strptime(text.replace("Z", ""), "%Y-%m-%dT%H:%M:%S.%f")


def upserted(path):
    """The latest line of each _id, in the order of their last publication, retractions dropped."""
    latest = OrderedDict()
    with open(path) as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                latest.pop(record["_id"], None)
                latest[record["_id"]] = record
    return [r for r in latest.values() if not r.get("retracted", False)]


def destination(trip):
    """tag/externalId, or None for a destination given by coordinates (SQL's NULL || …)."""
    if "destinationGeofenceTag" not in trip or "destinationGeofenceExternalId" not in trip:
        return None
    return f'{trip["destinationGeofenceTag"]}/{trip["destinationGeofenceExternalId"]}'


def recompute(folder):
    """The same figures with plain Python, independently of DuckDB."""
    events = upserted(os.path.join(folder, "events.ndjson"))
    arrived = [e for e in events if e["type"] == "user.arrived_at_trip_destination"]
    arrivals = Counter(destination(e["trip"]) for e in arrived)
    scheduled = [e for e in arrived if e["trip"].get("scheduledArrivalAt")]
    delays = [(parse_time(e["trip"]["arrivedAt"]) - parse_time(e["trip"]["scheduledArrivalAt"])).total_seconds() / 60
              for e in scheduled]
    per_hour = Counter((e["type"], parse_time(e["createdAt"]).replace(minute=0, second=0, microsecond=0)) for e in events)
    with open(os.path.join(folder, "dead-letters.ndjson")) as lines:
        reasons = Counter(json.loads(line)["reason"] for line in lines if line.strip())
    by_status = {}
    for summary in upserted(os.path.join(folder, "trip-summaries.ndjson")):
        by_status.setdefault(summary["status"], []).append(summary)
    return {
        "arrivals": sorted(arrivals.items(), key=lambda item: (-item[1], item[0] is None, item[0] or "")),
        "delay": [(statistics.median(delays) if delays else None, len(scheduled))],
        "per_hour": sorted(((t, h, n) for (t, h), n in per_hour.items()), key=lambda row: (row[1], row[0])),
        "dead_letters": sorted(reasons.items(), key=lambda item: (-item[1], item[0])),
        "summaries": [(status, len(trips), round(sum(t["distanceMeters"] for t in trips) / 1000, 3),
                       statistics.median(t["durationSeconds"] for t in trips) / 60)
                      for status, trips in sorted(by_status.items())],
    }


def same(got, want):
    """Rows equal, floats within 1e-6."""
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if isinstance(x, float) or isinstance(y, float):
                if x is None or y is None or abs(x - y) > 1e-6:
                    return False
            elif x != y:
                return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="a tripstream replay output folder (events.ndjson, eta.ndjson, …)")
    parser.add_argument("--check", action="store_true", help="fail unless DuckDB agrees with plain Python")
    parser.add_argument("--rows", type=int, default=20, help="rows printed per table (default 20)")
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(args.output, "events.ndjson")):
        sys.exit(f"error: {args.output}: not a replay output folder (no events.ndjson in it)")
    results = run_queries(args.output)
    for name, (columns, rows) in results.items():
        print_table(name.replace("_", "-"), columns, rows, args.rows)
    if args.check:
        expected = recompute(args.output)
        problems = [f"{name}: DuckDB {rows[:3]}…, Python {expected[name][:3]}…"
                    for name, (_, rows) in results.items() if not same(rows, expected[name])]
        if not results["arrivals"][1] or not results["per_hour"][1] or not results["summaries"][1]:
            problems.append("no arrivals, events or trip summaries: the fixture should have all three")
        if problems:
            print("check failed: " + "; ".join(problems), file=sys.stderr)
            sys.exit(1)
        print("check: DuckDB and plain Python agree on every figure")


if __name__ == "__main__":
    main()
