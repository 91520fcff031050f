#!/usr/bin/env python3
"""Validates hreaderd's exports for a doctor (the IPS and the CCD) with the offline validators in
../shared, and checks their round trip.

For each person of a set of shared records, imported into a store of their own, it writes the IPS and the
CCD with `hreaderd export --format ips|ccda`, then:
  - the IPS validator (../shared/ips-validator, --strict-references; its --self-test once first) must pass;
  - the C-CDA validator (../shared/ccda-validator) must report zero errors (its warnings are SHOULDs);
  - each document, imported into an empty store, must give back the same timeline facts (type, codes,
    date, value, unit) as the entries it carries.

    scripts/validate-exports.py                 the shared samples (RHEx, FHIR, C-CDA) and the demo family (150 entries each)
    scripts/validate-exports.py --long          also 20 people of the vendor corpora, the demo family at 1,500 entries a
                                                person (make validate-exports; the C-CDA validator takes minutes on those)
    scripts/validate-exports.py --bin DIR       a built daemon elsewhere (default .build/debug)

The C-CDA validator takes 5-8 s a document on two cores, so the default set is small. Exits 0 when all
pass; 1 with each failure named; skips (exit 0, saying so) when ../shared is absent.
Dependencies: scripts/install-validators.sh (Debian's python3-lxml, fhir.resources 8.3.0 in .build/ips-venv).
"""

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "Tools" / "harness"))
from hreaderd_harness import Daemon  # noqa: E402

# The shared sample people: every sample file, each a person or a few (the RHEx server's 500-patient fixture,
# pds_records_500.ndjson, is a load fixture of one generator's shape: Henry Smith's C32 stands for it).
SAMPLES = [
    "rhex-samples/hreader_hs_henry_smith.json",
    "rhex-samples/hreader_ns_nancy_smith.json",
    "rhex-samples/hds_v4_barry_berry.json",
    "rhex-samples/hds_v2.1.1_rosa.json",
    "rhex-samples/hds_sample_ccda.xml",
    "rhex-samples/pds_Henry_Smith44_c32.xml",
    "fhir-samples/synthea_adult_chronic_estrella_daugherty.json",
    "fhir-samples/synthea_child_daisey_johns.json",
    "fhir-samples/synthea_infant_minimal_luigi_wiegand.json",
    "fhir-samples/ccda21_companion_ccd.fhir.json",
    "fhir-samples/bulk-10-patients",
    "ccda-samples/hl7_ccda21_ccd1_full.xml",
    "ccda-samples/ccda21_companion_ccd.xml",
    "ccda-samples/cerner_transition_of_care_referral_summary.xml",
    "ccda-samples/allscripts_mu2_170.314B2_Amb_CCD.xml",
    "ccda-samples/kareo_is_actually_c32.ccd",
    "ccda-samples/kinsights_phr_child_timmy_MESSY.xml",
]

# Types the documents carry (encounters and social history are not in either).
CARRIED = {"allergy", "condition", "medication", "immunization", "result", "vital_sign", "procedure",
           "medical_equipment", "care_goal"}

# The code systems each document can name (FHIR: a URI; C-CDA: an OID), by the store's names.
KNOWN_SYSTEMS = {"SNOMED-CT", "LOINC", "RxNorm", "CVX", "ICD-10-CM", "ICD-9-CM", "ICD-10-PCS", "HCPCS", "CPT", "NDC"}


def vendor_people(count=20):
    """The first C-CDA document of each vendor's folder, then more from the largest, to `count`."""
    root = SHARED / "ccda-vendors"
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    files = [sorted(f.glob("*.xml"))[:1] for f in folders]
    chosen = [f[0] for f in files if f]
    return [str(p.relative_to(SHARED)) for p in chosen[:count]]


def carried_system(system, fmt):
    if system in KNOWN_SYSTEMS:
        return True
    if fmt == "ips":
        return system.startswith(("http://", "https://", "urn:")) or all(c.isdigit() or c == "." for c in system)
    return all(c.isdigit() or c == "." for c in system) or system.startswith("urn:oid:")


def fact(entry, fmt):
    """What must come back: type, codes (those the format names), date, value, unit."""
    # A system known only by its OID: C-CDA names it by the bare OID, FHIR by `urn:oid:` and the OID.
    codes = tuple(sorted((s.removeprefix("urn:oid:"), c.strip()) for s, cs in (entry.get("codes") or {}).items() if carried_system(s, fmt)
                         for c in cs if c.strip() and (fmt == "ips" or not any(ch.isspace() for ch in c.strip()))))
    value = entry.get("value")
    units = entry.get("units")
    if units is not None and not units.strip():
        units = None
    if fmt == "ccda" and units == "1":
        units = None
    return (entry["type"], codes, entry.get("date"), value, units if value is not None else None)


def records(export):
    return export["records"] if "records" in export else [export]


def expected_facts(export, fmt):
    struck = {a["entry_id"] for r in records(export) for a in r.get("annotations", []) if a.get("struck")}
    out = collections.Counter()
    for record in records(export):
        for entry in record["entries"]:
            if entry["type"] in CARRIED and entry["id"] not in struck:
                if fmt == "ccda" and entry["type"] == "vital_sign" and entry.get("value") is None:
                    continue  # a vital sign's text is in the narrative only (the CCD's value must be a quantity)
                out[fact(entry, fmt)] += 1
    return out


