#!/usr/bin/env bash
# `make bench`: builds release and runs bench/run.py, which measures everything in one run and prints it:
# timeline.json against nginx with wrk, page latency against record size, import, start and memory.
# Writes .build/bench/results.json, docs/benchmarks.md and docs/latency-vs-record-size.svg.
# Also the HTTPKit-only comparison (trivial route, static file) with `bench/http/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if ! command -v wrk >/dev/null || ! [[ -x /usr/sbin/nginx ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq wrk nginx-light >/dev/null
fi
scripts/build-release.sh hreaderd hreaderd-bench
/usr/bin/python3 bench/run.py "$@"
