#!/usr/bin/env bash
# Makes the pictures of README and docs/console-and-tracking.md, docs/console.png and docs/tracking.png: a demo fleet seen by the console and by one
# customer's tracking page, in headless Chromium (the same run as CI's .ci/console-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product tripstream
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
CONSOLE_SCREENSHOTS="$shots" .ci/console-check.sh .build/debug/tripstream
mkdir -p docs
cp "$shots/console.png" docs/console.png
cp "$shots/tracking.png" docs/tracking.png
echo "wrote docs/console.png and docs/tracking.png" >&2
