#!/usr/bin/env bash
# The release build of one or more products, as installed and benchmarked:
#   scripts/build-release.sh hreaderd [hreaderd-bench …]      -> .build/release/PRODUCT
#   scripts/build-release.sh hreaderd-library-pack            -> the library's pack tool (scripts/build-library-pack.sh)
# --static-swift-stdlib links the Swift runtime and Foundation into the binary (one file to install, and
# no relocations of shared libraries dirtying pages: about 6 MB less resident memory). lld with packed
# relative relocations (DT_RELR, glibc 2.36+) shrinks the relocation table the loader reads at start from
# 2.3 MB to 19 kB: about 3 MB less again. Every product is built with the same flags, so that switching
# between them never rebuilds the others.
#
# Code the daemon runs is laid out together: every function in a section of its own (-function-sections)
# and those that scripts/link/hreaderd.order names first (scripts/link/make-order-file.py writes it). The
# kernel maps code 64 KiB around each page first run, and run code scattered across 14 MB of text was most
# of the idle daemon's memory. Nothing is exported (scripts/link/executable.exports): the static runtime's
# -export-dynamic made a 1.2 MB dynamic symbol table the loader read at every start. Idle, measured the same
# way just after each build: 20.3 -> 15.3 MiB locked, 25.5 -> 20.1 MiB unlocked. SwiftPM does not compile
# again for a change of these flags: after one, remove .build/*/release once.
#
# Released code runs without the Swift runtime's exclusivity checks (-enforce-exclusivity=unchecked), as
# the standard library itself is built, and as SwiftNIO's, Hummingbird's and Vapor's authors build their servers
# for benchmarks: about 7,600 of the 69,400 instructions a cached page cost, nearly all in SwiftNIO (issue 41,
# docs/perf/README.md). The checks stay where overlapping accesses would be found: every debug build, and so
# every test run. The compiler's static checks are the same in both.
#
# The daemon as installed is .build/release/dist/hreaderd: the same binary without its symbols and debug
# information (56 MB to 21 MB; none of it is mapped at run time, so memory is the same), which go to
# dist/hreaderd.debug beside it, named in the binary's .gnu_debuglink, for backtraces and gdb.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in "$@"; do
    # The linker's input files above are not inputs SwiftPM tracks: the product is always linked again.
    rm -f ".build/release/$product"
    swift build -c release --static-swift-stdlib -Xswiftc -enforce-exclusivity=unchecked -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
        -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
        -Xlinker --symbol-ordering-file="$PWD/scripts/link/hreaderd.order" -Xlinker --no-warn-symbol-ordering \
        -Xlinker --version-script="$PWD/scripts/link/executable.exports" \
        --product "$product"
    if [[ $product == hreaderd ]]; then
        dist=.build/release/dist
        mkdir -p "$dist"
        rm -f "$dist/hreaderd" "$dist/hreaderd.debug"
        objcopy --only-keep-debug .build/release/hreaderd "$dist/hreaderd.debug"
        # The debug link is made from within dist/, so that it names the file alone (found beside the binary).
        (cd "$dist" && objcopy --strip-all --add-gnu-debuglink=hreaderd.debug ../hreaderd hreaderd)
        chmod 0644 "$dist/hreaderd.debug"
    fi
done
