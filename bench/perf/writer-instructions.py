#!/usr/bin/env python3
"""Instructions an entry costs the store's writer in a large import, counted by valgrind's callgrind: a figure
that does not move with the machine's load, where entries/s on a shared two-core machine move by a third from one
half hour to the next.

Runs `hreaderd-bench import-writer --writer-entries N` (a generated record, sparse then dense, parsed and made
ready before the writer starts; then written as `import-file` writes it) under callgrind, and prints the writer's
instructions an entry (the streamed `importRecordSync`, inclusive: the inserts, the search index, the commit),
with its main parts.

The encryption's share is larger here than in time: valgrind's virtual CPU has no SHA extensions, so OpenSSL
hashes in plain instructions. A change to the code around it shows as it is.

Needs Debian's valgrind. Valgrind 3.19 cannot read the DWARF 5 of Swift's binaries, so it runs a copy without its
debug sections (`objcopy --strip-debug`; the symbol table stays). About a minute and a half for 20,000 entries.

  scripts/build-release.sh hreaderd-bench
  bench/perf/writer-instructions.py [--bin .build/release] [--entries 20000]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind  # noqa: E402  (bench/perf/callgrind.py)

# The parts printed: a label, and the pattern of the function (inclusive) that is that part.
PARTS = [
    ("the writer, all of it (streamed importRecordSync)", r"importRecordSync_7entries\S*tKF$"),
    ("  their bindings", r"RecordImportC5write\S*BindingsV"),
    ("  the search index (FTS4), a few thousand entries a statement", r"RecordImportC15indexNewEntries"),
    ("  pages encrypted (SQLCipher's codec)", r"sqlite3Codec$"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=".build/release", help="folder of hreaderd-bench (default .build/release)")
    parser.add_argument("--entries", type=int, default=20_000, help="entries of each record, sparse and dense (default 20000)")
    args = parser.parse_args()
    costs = callgrind.counted_costs("writer-instructions", os.path.join(args.bin, "hreaderd-bench"),
                                    ["import-writer", "--writer-entries", str(args.entries)])
    entries = 2 * args.entries  # sparse, then dense
    print(f"The store's writer, instructions an entry ({args.entries:,} sparse and {args.entries:,} dense entries, callgrind):")
    callgrind.print_parts(costs, PARTS, entries)


if __name__ == "__main__":
    main()
