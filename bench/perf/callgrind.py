"""What the callgrind scripts of bench/perf share: a Swift binary made readable to valgrind, a run counted under
callgrind, and a dump's inclusive instructions by function.

Valgrind 3.19 cannot read the DWARF 5 of Swift's binaries, so a run uses a copy without its debug sections
(`objcopy --strip-debug`; the symbol table stays)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def require_valgrind(script):
    if not shutil.which("valgrind"):
        sys.exit(f"{script}: needs valgrind (apt-get install valgrind)")


def readable_copy(binary, work):
    """A copy of `binary` in `work` valgrind can read."""
    copy = os.path.join(work, os.path.basename(binary))
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    return copy


def count(script, argv, dump, toggles=()):
    """Runs `argv` under callgrind into `dump`; `toggles`: count only inside functions matching one of them."""
    options = [f"--callgrind-out-file={dump}"] + [f"--toggle-collect={toggle}" for toggle in toggles]
    run = subprocess.run(["valgrind", "--tool=callgrind", *options, *argv], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{script}: {os.path.basename(argv[0])} failed: {run.stderr[-800:]}")


def inclusive_costs(dump):
    """{function: inclusive instructions} of a callgrind dump, the largest entry of a name kept."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump],
                         check=True, capture_output=True, text=True).stdout
    costs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+(?:\S+:)?(\S+)", line)
        if m:
            name = m.group(2).split("[")[0]
            costs[name] = max(costs.get(name, 0), int(m.group(1).replace(",", "")))
    return costs


def print_parts(costs, parts, per, width=70):
    """Each (label, pattern) of `parts`: the largest inclusive cost of a function matching it, divided by `per`."""
    for label, pattern in parts:
        matching = [cost for name, cost in costs.items() if re.search(pattern, name)]
        if not matching:
            print(f"  {label}: not found")
            continue
        print(f"  {label:{width}}{max(matching) / per:>10,.0f}")


def counted_costs(script, binary, arguments, toggles=()):
    """Runs the Swift `binary` with `arguments` under callgrind (a readable copy, in a folder of its own removed
    after); the dump's inclusive costs (`inclusive_costs`)."""
    require_valgrind(script)
    work = tempfile.mkdtemp(prefix=f"hreaderd-{script}-")
    try:
        dump = os.path.join(work, "callgrind.out")
        count(script, [readable_copy(binary, work), *arguments], dump, toggles)
        return inclusive_costs(dump)
    finally:
        shutil.rmtree(work, ignore_errors=True)
