#!/usr/bin/env python3
"""Instructions a `page=year` request costs the daemon, counted by valgrind's callgrind: a figure that does not
move with the machine's load, where req/s on this shared two-core machine move by 15-30 % from minute to minute.

The daemon serves the 200-entry patient's `page=year` (API token, as `make bench` asks it) to N keep-alive
requests over two connections, with callgrind's counting switched on for those N alone; then the same answer's
bytes served by `Tools/nio-ceiling` at each layer (socket, decoder, nio: see there). Printed: instructions a
request for each, and the daemon's own functions that cost the most (inclusive, a request).

Needs Debian's valgrind. Valgrind 3.19 cannot read the DWARF 5 of Swift's binaries, so it runs copies without
their debug sections (`objcopy --strip-debug`; the symbol table stays).

  scripts/build-release.sh hreaderd generate-records nio-ceiling
  bench/perf/request-instructions.py [--bin .build/release] [--requests 3000] [--top 25]
"""
import argparse
import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import run  # noqa: E402  (bench/run.py: the benchmark's daemon)


PATH = f"/timeline.json?page=year&end={run.END}"
OWN_CODE = re.compile(r"HTTPKit|TimelineAPI|hreaderd\.|Store\.")


def wait_for(port, process, timeout=900):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server under valgrind exited with {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"nothing answered on {port} in {timeout} s")


def counted(argv, port, headers, requests, out, env=None):
    """Runs `argv` under callgrind, makes `requests` counted GETs of PATH; the instructions counted."""
    process = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}", *argv],
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port, process)
        connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=120) for _ in range(2)]

        def get(count):
            for i in range(count):
                connection = connections[i % 2]
                connection.request("GET", PATH, headers=headers)
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    raise RuntimeError(f"{argv[0]} answered {response.status}")

        get(300)  # warm: caches filled, first-time work done
        subprocess.run(["callgrind_control", "-i", "on", str(process.pid)], check=True, capture_output=True)
        get(requests)
        subprocess.run(["callgrind_control", "-i", "off", str(process.pid)], check=True, capture_output=True)
        subprocess.run(["callgrind_control", "-d", str(process.pid)], check=True, capture_output=True)
    finally:
        process.terminate()
        process.wait()
    dumps = sorted(f for f in os.listdir(os.path.dirname(out)) if f.startswith(os.path.basename(out) + "."))
    return os.path.join(os.path.dirname(out), dumps[0])


def total(dump):
    text = subprocess.run(["callgrind_annotate", dump], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))


def own_functions(dump, requests, top):
    """The daemon's own functions by inclusive instructions a request, demangled."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump],
                          check=True, capture_output=True, text=True).stdout
    rows = []
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+\?\?\?:(\S+)", line)
        if m:
            rows.append((int(m.group(1).replace(",", "")) / requests, m.group(2)))
    names = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(name for _, name in rows),
                           capture_output=True, text=True).stdout.splitlines()
    return [(cost, name) for (cost, _), name in zip(rows, names) if OWN_CODE.search(name)][:top]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("request-instructions: valgrind is missing (apt-get install valgrind)")
    workdir = tempfile.mkdtemp(prefix="request-instructions-")
    try:
        binaries = os.path.join(workdir, "bin")
        os.makedirs(binaries)
        for name in ("hreaderd", "nio-ceiling"):
            subprocess.run(["objcopy", "--strip-debug", os.path.join(args.bin, name), os.path.join(binaries, name)], check=True)
        daemon = run.bench_daemon(args.bin, 200, 2012, workdir)
        headers = {"Authorization": f"Bearer {daemon.token}"}
        port = run.free_port()
        dump = counted([os.path.join(binaries, "hreaderd"), "serve", "--listen", f"127.0.0.1:{port}", "--idle-lock", "0"],
                       port, headers, args.requests, os.path.join(workdir, "hreaderd.callgrind"), env=daemon.env)
        ours = total(dump) / args.requests
        # The same answer, as the daemon wrote it, for the NIO layers.
        run.serve(daemon)
        raw = run.raw_response(daemon.port, PATH, daemon.token)
        daemon.stop()
        body = raw.partition(b"\r\n\r\n")[2]
        answer = os.path.join(workdir, "answer.http")
        with open(answer, "wb") as f:
            f.write(raw)
        print(f"page=year of the 200-entry patient ({len(body):,} bytes), {args.requests:,} keep-alive requests counted by callgrind:")
        print(f"  hreaderd           {ours:>9,.0f} instructions a request")
        for layer in ("socket", "decoder", "nio"):
            port = run.free_port()
            layer_dump = counted([os.path.join(binaries, "nio-ceiling"), "--layer", layer, "--answer", answer, "--port", str(port)],
                                 port, headers, args.requests, os.path.join(workdir, f"{layer}.callgrind"))
            print(f"  nio-ceiling {layer:7}{total(layer_dump) / args.requests:>9,.0f}")
        print(f"\nthe daemon's own functions, inclusive instructions a request (the top {args.top}):")
        for cost, name in own_functions(dump, args.requests, args.top):
            print(f"  {cost:>8,.0f}  {name[:150]}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
