#!/usr/bin/env bash
# A crowd of slow clients against the console and run's metrics port (bench/slow-clients.py): 200 clients per
# server trickle request heads, one header line every 5 s, for 40 s, while `GET /` and a valid
# `/api/track/<token>` on the console and `GET /health` on the metrics port must each answer below 500 within
# 2 s in every try (a round every 4 s once the crowd gathered). About 55 s: the demo and run start side by side
# (~12 s), then the attack.
# Usage: .ci/slow-clients-check.sh path/to/tripstream
set -euo pipefail
cd "$(dirname "$0")/.."
tripstream=${1:-.build/debug/tripstream}
python3 bench/slow-clients.py --tripstream "$tripstream" --clients 200 --trickle 5 --attack 40 --try-every 4 \
    --deadline 2 --check
