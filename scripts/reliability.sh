#!/usr/bin/env bash
# Every reliability run, short or long: libFuzzer on the parsers, then the chaos (SIGKILL), load and
# disk (full, read-only) runs against the real daemon. Prints the figures of each run.
#
#   scripts/reliability.sh [--short | --long]      (--short is what scripts/test.sh runs)
#
# --long: 10 minutes of fuzzing a target, 200 kills, 64 clients for 5 minutes (about an hour in all).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---short}
case "$mode" in --short|--long) ;; *) echo "usage: scripts/reliability.sh [--short | --long]" >&2; exit 2 ;; esac
swift build --product hreaderd
swift build --product hreaderd-storecheck
swift build --product rhex-sandbox
swift build --product generate-records
scripts/fuzz.sh "$mode"
/usr/bin/python3 scripts/reliability.py "$mode"
