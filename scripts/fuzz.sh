#!/usr/bin/env bash
# Fuzzes every decoder of untrusted bytes (docs/fuzzing.md): the JSON record decoders, the
# binary state decoders and the LZ4 frame decoder. A crash, a trap, a sanitizer report or a broken
# round trip fails the run and leaves the input in the artifacts directory.
#
#   scripts/fuzz.sh                     short run (CI): the built-in seeded mutation harness,
#                                       60,000 inputs per target, seed 1 (same inputs every run)
#   scripts/fuzz.sh --inputs N [--seed S] [--targets a,b]
#                                       a longer harness run
#   scripts/fuzz.sh --libfuzzer [--runs N | --seconds S] [--seed S] [--targets a,b]
#                                       coverage-guided libFuzzer with AddressSanitizer; each target's
#                                       corpus grows in .build/fuzz-corpus/TARGET across runs
#
# FUZZ_ARTIFACTS (default .build/fuzz-artifacts) receives crashing inputs; replay one with
# `.build/debug/tripstream-fuzz replay TARGET FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."

engine=harness
inputs=60000
runs=""
seconds=""
seed=1
targets=all
while (($#)); do
    case "$1" in
        --libfuzzer) engine=libfuzzer ;;
        --inputs) inputs="$2"; shift ;;
        --runs) runs="$2"; shift ;;
        --seconds) seconds="$2"; shift ;;
        --seed) seed="$2"; shift ;;
        --targets) targets="$2"; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fuzz.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

scripts/install-deps.sh
artifacts=${FUZZ_ARTIFACTS:-.build/fuzz-artifacts}
mkdir -p "$artifacts"

# The plain build: the harness, and (for libFuzzer) the seed corpora and dictionaries.
swift build --product tripstream-fuzz
harness=.build/debug/tripstream-fuzz

if [ "$engine" = harness ]; then
    args=(run --targets "$targets" --seed "$seed" --artifacts "$artifacts")
    if [ -n "$seconds" ]; then args+=(--seconds "$seconds"); else args+=(--inputs "$inputs"); fi
    exec "$harness" "${args[@]}"
fi

# libFuzzer: the same targets built with -sanitize=fuzzer,address in their own build directory.
# The debug configuration plus -O: optimized, but with the overflow and bounds checks that the
# release configuration's -Ounchecked would remove.
if [ -z "$runs" ] && [ -z "$seconds" ]; then runs=1000000; fi
swift build -c debug --build-path .build/fuzz --product tripstream-fuzz \
    -Xswiftc -O -Xswiftc -sanitize=fuzzer,address -Xswiftc -DTRIPSTREAM_LIBFUZZER 2>&1 |
    { grep -v "Cannot export local symbol" || true; } >&2
fuzzer=.build/fuzz/debug/tripstream-fuzz

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$harness" seeds --out "$work/seeds" >&2
corpora=${FUZZ_CORPUS:-.build/fuzz-corpus}

if [ "$targets" = all ]; then targets=$("$harness" list | cut -f1 | paste -sd, -); fi
failed=0
total=0
printf '%-13s %12s %9s %9s  %s\n' target inputs seconds inputs/s result
for target in ${targets//,/ }; do
    case "$target" in
        fix|trip-command|geofence|event|dead-letter) dict=json.dict; max_len=4096 ;;
        *) dict=binary.dict; max_len=8192 ;;
    esac
    mkdir -p "$corpora/$target"
    limit=(-runs="$runs")
    [ -n "$seconds" ] && limit=(-max_total_time="$seconds")
    log="$work/$target.log"
    start=$(date +%s.%N)
    status=ok
    # New inputs go to the first corpus directory; the seeds are only read.
    TRIPSTREAM_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no "$fuzzer" "${limit[@]}" -seed="$seed" \
        -dict="$work/seeds/$dict" -max_len=$max_len -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$artifacts/$target-" "$corpora/$target" "$work/seeds/$target" >"$log" 2>&1 || status=FAILED
    elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    count=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    count=${count:-0}
    total=$((total + count))
    printf '%-13s %12s %9.1f %9.0f  %s\n' "$target" "$count" "$elapsed" "$(awk -v n="$count" -v t="$elapsed" 'BEGIN { print n / t }')" "$status"
    if [ "$status" != ok ]; then
        failed=1
        grep -E "ERROR|Fatal error|runtime failure|property violated|Test unit written|SUMMARY" "$log" | head -20 >&2
    fi
done
echo "libFuzzer: $total inputs in all"
exit $failed
