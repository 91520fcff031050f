#!/usr/bin/env bash
# libFuzzer (with the address sanitizer) on hreaderd's parsers: the record parser, the form and JSON
# post bodies, the query string, the Atom patient feed, FHIR R4 input, C-CDA documents (libxml2), search queries (against FTS4). Builds Fuzz/ (its own package) and runs each target for a bounded time,
# starting from the seeds in Fuzz/Corpus/TARGET; the corpus grows in the scratch folder, never in git.
#
#   scripts/fuzz.sh [--short | --long] [TARGET…]     targets: record form json query feed fhir ccda search (default: all)
#
# --short (scripts/test.sh): 15 s a target. --long: 10 minutes a target. FUZZ_SECONDS overrides both.
# Prints executions and corpus size per target. A crash leaves its input in SCRATCH/artifacts/TARGET/
# and fails the run; replay it with HREADERD_FUZZ_TARGET=TARGET SCRATCH/release/BINARY FILE (BINARY:
# hreaderd-fuzz-records for record, fhir and ccda, which links no SQLCipher; hreaderd-fuzz for the rest),
# then make it a regression test in the module's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=15
targets=()
for arg in "$@"; do
    case "$arg" in
        --short) seconds=15 ;;
        --long) seconds=600 ;;
        record|form|json|query|feed|fhir|ccda|search) targets+=("$arg") ;;
        *) echo "usage: scripts/fuzz.sh [--short | --long] [record|form|json|query|feed|fhir|ccda|search]…" >&2; exit 2 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(record form json query feed fhir ccda search)
seconds=${FUZZ_SECONDS:-$seconds}
scratch="$PWD/${FUZZ_SCRATCH:-.build-fuzz}"

swift build -c release --package-path Fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

failed=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target"
    artifacts="$scratch/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    cp Fuzz/Corpus/"$target"/* "$corpus"/
    case "$target" in
        record|fhir|ccda) max_len=16384; bin="$scratch/release/hreaderd-fuzz-records" ;;
        *) max_len=4096; bin="$scratch/release/hreaderd-fuzz" ;;
    esac
    log="$scratch/fuzz-$target.log"
    set +e
    HREADERD_FUZZ_TARGET="$target" ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" "$bin" \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
    status=$?
    set -e
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    files=$(find "$corpus" -type f | wc -l)
    seeds=$(find Fuzz/Corpus/"$target" -type f | wc -l)
    echo "fuzz $target: ${executions:-?} executions in ${seconds} s (${rate:-?}/s), corpus ${files} inputs (${seeds} seeds), exit ${status}"
    if [ "$status" -ne 0 ]; then
        failed=1
        tail -40 "$log"
        echo "fuzz $target: FAILED; crashing input(s):" "$artifacts"/*
    fi
done
exit $failed
