#!/usr/bin/env bash
# Two or more builds' `tripstream replay` over the same files, alternated run by run so that a noisy
# machine weighs on each alike: per build, the median of the fixes/s it prints and of its CPU time
# (user + system, from /usr/bin/time), every run listed. The files are a bench work directory's
# (`tripstream-bench --work-dir DIR --keep` leaves geofences.ndjson, commands.ndjson and fixes.ndjson there).
# `--with "ARGS"` after a build gives that build's replays more options, so one build can be set against
# itself (for instance with and without `--eta-model FILE`).
#
#   bench/replay-ab.sh --dir DIR [--threads N] [--rounds K] BIN [--with "ARGS"] BIN [--with "ARGS"]...
set -euo pipefail

dir="" threads=2 rounds=5 builds=() extras=()
while (($#)); do
    case "$1" in
        --dir) dir="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --with) ((${#builds[@]})) || { echo "--with follows a build" >&2; exit 2; }
                extras[${#builds[@]} - 1]="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) builds+=("$1"); extras+=(""); shift ;;
    esac
done
[[ -n "$dir" && -f "$dir/fixes.ndjson" && -f "$dir/geofences.ndjson" ]] \
    || { echo "--dir DIR: a bench work directory with fixes.ndjson and geofences.ndjson" >&2; exit 2; }
((${#builds[@]} >= 1)) || { echo "give the builds to compare (executables)" >&2; exit 2; }
for bin in "${builds[@]}"; do [[ -x "$bin" ]] || { echo "$bin: not an executable" >&2; exit 2; }; done
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 2; }
commands=()
[[ -f "$dir/commands.ndjson" ]] && commands=(--commands "$dir/commands.ndjson")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A rates cpu
for ((round = 1; round <= rounds; round++)); do
    for index in "${!builds[@]}"; do
        bin=${builds[$index]}
        read -r -a more <<<"${extras[$index]}"
        out=$({ /usr/bin/time -f "cpu %U %S" "$bin" replay --geofences "$dir/geofences.ndjson" "${commands[@]}" \
            --fixes "$dir/fixes.ndjson" --out "$work/out-$index" --threads "$threads" "${more[@]}"; } 2>&1)
        rates[$index]+=" $(awk '/^throughput/ {print $2}' <<<"$out")"
        cpu[$index]+=" $(awk '/^cpu / {print $2 + $3}' <<<"$out")"
    done
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for index in "${!builds[@]}"; do
    echo "${builds[$index]}${extras[$index]:+ ${extras[$index]}}: $(median "${rates[$index]}") fixes/s, $(median "${cpu[$index]}") CPU s" \
        "(medians of $rounds on $threads threads; fixes/s:${rates[$index]}; CPU s:${cpu[$index]})"
done
