"""NDJSON on stdin -> `key<TAB>value` lines for kcat -K'\t' (values are compact JSON, no tabs)."""
import json
import sys

kind = sys.argv[1]
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    record = json.loads(line)
    key = f"{record['tag']}/{record['externalId']}" if kind == "geofence" else record["userId"]
    sys.stdout.write(f"{key}\t{line}\n")
