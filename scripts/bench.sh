#!/usr/bin/env bash
# Runs the benchmarks and prints their figures: the store and import (hreaderd-bench), then HTTPKit
# against nginx with wrk (bench/http/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product hreaderd-bench
mkdir -p .build/bench
.build/release/hreaderd-bench --json .build/bench/store.json
if [[ -x bench/http/run.sh ]]; then bench/http/run.sh; fi
