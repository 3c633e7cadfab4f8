"""Runs every panel query of Grafana dashboards against a Prometheus and fails if any returns no
data (no series, or only NaN), so that no panel of the dashboard is silently empty.

Usage: python3 .ci/dashboard_queries.py --api http://127.0.0.1:9090/api/v1 deploy/grafana/*.json
"""
import argparse
import json
import math
import sys
import urllib.parse
import urllib.request


def panels(container):
    for panel in container.get("panels", []):
        yield panel
        yield from panels(panel)  # a collapsed row holds its panels


def query(api, expr):
    url = f"{api}/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as response:
        answer = json.load(response)
    if answer.get("status") != "success":
        raise ValueError(answer.get("error", "query failed"))
    result = answer["data"]["result"]
    return [sample["value"][1] for sample in result]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", required=True, help="Prometheus' API base, e.g. http://127.0.0.1:9090/api/v1")
    parser.add_argument("dashboards", nargs="+")
    args = parser.parse_args()
    empty, checked = [], 0
    for path in args.dashboards:
        with open(path) as file:
            dashboard = json.load(file)
        for panel in panels(dashboard):
            for target in panel.get("targets", []):
                expr = target.get("expr")
                if not expr:
                    continue
                checked += 1
                try:
                    values = query(args.api, expr)
                except Exception as error:  # a query Prometheus refuses is as bad as an empty one
                    empty.append(f"{path}: {panel['title']!r}: {expr}: {error}")
                    continue
                if not any(not math.isnan(float(value)) for value in values):
                    empty.append(f"{path}: {panel['title']!r}: {expr}: " + ("only NaN" if values else "no data"))
    for line in empty:
        print(line, file=sys.stderr)
    print(f"{checked} panel queries, {checked - len(empty)} with data", file=sys.stderr)
    if not checked:
        sys.exit("no panel queries found")
    sys.exit(1 if empty else 0)


if __name__ == "__main__":
    main()
