#!/usr/bin/env bash
# Every ```sql block of README.md and docs/**/*.md runs as printed in DuckDB's command line, with the views
# of analysts/views.sql over a replay's output folder (issue 41: README's SQL failed when pasted). A block
# fails the check on any error, or when it returns no row (a JSON path that names nothing gives NULLs, not
# an error, so an empty answer is how a wrong name shows).
# Usage: .ci/sql-check.sh [OUT_DIR]
#   OUT_DIR: a replay output folder; without it, samples/porto is replayed into a temporary one with
#   $TRIPSTREAM (default .build/debug/tripstream).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "sql check: $*" >&2; exit 1; }
command -v duckdb >/dev/null || fail "no duckdb command line (scripts/install-deps.sh installs duckdb-cli)"

out=${1:-}
if [ -z "$out" ]; then
    "${TRIPSTREAM:-.build/debug/tripstream}" replay --quiet --geofences samples/porto/geofences.ndjson \
        --commands samples/porto/commands.ndjson --fixes samples/porto/fixes.ndjson.lz4 --out "$work/porto"
    out=$work/porto
fi

# One file per block, named after the page and the line its fence opens on.
mkdir "$work/blocks"
python3 - "$work/blocks" README.md docs <<'PY'
import glob, os, sys
target, pages = sys.argv[1], [sys.argv[2]] + sorted(glob.glob(os.path.join(sys.argv[3], "**", "*.md"), recursive=True))
for page in pages:
    block, start = None, 0
    for number, line in enumerate(open(page, encoding="utf-8"), 1):
        if block is None and line.strip() == "```sql":
            block, start = [], number
        elif block is not None and line.startswith("```"):
            name = page.replace("/", "_").replace(".md", "")
            with open(os.path.join(target, f"{name}-{start:05d}.sql"), "w") as out:
                out.write("".join(block))
            block = None
        elif block is not None:
            block.append(line)
PY

count=0
for block in "$work"/blocks/*.sql; do
    [ -e "$block" ] || break
    where=$(basename "$block" .sql | sed 's/_/\//; s/-0*\([0-9]*\)$/.md, line \1/')
    # As a user pastes it into `duckdb -init analysts/views.sql`; -csv only makes the rows countable.
    if ! TRIPSTREAM_OUT="$out" duckdb -init analysts/views.sql -bail -csv -noheader <"$block" >"$work/rows.txt" 2>"$work/error.txt"; then
        fail "the sql block of $where fails:
$(cat "$block")
$(grep -v '^-- Loading resources' "$work/error.txt" | sed 's/\x1b\[[0-9;]*m//g')"
    fi
    [ -s "$work/rows.txt" ] || fail "the sql block of $where returns no row:
$(cat "$block")"
    count=$((count + 1))
done
[ "$count" -gt 0 ] || fail "no sql block found in README.md or docs/"
echo "sql check: the $count sql blocks of README.md and docs/ run as printed over $(basename "$out")/" >&2
