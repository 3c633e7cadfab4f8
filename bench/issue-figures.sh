#!/usr/bin/env bash
# The pipeline issue's figures for two builds, alternated in one session so their ratios come from
# the same machine state: the replay path against JSONDecoder (sparse and dense city), the spatial
# lookup sweep, and the Kafka pipeline (throughput next to kcat at --threads 1 and 2, latency at
# half load, restore). Prints each command's own summary lines, labelled by build and round. BIN is a
# build's `tripstream-bench` (or its `tripstream`, beside which it lies; a build older than
# tripstream-bench: its `tripstream bench`).
#
#   bench/issue-figures.sh --after .build/release/tripstream-bench --before /path/to/old/tripstream [--rounds 2]
set -euo pipefail

after="" before="" rounds=2 work="${TMPDIR:-/tmp}/tripstream-issue-figures-$$"
while (($#)); do
    case "$1" in
        --after) after="$2"; shift 2 ;;
        --before) before="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -x "$after" ]] || { echo "--after BIN: the build measured (an executable)" >&2; exit 2; }
builds=("after=$after")
[[ -n "$before" ]] && builds+=("before=$before")
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# The bench of the build BIN: tripstream-bench beside it, or an older build's `tripstream bench`.
bench_of() {  # BIN -> the command, one word a line
    local bin=$1 dir
    dir=$(dirname "$bin")
    if [[ "$(basename "$bin")" == tripstream-bench ]]; then echo "$bin"
    elif [[ -x "$dir/tripstream-bench" ]]; then echo "$dir/tripstream-bench"
    else printf '%s\nbench\n' "$bin"; fi
}

measure() {  # label binary args...
    local label=$1 bin=$2; shift 2
    local -a bench
    mapfile -t bench < <(bench_of "$bin")
    echo "## $label: tripstream-bench $*"
    "${bench[@]}" "$@" --work-dir "$work/bench" 2>&1 | grep -E '^(jsondecoder|replay path|ratio|events|lookup|pipeline|kcat|commits|latency|committed|restore) ' || true
}

for ((round = 1; round <= rounds; round++)); do
    # Alternate which build goes first: the machine drifts within a round too.
    ordered=("${builds[@]}")
    if ((round % 2 == 0)) && ((${#builds[@]} > 1)); then ordered=("${builds[1]}" "${builds[0]}"); fi
    for build in "${ordered[@]}"; do
        label="${build%%=*} round $round" bin="${build#*=}"
        uptime
        measure "$label" "$bin" --runs 3 --stage jsondecoder --stage replay-path
        measure "$label" "$bin" --dense-city --runs 3 --stage jsondecoder --stage replay-path
        measure "$label" "$bin" --lookup-sweep
        measure "$label" "$bin" -u 20000 --geofences 2000 --runs 1 --stage decode --pipeline --pipeline-threads 1,2
    done
done
