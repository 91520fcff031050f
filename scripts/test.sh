#!/usr/bin/env bash
# Runs every test: installs what is missing, builds (tests and executables), runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The offline validators' dependencies (python3-lxml; fhir.resources in .build/ips-venv), for the export tests.
scripts/install-validators.sh >/dev/null
swift build --build-tests
# One test at a time: many tests run real processes and real sockets with short limits, and on a small
# machine tests run side by side starve each other (a 200 ms head timeout is not met under that load).
swift test --skip-build --no-parallel "$@"
# The web app's pure modules (lane layout, formatting, window navigation, chart geometry) with node --test.
scripts/test-webapp.sh
# The IPS and the CCD of the shared sample people and the demo family: both offline validators, and each
# document read back into an empty store (scripts/validate-exports.py; --long, make validate-exports: 20 more).
/usr/bin/python3 scripts/validate-exports.py
# Reliability, short versions (a few minutes): libFuzzer on the parsers, then SIGKILL chaos, load, and a
# full and read-only state directory against the real daemon (scripts/reliability.sh --long for the long ones).
scripts/fuzz.sh --short
/usr/bin/python3 scripts/reliability.py --short
# The web app in real headless Chromium against the real daemon (built above as .build/debug/hreaderd).
scripts/install-browser-deps.sh
/usr/bin/python3 Tests/browser/run_tests.py
