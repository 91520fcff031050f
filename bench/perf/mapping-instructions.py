#!/usr/bin/env python3
"""Instructions a resource costs a FHIR import before the store's writer, counted by valgrind's callgrind: the
plan (the file read, then assembled), which an upload's job waits for, and the work of the thread that maps a long
FHIR record while the writer writes it (an upload's, a sync's and `import-file`'s), in figures that do not move
with the machine's load.

Runs `hreaderd-bench fhir-steps --steps-resources N` (a generated one-patient bundle, read, assembled, then
mapped a batch at a time and made ready to write, five times) under callgrind, counting only inside the read
(`FHIRInput.read`), the assembly (`FHIRReader.assemble`), the mapping (`FHIRPendingEntries.entries`) and the
making ready (`Store.prepare`), and prints instructions a resource for each, with their main parts (inclusive).

Needs Debian's valgrind. About two minutes for 20,000 resources.

  scripts/build-release.sh hreaderd-bench
  bench/perf/mapping-instructions.py [--bin .build/release] [--resources 20000] [--pretty]
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind  # noqa: E402  (bench/perf/callgrind.py)

ROUNDS = 5  # FHIRStepsBenchmark maps the bundle five times
MAPPING = "*FHIRPendingEntriesV7entries_5tally*"
PREPARE = "*5StoreAAC7prepareyAB15PreparedEntries*"
# The plan, before an upload's job starts and its mapping thread with it: the file read, then assembled.
READ = "*FHIRInputO4read33_*"
ASSEMBLE = "*FHIRReaderV8assemble*"

# The parts printed: a label, and the pattern of the function (inclusive) that is that part.
PARTS = [
    ("the file read (FHIRInput.read): its JSON checked, its resources found", r"FHIRInputO4read33_"),
    ("  the whole file's UTF-8 checked", r"UTF8ValidationO18firstInvalidOffset"),
    ("  a resource's members looked through (FHIRInput.resource)", r"FHIRInputO8resource_6source"),
    ("the resources indexed and grouped by person (FHIRReader.assemble)", r"FHIRReaderV8assemble"),
    ("the mapping, all of it (FHIRPendingEntries.entries)", r"FHIRPendingEntriesV7entries_5tally"),
    ("  a resource's members parsed (JSONTape.parse)", r"JSONTapeC5parse_5range"),
    ("  members looked up (JSONTape.member)", r"JSONTapeC6member_2of"),
    ("  observations mapped", r"FHIRObservationMappingO11observation"),
    ("  CodeableConcepts read", r"CodeableConceptVyAcA11FHIRElement"),
    ("  IPS placeholders looked for (isAbsentUnknown)", r"FHIREntryMappingV15isAbsentUnknown"),
    ("  null-like codes looked for (CodeValue.isNullLike)", r"CodeValueO10isNullLike"),
    ("  stable ids (StableID.digest, SHA-256)", r"StableIDO6digest"),
    ("  compact JSON made of a pretty-printed resource (JSONCompaction)", r"JSONCompactionO6string"),
    ("making the entries ready to write (Store.prepare)", r"5StoreAAC7prepareyAB15PreparedEntries"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=".build/release", help="folder of hreaderd-bench (default .build/release)")
    parser.add_argument("--resources", type=int, default=20_000, help="resources of the bundle (default 20000)")
    parser.add_argument("--pretty", action="store_true", help="the bundle pretty-printed (its resources then compacted)")
    args = parser.parse_args()
    costs = callgrind.counted_costs("mapping-instructions", os.path.join(args.bin, "hreaderd-bench"),
                                    ["fhir-steps", "--steps-resources", str(args.resources)] + (["--steps-pretty"] if args.pretty else []), toggles=[READ, ASSEMBLE, MAPPING, PREPARE])
    print(f"A FHIR import before its writer, instructions a resource ({args.resources:,} resources{', pretty-printed' if args.pretty else ''}, {ROUNDS} times, callgrind):")
    callgrind.print_parts(costs, PARTS, ROUNDS * args.resources, width=80)


if __name__ == "__main__":
    main()
