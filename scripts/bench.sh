#!/usr/bin/env bash
# `make bench`: builds release and runs bench/run.py, which measures everything in one run and prints it:
# timeline.json against nginx with wrk, page latency against record size, import, start and memory.
# Writes .build/bench/results.json, docs/benchmarks.md and docs/latency-vs-record-size.svg.
# Also the HTTPKit-only comparison (trivial route, static file) with `bench/http/run.sh`.
# Missing wrk or nginx: installed with apt-get as root; as another user, the command to run is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-browser-deps.sh  # the web app figure (bench/webapp.py) drives headless Chromium
if ! command -v wrk >/dev/null || ! [[ -x /usr/sbin/nginx ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "the benchmark needs wrk and nginx; install them (as root), then run this again:" >&2
        echo "    sudo apt-get install wrk nginx-light" >&2
        exit 1
    fi
    apt-get update -qq
    # No service start: bench/run.py runs its own nginx, on its own port.
    DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq wrk nginx-light >/dev/null
fi
scripts/build-release.sh hreaderd hreaderd-bench generate-records hreaderd-library-pack nio-ceiling
scripts/build-library-pack.sh
/usr/bin/python3 bench/run.py "$@"
