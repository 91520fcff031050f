#!/usr/bin/env bash
# Runs every test: installs what is missing, builds (tests and executables), runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# One test at a time: many tests run real processes and real sockets with short limits, and on a small
# machine tests run side by side starve each other (a 200 ms head timeout is not met under that load).
swift test --skip-build --no-parallel "$@"
# The web app's pure modules (lane layout, formatting, window navigation, chart geometry) with node --test.
scripts/test-webapp.sh
# Reliability, short versions (a few minutes): libFuzzer on the parsers, then SIGKILL chaos, load, and a
# full and read-only state directory against the real daemon (scripts/reliability.sh --long for the long ones).
scripts/fuzz.sh --short
/usr/bin/python3 scripts/reliability.py --short
# The web app in real headless Chromium against the real daemon (built above as .build/debug/hreaderd).
scripts/install-browser-deps.sh
/usr/bin/python3 Tests/browser/run_tests.py
