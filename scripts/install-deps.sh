#!/usr/bin/env bash
# Installs what TripStream needs on Debian 12, only what is missing: the C libraries it links
# (librdkafka, liblz4, librocksdb), the independent Kafka peers the tests use (kcat, Debian's
# python3-confluent-kafka, Go + Sarama), Python's jsonschema for the schema checks, DuckDB (Python and its
# command line) for the analysts' SQL, and Prometheus (promtool) and kubernetes-validate for the operations checks.
# With --build: only what building and running tripstream needs (scripts/demo.sh), without the test tools,
# whose Python imports alone took seconds.
set -euo pipefail

packages=(librdkafka-dev liblz4-dev librocksdb-dev lz4 pkg-config kcat python3 python3-jsonschema python3-confluent-kafka
          golang-go golang-github-shopify-sarama-dev libzstd-dev curl libssl-dev libsqlite3-dev libmicrohttpd-dev
          prometheus chromium chromium-driver)  # Prometheus 2.42 and promtool (.ci/prometheus-check.sh); the console's browser check (.ci/console-check.sh)
build_only=false
if [ "${1:-}" = "--build" ]; then
    build_only=true
    packages=(librdkafka-dev liblz4-dev librocksdb-dev pkg-config libzstd-dev libssl-dev libsqlite3-dev libmicrohttpd-dev)
fi
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if $build_only; then
    command -v swift >/dev/null || { echo "error: no Swift toolchain on PATH (Swift 6 is needed)" >&2; exit 1; }
    exit 0
fi

# The python3 first on PATH (it may not be Debian's) needs jsonschema for the Swift schema tests.
if ! python3 -c 'import jsonschema, referencing' 2>/dev/null; then
    echo "installing jsonschema for $(command -v python3)" >&2
    python3 -m pip install --quiet 'jsonschema>=4.18'
fi

# DuckDB (PyPI) for the analysts' queries (analysts/queries.py).
if ! python3 -c 'import duckdb' 2>/dev/null; then
    echo "installing duckdb for $(command -v python3)" >&2
    python3 -m pip install --quiet duckdb || python3 -m pip install --quiet --break-system-packages duckdb
fi

# DuckDB's command line (PyPI's duckdb-cli) for the docs' SQL, run as a user pastes it (.ci/sql-check.sh).
if ! command -v duckdb >/dev/null; then
    echo "installing duckdb-cli for $(command -v python3)" >&2
    python3 -m pip install --quiet 'duckdb-cli>=1.4,<2' \
        || python3 -m pip install --quiet --break-system-packages 'duckdb-cli>=1.4,<2'
    if command -v pyenv >/dev/null; then pyenv rehash; fi  # its shims find the new command
fi

# kubernetes-validate (PyPI, with its Kubernetes schemas offline) for .ci/kubernetes-check.sh.
if ! command -v kubernetes-validate >/dev/null; then
    echo "installing kubernetes-validate for $(command -v python3)" >&2
    python3 -m pip install --quiet 'kubernetes-validate==1.37.0' \
        || python3 -m pip install --quiet --break-system-packages 'kubernetes-validate==1.37.0'
fi
# Selenium (PyPI) drives Debian's chromium-driver in the console's browser check.
if ! python3 -c 'import selenium' 2>/dev/null; then
    echo "installing selenium for $(command -v python3)" >&2
    python3 -m pip install --quiet selenium || python3 -m pip install --quiet --break-system-packages selenium
fi

command -v swift >/dev/null || { echo "error: no Swift toolchain on PATH (Swift 6 is needed)" >&2; exit 1; }