def patients(daemon):
    return [line.split()[0] for line in daemon.cli("patients", "list").splitlines() if line.startswith("p_")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(REPO / ".build" / "debug"))
    parser.add_argument("--long", action="store_true", help="also 20 people of the vendor corpora")
    parser.add_argument("--only", nargs="*", help="only these shared files (paths under ../shared)")
    parser.add_argument("--no-demo", action="store_true", help="without the demo family")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent (the validators and the samples live there)")
        return 0
    venv_python = subprocess.run([str(REPO / "scripts" / "install-validators.sh")], capture_output=True, text=True)
    if venv_python.returncode != 0:
        print(venv_python.stderr, file=sys.stderr)
        return 1
    ips_python = venv_python.stdout.strip().splitlines()[-1]
    ips_validator = str(SHARED / "ips-validator" / "validate_ips.py")
    ccda_validator = str(SHARED / "ccda-validator" / "validate.py")
    failures = []
    self_test = subprocess.run([ips_python, ips_validator, "--self-test"], capture_output=True, text=True)
    if self_test.returncode != 0:
        print(self_test.stdout + self_test.stderr)
        return 1
    print("ips-validator --self-test: ok")

    files = args.only if args.only is not None else SAMPLES + (vendor_people() if args.long else [])
    with tempfile.TemporaryDirectory(prefix="hreaderd-exports-") as work:
        work = Path(work)
        documents = []  # (label, ips path, ccda path, expected ips facts, expected ccda facts)
        sets = [(f, [SHARED / f]) for f in files]
        if not args.no_demo and args.only is None:
            sets.append(("demo family", None))
        for index, (label, paths) in enumerate(sets):
            folder = work / f"set{index}"
            folder.mkdir()
            daemon = Daemon(args.bin, folder)
            daemon.init()
            if paths is None:
                # The demo's family (scripts/demo.sh): FHIR R4, seed 7; 1,500 entries a person with --long, 150 in
                # the short run (the C-CDA validator takes minutes on a 2.5 MB CCD, and more entries check nothing new).
                family = folder / "family.fhir.json"
                entries = "1500" if args.long else "150"
                subprocess.run([str(daemon.tool("generate-records")), "--seed", "7", "--entries", entries, "--format", "fhir",
                                "--output", str(family)], check=True, capture_output=True)
                paths = [family]
            daemon.import_file(*map(str, paths))
            for pid in patients(daemon):
                whole = json.loads(daemon.cli("export", "--patient", pid))
                ips = folder / f"{pid}.ips.json"
                ccda = folder / f"{pid}.ccda.xml"
                daemon.cli("export", "--patient", pid, "--format", "ips", "--output", str(ips))
                daemon.cli("export", "--patient", pid, "--format", "ccda", "--output", str(ccda))
                documents.append((f"{label} {pid}", ips, ccda, expected_facts(whole, "ips"), expected_facts(whole, "ccda")))
        print(f"{len(documents)} people exported")

        # The IPS validator, every IPS in one run.
        result = subprocess.run([ips_python, ips_validator, "--strict-references", "--json", *[str(d[1]) for d in documents]],
                                capture_output=True, text=True)
        if result.returncode != 0:
            out = subprocess.run([ips_python, ips_validator, "--strict-references", *[str(d[1]) for d in documents]],
                                 capture_output=True, text=True).stdout
            failures.append("IPS validator:\n" + "\n".join(line for line in out.splitlines() if "FAIL" in line or line.strip().startswith("-")))
        else:
            print(f"IPS validator: {len(documents)} documents pass (--strict-references)")

        # The C-CDA validator, every CCD in one run (its set-up once).
        result = subprocess.run(["/usr/bin/python3", ccda_validator, "--json", *[str(d[2]) for d in documents]],
                                capture_output=True, text=True)
        try:
            report = json.loads(result.stdout)
        except json.JSONDecodeError:
            failures.append("C-CDA validator: " + (result.stderr or result.stdout)[-2000:])
            report = None
        if report is not None:
            bad = [f for f in report.get("files", []) if f.get("errors")]
            for f in bad:
                messages = "\n    ".join(f"{e.get('id')}: {str(e.get('text'))[:200]} at {e.get('location')}" for e in f["errors"][:10])
                failures.append(f"C-CDA validator: {f.get('file')}: {len(f['errors'])} errors\n    {messages}")
            if not bad:
                print(f"C-CDA validator: {len(documents)} documents, 0 errors")

        # The round trip: each document into an empty store.
        for number, (label, ips, ccda, want_ips, want_ccda) in enumerate(documents):
            for fmt, path, want in (("ips", ips, want_ips), ("ccda", ccda, want_ccda)):
                folder = work / f"back{number}{fmt}"
                folder.mkdir()
                daemon = Daemon(args.bin, folder)
                daemon.init()
                daemon.import_file(str(path))
                got = collections.Counter()
                for pid in patients(daemon):
                    got += expected_facts(json.loads(daemon.cli("export", "--patient", pid)), fmt)
                if fmt == "ccda":
                    # The C-CDA reader merges the same fact stated twice in one document (issue 38): a source
                    # that holds an entry twice (hReader's records repeat some, byte for byte) comes back once.
                    want, got = collections.Counter(set(want)), collections.Counter(set(got))
                if got != want:
                    missing = list((want - got).elements())[:5]
                    extra = list((got - want).elements())[:5]
                    failures.append(f"round trip {fmt} {label}: {sum((want - got).values())} facts missing, "
                                    f"{sum((got - want).values())} extra\n    missing {missing}\n    extra {extra}")
        print(f"round trip: {len(documents) * 2} documents compared")

    for failure in failures:
        print("FAIL " + failure)
    print("exports: " + ("all pass" if not failures else f"{len(failures)} failures"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
