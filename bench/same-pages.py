#!/usr/bin/python3
"""Two builds of hreaderd answer every timeline page alike, byte for byte: the check that a change to the read
path (issue 41) kept the timeline contract.

One state directory is filled once, with the first build: a generated sparse record, the same record under a
second record id linked into it (every fact then held by two patients: one shown, both sources named), a dense
record (`generate-records --mix dense`, when the build has it), annotations on entries of every array, the
person's own readings and posts. Then each build serves it in turn, and every page (day ... all) of each person
at several ends is fetched from both and compared.

Usage: bench/same-pages.py --before DIR --after DIR [--entries N]
DIR holds hreaderd and generate-records (e.g. a copy of .build/release from before the change).
Prints how many pages were compared and their bytes; exits 1 at the first page that differs.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tools", "harness"))
from hreaderd_harness import Daemon  # noqa: E402

PAGES = ["day", "week", "month", "year", "decade", "all"]
# Ends before, inside and after the generated records' history (which ends at 2025-01-01), and after the posts.
ENDS = ["1995-06-15", "2010-03-01", "2024-12-31", "2025-01-01", "2030-01-01"]


def generate(tool, path, entries, seed, mix=None):
    args = [tool, "--seed", str(seed), "--entries", str(entries), "--members", "1", "--output", path]
    if mix:
        args += ["--mix", mix]
    subprocess.run(args, check=True, capture_output=True, timeout=600)
    with open(path) as f:
        return f.readline()


def makes_dense(tool):
    return "--mix" in subprocess.run([tool, "--help"], capture_output=True, text=True).stdout


def fill(daemon, workdir, entries, tool):
    """The state: three records (one a copy of another under a new id, linked to it), annotations, readings, posts.
    Returns the patients whose pages are compared."""
    daemon.init()
    sparse = generate(tool, os.path.join(workdir, "sparse.json"), entries, 7)
    record = json.loads(sparse)
    copy = dict(record, _id=record["_id"][:-1] + ("1" if record["_id"][-1] != "1" else "2"))
    lines = [sparse.strip(), json.dumps(copy, separators=(",", ":"))]
    if makes_dense(tool):
        lines.append(generate(tool, os.path.join(workdir, "dense.json"), entries, 11, mix="dense").strip())
    records = os.path.join(workdir, "records.json")
    with open(records, "w") as f:
        f.write("\n".join(lines) + "\n")
    daemon.import_file(records)
    daemon.create_token("same-pages")
    daemon.start("--idle-lock", "0")
    try:
        patients = [p["id"] for p in json.loads(daemon.get("/patients.json"))["patients"]]
        if len(patients) != len(lines):
            raise RuntimeError(f"expected {len(lines)} patients, found {patients}")
        first, second = patients[0], patients[1]
        status, body = daemon.http("POST", f"/patients/{first}/links", json.dumps({"patient": second}), "application/json")
        if status != 201:
            raise RuntimeError(f"link answered {status}: {body[:200]!r}")
        for patient in patients:
            page = json.loads(daemon.get(f"/timeline.json?page=all&end=2030-01-01&patient={patient}"))
            # A note on a few entries of every array (and on the second of the linked pair, from its own id).
            for key, value in page.items():
                if not isinstance(value, list) or key in ("vitals", "posts", "readings", "timeline_entries"):
                    continue
                for entry in value[:3] + value[len(value) // 2:len(value) // 2 + 1]:
                    if isinstance(entry, dict) and "id" in entry:
                        note = {"note": f"note on {entry['id']} <&> \"quoted\"", "struck": len(entry["id"]) % 2 == 0,
                                "medication": {"dose": "2 puffs"} if key == "medications" else None}
                        # An entry of a linked person's page is one of its patients': annotated through that one.
                        for owner in [patient] + [p for p in patients if p != patient]:
                            status, body = daemon.http("PUT", f"/patients/{owner}/entries/{entry['id']}/annotation",
                                                       json.dumps(note), "application/json")
                            if status != 404:
                                break
                        if status not in (200, 201):
                            raise RuntimeError(f"annotation answered {status}: {body[:200]!r}")
            for reading in [{"kind": "weight", "value": 71.5, "unit": "kg", "date": "2024-12-30"},
                            {"kind": "blood_pressure", "systolic": 128, "diastolic": 82, "date": "2024-12-31"},
                            {"kind": "weight", "value": 70, "unit": "kg", "date": "2010-02-20"}]:
                status, body = daemon.http("POST", f"/patients/{patient}/readings", json.dumps(reading), "application/json")
                if status != 201:
                    raise RuntimeError(f"reading answered {status}: {body[:200]!r}")
            status, body = daemon.http("POST", f"/timeline.json?key=levels&patient={patient}", "pain=3&mood=6",
                                       "application/x-www-form-urlencoded")
            if status != 201:
                raise RuntimeError(f"post answered {status}: {body[:200]!r}")
    finally:
        daemon.stop()
    return patients


def pages(daemon, patients):
    daemon.start("--idle-lock", "0")
    try:
        return {(patient, page, end): daemon.get(f"/timeline.json?page={page}&end={end}&patient={patient}", timeout=120)
                for patient in patients for page in PAGES for end in ENDS}
    finally:
        daemon.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="folder of the first build (hreaderd, generate-records)")
    parser.add_argument("--after", required=True, help="folder of the second build")
    parser.add_argument("--entries", type=int, default=20_000, help="entries of each generated record (default 20,000)")
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hreaderd-same-pages-")
    try:
        state = os.path.join(workdir, "state")
        before = Daemon(args.before, workdir, password="same pages", state=state)
        # The records come from whichever build's generate-records makes the dense one too.
        tool = next((t for t in (os.path.join(d, "generate-records") for d in (args.before, args.after)) if makes_dense(t)),
                    os.path.join(args.before, "generate-records"))
        patients = fill(before, workdir, args.entries, tool)
        after = Daemon(args.after, workdir, password="same pages", state=state)
        after.token = before.token
        first, second = pages(before, patients), pages(after, patients)
        for key, body in first.items():
            if second[key] != body:
                at = next((i for i, (a, b) in enumerate(zip(body, second[key])) if a != b), min(len(body), len(second[key])))
                print(f"DIFFERENT: patient {key[0]} page={key[1]} end={key[2]}: {len(body)} bytes before, {len(second[key])} after;"
                      f" first difference at byte {at}: {body[max(0, at - 80):at + 80]!r} / {second[key][max(0, at - 80):at + 80]!r}")
                sys.exit(1)
        total = sum(len(b) for b in first.values())
        digest = hashlib.sha256(b"".join(first[k] for k in sorted(first))).hexdigest()[:16]
        annotated = sum(1 for b in first.values() if b'"annotation":{' in b)
        sourced = sum(1 for b in first.values() if b'"sources":[' in b)
        posted = sum(1 for b in first.values() if b'"posts":[{' in b or b'"timeline_entries":[{' in b)
        read = sum(1 for b in first.values() if b'"self_reported":[' in b and b'true' in b)
        print(f"same: {len(first)} pages of {len(patients)} patients ({total:,} bytes, sha256 {digest}…) byte for byte alike;"
              f" with annotations {annotated}, with both sources named {sourced}, with posts {posted}, with the person's readings {read}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
