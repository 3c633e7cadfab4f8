#!/usr/bin/env python3
"""An analyst's client: DuckDB over a TripStream run's events (a `tripstream replay` output
directory, or an events NDJSON file). Three documented queries:

  arrivals    arrivals per trip destination (tag/externalId)
  delay       median arrival delay in minutes against scheduledArrivalAt (negative: early)
  per-hour    events per type per hour of event time

Events are upserted by _id first, as a consumer would: the latest publication of an _id wins and a
retraction removes it. `--check` recomputes every figure with plain Python over the same file and
fails unless DuckDB agrees (CI runs it on a simulated fleet).

    python3 analysts/queries.py OUT_DIR [--check]
"""
import argparse
import json
import os
import statistics
import sys
from collections import Counter, OrderedDict
from datetime import datetime

import duckdb

# Upserted events: the last line of each _id, dropped when that line is a retraction.
UPSERTED = """
CREATE TEMP TABLE events AS
WITH lines AS (
    SELECT json, row_number() OVER () AS line FROM read_ndjson_objects(?)
), latest AS (
    SELECT json FROM lines
    QUALIFY row_number() OVER (PARTITION BY json->>'_id' ORDER BY line DESC) = 1
)
SELECT json->>'_id' AS id, json->>'type' AS type, CAST(json->>'createdAt' AS TIMESTAMP) AS created_at,
       json->'trip' AS trip
FROM latest WHERE coalesce(CAST(json->>'retracted' AS BOOLEAN), false) = false
"""

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
        WHERE type = 'user.arrived_at_trip_destination' AND trip->>'scheduledArrivalAt' IS NOT NULL""",
    per_hour="""
        SELECT type, date_trunc('hour', created_at) AS hour, count(*) AS events
        FROM events GROUP BY type, hour ORDER BY hour, type""",
)


def events_path(path):
    return os.path.join(path, "events.ndjson") if os.path.isdir(path) else path


def run_queries(path):
    connection = duckdb.connect()
    connection.execute("SET preserve_insertion_order = true")
    connection.execute("SET threads = 1")  # row_number() OVER () in file order
    connection.execute(UPSERTED, [path])
    return {name: connection.execute(sql).fetchall() for name, sql in QUERIES.items()}


def parse_time(text):
    return datetime.strptime(text.replace("Z", ""), "%Y-%m-%dT%H:%M:%S.%f")


def recompute(path):
    """The same figures with plain Python, independently of DuckDB."""
    latest = OrderedDict()
    with open(path) as lines:
        for line in lines:
            if line.strip():
                event = json.loads(line)
                latest.pop(event["_id"], None)
                latest[event["_id"]] = event
    events = [e for e in latest.values() if not e.get("retracted", False)]
    arrived = [e for e in events if e["type"] == "user.arrived_at_trip_destination"]
    arrivals = Counter(f'{e["trip"]["destinationGeofenceTag"]}/{e["trip"]["destinationGeofenceExternalId"]}' for e in arrived)
    scheduled = [e for e in arrived if e["trip"].get("scheduledArrivalAt")]
    delays = [(parse_time(e["trip"]["arrivedAt"]) - parse_time(e["trip"]["scheduledArrivalAt"])).total_seconds() / 60
              for e in scheduled]
    per_hour = Counter((e["type"], parse_time(e["createdAt"]).replace(minute=0, second=0, microsecond=0)) for e in events)
    return {
        "arrivals": sorted(arrivals.items(), key=lambda item: (-item[1], item[0])),
        "delay": [(statistics.median(delays) if delays else None, len(scheduled))],
        "per_hour": sorted(((t, h, n) for (t, h), n in per_hour.items()), key=lambda row: (row[1], row[0])),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="a tripstream replay output directory, or an events NDJSON file")
    parser.add_argument("--check", action="store_true", help="fail unless DuckDB agrees with plain Python")
    args = parser.parse_args()
    path = events_path(args.output)
    results = run_queries(path)
    arrivals, delay, per_hour = results["arrivals"], results["delay"][0], results["per_hour"]
    print(f"arrivals        {sum(n for _, n in arrivals)} at {len(arrivals)} destinations; most: "
          + ", ".join(f"{d} {n}" for d, n in arrivals[:3]))
    median = "none" if delay[0] is None else f"{delay[0]:+.1f} min"
    print(f"delay           median {median} against scheduledArrivalAt ({delay[1]} arrivals with a schedule)")
    hours = sorted({hour for _, hour, _ in per_hour})
    print(f"per hour        {sum(n for _, _, n in per_hour)} events over {len(hours)} hours, {len({t for t, _, _ in per_hour})} types")
    if args.check:
        expected = recompute(path)
        problems = []
        if arrivals != expected["arrivals"]:
            problems.append("arrivals per destination differ")
        (want_median, want_count), (got_median, got_count) = expected["delay"][0], delay
        if want_count != got_count or (want_median is None) != (got_median is None) or (
                want_median is not None and abs(want_median - got_median) > 1e-6):
            problems.append(f"median delay: duckdb {delay}, python {expected['delay'][0]}")
        if per_hour != expected["per_hour"]:
            problems.append("events per type per hour differ")
        if not arrivals or not per_hour:
            problems.append("no arrivals or no events: the fixture should have both")
        if problems:
            print("check failed: " + "; ".join(problems), file=sys.stderr)
            sys.exit(1)
        print("check           DuckDB and plain Python agree on every figure")


if __name__ == "__main__":
    main()
