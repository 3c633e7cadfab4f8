#!/usr/bin/env bash
# The docs say what is true (issue 41): every link and repository path in README.md and docs/ resolves
# (.ci/docs_links.py), README stays a front door (at most 300 lines, `tripstream run --brokers` in its
# first 150), and every list of the files `replay --out` writes names exactly the files a replay wrote.
# Usage: .ci/docs-check.sh [OUT_DIR]
#   OUT_DIR: a replay output folder; without it, samples/porto is replayed into a temporary one with
#   $TRIPSTREAM (default .build/debug/tripstream).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "docs check: $*" >&2; exit 1; }

python3 .ci/docs_links.py

lines=$(wc -l <README.md)
[ "$lines" -le 300 ] || fail "README.md has $lines lines: a front door has at most 300 (move the rest to docs/)"
head -150 README.md | grep -q 'tripstream run --brokers' || fail "README.md's first 150 lines lack 'tripstream run --brokers'"

out=${1:-}
if [ -z "$out" ]; then
    "${TRIPSTREAM:-.build/debug/tripstream}" replay --quiet --geofences samples/porto/geofences.ndjson \
        --commands samples/porto/commands.ndjson --fixes samples/porto/fixes.ndjson.lz4 --out "$work/porto"
    out=$work/porto
fi
python3 - "$out" README.md docs/replay.md docs/analysts.md <<'PY'
import os, re, sys
out, pages = sys.argv[1], sys.argv[2:]
written = sorted(name[:-len(".ndjson")] for name in os.listdir(out) if name.endswith(".ndjson") and not name.startswith("."))
# "writes `events`, `eta`, `dead-letters` and `trip-summaries`" or "writes `out/events.ndjson`, … and `out/…`"
item = r"`(?:out/)?([\w-]+)(?:\.ndjson)?`"
lists = []
for page in pages:
    text = re.sub(r"\s+", " ", open(page, encoding="utf-8").read())
    for match in re.finditer(r"writes ((?:" + item + r"(?:,? and |, ))+" + item + ")", text):
        lists.append((page, sorted(set(re.findall(item, match.group(1))))))
if len(lists) < 3:
    sys.exit(f"docs check: found {len(lists)} lists of replay outputs in {', '.join(pages)}, expected at least 3")
wrong = [(page, names) for page, names in lists if names != written]
for page, names in wrong:
    print(f"docs check: {page} says replay writes {names}; it wrote {written}", file=sys.stderr)
if wrong:
    sys.exit(1)
print(f"docs check: {len(lists)} lists of replay outputs name what replay wrote: {', '.join(written)}", file=sys.stderr)
PY
