#!/usr/bin/env bash
# The main job: TripStream on its embedded broker with a live fleet, the console and the events a
# notification service sees, until Ctrl-C. Extra arguments go to `tripstream demo` (see --help, docs/demo.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
. scripts/lib/release-build.sh
build_release_tripstream
exec .build/release/tripstream demo "$@"
