#!/usr/bin/env bash
# Bounded growth: fold 1,000,000 simulated users (a fix every 15 s each, 30 min replay horizon) for
# 10 minutes of wall time and print resident memory, heap and history on disk every 30 s; then load
# a geofence table of 1,000,000 circles and 10,000 polygons and report its memory.
# Usage: bench/soak.sh [users] [minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product tripstream-bench >&2
.build/release/tripstream-bench --soak --soak-users "${1:-1000000}" --soak-minutes "${2:-10}" --work-dir "${TMPDIR:-/tmp}/tripstream-soak"
.build/release/tripstream-bench --geofence-table
