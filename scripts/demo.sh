#!/usr/bin/env bash
# The main job: TripStream on its embedded broker with a simulated fleet, events shown live as a
# notification service sees them. Extra arguments go to `tripstream demo` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product tripstream >&2
exec .build/release/tripstream demo "$@"
