#!/usr/bin/python3
"""Writes scripts/link/hreaderd.order: the functions the daemon runs when it starts (locked and unlocked),
idles and answers its common requests, one mangled name a line, for the linker's --symbol-ordering-file
(scripts/build-release.sh).

Why: the kernel maps a program's code into memory 64 KiB around each page it first runs, so code that is
run but scattered across the 14 MB of the binary's text made most of the daemon's idle memory (10.4 MiB of
text resident at idle, about 1.2 MB of it run). Laid out together, the code the daemon runs takes a few
contiguous megabytes. Functions the list does not name keep the linker's usual order, so a list that is
out of date only packs less; run this again after larger changes (it takes about a minute):

    scripts/build-release.sh hreaderd generate-records && /usr/bin/python3 scripts/link/make-order-file.py

How: the release binary, without its debug information, runs under valgrind's callgrind (installed with
apt-get when missing) over a state directory of its own with a generated record, three times: started
locked, started unlocked, and started unlocked then asked its common requests. Every function of the
binary that ran at least once is listed: first those of a locked start, then those an unlocked start
adds, then those the requests add, each group sorted by name.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "Tools" / "harness"))
from hreaderd_harness import Daemon  # noqa: E402

CALLGRIND_NAME = re.compile(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$")


def ensure_valgrind():
    if shutil.which("valgrind"):
        return
    if os.geteuid() != 0:
        sys.exit("make-order-file: valgrind is missing: sudo apt-get install -y valgrind")
    subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "valgrind"], check=True)


def functions_run(callgrind_out, binary_name):
    """The names of the functions of `binary_name` that callgrind saw run (its 'fn=' records)."""
    objects, functions, names, current = {}, {}, set(), None
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            match = CALLGRIND_NAME.match(line.rstrip("\n"))
            if not match:
                continue
            kind, number, name = match.groups()
            table = objects if kind in ("ob", "cob") else functions
            if name:
                table[number] = name
            if kind == "ob":
                current = objects.get(number, "")
            elif kind == "fn" and current and os.path.basename(current) == binary_name:
                # Callgrind tells apart local functions of the same name with a suffix ('2): the name is the same.
                names.add(re.sub(r"'\d+$", "", functions[number]))
    return {n for n in names if not n.startswith("0x")}


def profile(binary, generate_records, work):
    """Runs the daemon three times under callgrind: started locked, started unlocked, and started unlocked
    then asked its common requests. Returns the three callgrind output files in that order."""
    bin_dir = work / "bin"
    bin_dir.mkdir()
    # Valgrind cannot read the toolchain's DWARF; the symbol table is all it needs.
    subprocess.run(["objcopy", "--strip-debug", str(binary), str(bin_dir / "hreaderd-profiled")], check=True)
    shutil.copy(generate_records, bin_dir / "generate-records")
    wrapper = bin_dir / "hreaderd"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = serve ]; then
    exec valgrind --tool=callgrind --demangle=no --callgrind-out-file="$HREADERD_PROFILE_OUT" "{bin_dir}/hreaderd-profiled" "$@"
fi
exec "{bin_dir}/hreaderd-profiled" "$@"
""")
    wrapper.chmod(0o755)
    daemon = Daemon(bin_dir, work, password="order file password")
    daemon.init()
    daemon.import_file(daemon.generate(work / "family.ndjson", entries=300, seed=7))
    daemon.create_token("order-file")
    outputs = []
    for name, serve_args in (("locked", ["--locked"]), ("unlocked", []), ("requests", [])):
        out = work / f"callgrind-{name}.out"
        daemon.start("--idle-lock", "0", "--public-dir", str(REPO / "Public" / "timeline"), *serve_args,
                     extra_env={"HREADERD_PROFILE_OUT": str(out)}, timeout=300)
        if name == "requests":
            patients = daemon.get("/patients.json", timeout=120).decode()
            patient = re.search(r'"current"\s*:\s*"([^"]+)"', patients).group(1)
            for path in ["/timeline/", "/timeline/app.js", "/timeline.json?page=year", "/timeline.json?page=all",
                         f"/patients/{patient}/summary.json", "/search.json?q=blood", "/imports.json", "/no-such-route"]:
                daemon.http("GET", path, timeout=120)
        time.sleep(2)  # what the daemon does while it idles
        daemon.stop(timeout=120)
        outputs.append(out)
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO / ".build" / "release"),
                        help="folder of the release hreaderd and generate-records (default .build/release)")
    parser.add_argument("--output", default=str(HERE / "hreaderd.order"))
    args = parser.parse_args()
    binary = Path(args.bin) / "hreaderd"
    ensure_valgrind()
    with tempfile.TemporaryDirectory(prefix="hreaderd-order-") as work:
        outputs = profile(binary, Path(args.bin) / "generate-records", Path(work))
        locked, unlocked, requests = (functions_run(out, "hreaderd-profiled") for out in outputs)
    # What runs in every idle daemon first, then what unlocking adds, then what requests add: each group
    # together, so that the idle daemon's code is not spread among code only a request runs.
    groups = [sorted(locked), sorted(unlocked - locked), sorted(requests - unlocked - locked)]
    count = sum(map(len, groups))
    if count < 1000:
        sys.exit(f"make-order-file: only {count} functions seen; is {binary} a release build with symbols?")
    with open(args.output, "w") as f:
        f.write("# Functions the daemon runs: at a locked start and idle, then what an unlocked start adds, then what\n")
        f.write("# its common requests add. Laid out first, in this order, by the linker (scripts/build-release.sh).\n")
        f.write("# Written by scripts/link/make-order-file.py; do not edit.\n")
        for group in groups:
            f.writelines(name + "\n" for name in group)
    print(f"{args.output}: {count} functions ({' + '.join(str(len(g)) for g in groups)})")


if __name__ == "__main__":
    main()
