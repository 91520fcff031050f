#!/usr/bin/python3
"""Where a request's time goes: the release daemon answers GET /timeline.json?page=year (a 200-entry
patient, from its payload cache) to wrk while `perf record` samples it with call stacks; the samples are
drawn as a flame graph with a table of self and total time (bench/perf/flamegraph.py).

    scripts/build-release.sh hreaderd generate-records
    /usr/bin/python3 bench/perf/profile.py --name page-year-before      # docs/perf/page-year-before.{svg,txt}

Needs perf (Debian's linux-perf) and wrk. Run it on a quiet machine: the figures beside the graph are
wrk's. Swift's release code keeps frame pointers, so `--call-graph fp` walks it cheaply.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bench"))
import run as bench  # noqa: E402


# The product's own code among the frames (HTTPKit's and TimelineAPI's types, the logging it does), and the
# Swift concurrency runtime's per-request task.
PRODUCT = (r"^(HTTPConnectionHandler\.(start|receiveHead|receiveEnd|write)|AccessLog|AccessPolicy|Audit|Idle|"
           r"Timeline|PayloadCache|TokenCache|TokenUse|Route|RequestTarget|ResponseHeadBuilder|LineLogHandler|"
           r"LogLineWriter|static Logging|static Task\.immediate|swift_job_run)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True, help="the files' name under docs/perf/")
    parser.add_argument("--bin", default=str(REPO / ".build" / "release"))
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--frequency", type=int, default=999, help="samples a second a CPU")
    args = parser.parse_args()
    out = REPO / "docs" / "perf"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hreaderd-perf-") as work:
        daemon = bench.bench_daemon(args.bin, 200, 1, work)
        bench.serve(daemon)
        try:
            url = f"http://127.0.0.1:{daemon.port}/timeline.json?page=year&end={bench.END}"
            auth = [f"Authorization: Bearer {daemon.token}"]
            bench.wrk(url, 2, auth, connections=args.connections, threads=args.threads)  # warm the caches
            data = os.path.join(work, "perf.data")
            perf = subprocess.Popen(["perf", "record", "-F", str(args.frequency), "--call-graph", "fp",
                                     "-o", data, "-p", str(daemon.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3)
            result = bench.wrk(url, args.seconds, auth, connections=args.connections, threads=args.threads)
            perf.send_signal(2)
            perf.wait()
        finally:
            daemon.stop()
        title = (f"hreaderd, GET /timeline.json?page=year under wrk {args.threads}x{args.connections}: "
                 f"{result['rps']:.0f} req/s, p99 {result['p99_ms']} ms (perf at {args.frequency} Hz)")
        script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True, check=True).stdout
        subprocess.run([sys.executable, str(HERE / "flamegraph.py"), "--title", title,
                        "--svg", str(out / f"{args.name}.svg"), "--top", str(out / f"{args.name}.txt"),
                        "--focus", PRODUCT],
                       input=script, text=True, check=True)
    text = out / f"{args.name}.txt"
    text.write_text(title + "\n" + text.read_text())
    print(title)
    print(f"wrote {out / (args.name + '.svg')} and {text}")


if __name__ == "__main__":
    main()
