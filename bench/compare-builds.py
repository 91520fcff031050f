#!/usr/bin/python3
"""Two release builds of the daemon and nginx, side by side: GET /timeline.json?page=year of a 200-entry patient
under wrk, with both of make bench's shapes (1 thread x 32 connections, 2 x 50), each build and nginx in turn
within every round, so that all three meet the machine in the same state.

    /usr/bin/python3 bench/compare-builds.py OLD_BIN_DIR NEW_BIN_DIR [--rounds 4] [--seconds 5]

Each folder holds an `hreaderd` and a `generate-records` (copy them out of .build/release after each build).
Why: on this shared two-core machine one build's req/s move by 15-30 % from hour to hour (and nginx's with it),
so a change of a few per cent shows only against another build, and the ratio to nginx only against an nginx
measured in the same minute. Prints each round's req/s and ratios, then the medians. Needs wrk and nginx-light
(make bench installs them).
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=5, help="of each measured wrk run")
    args = parser.parse_args()
    builds = {"old": args.old, "new": args.new}
    shapes = [("1 x 32", run.YEAR_1X32), ("2 x 50", {})]
    work = tempfile.mkdtemp(prefix="hreaderd-compare-")
    try:
        daemons = {}
        for name, folder in builds.items():
            os.makedirs(os.path.join(work, name))
            daemons[name] = run.bench_daemon(folder, 200, 2012, os.path.join(work, name))
        path = f"/timeline.json?page=year&end={run.END}"
        run.serve(daemons["old"])
        payload = daemons["old"].get(path)
        daemons["old"].stop()
        proc, port = run.nginx(payload if isinstance(payload, bytes) else payload.encode(), work)
        rows = {label: [] for label, _ in shapes}
        try:
            for round_number in range(1, args.rounds + 1):
                for label, shape in shapes:
                    row = {}
                    for name, daemon in daemons.items():
                        run.serve(daemon)
                        url = f"http://127.0.0.1:{daemon.port}{path}"
                        auth = [f"Authorization: Bearer {daemon.token}"]
                        run.wrk(url, 1, auth, **shape)  # warm up
                        row[name] = run.wrk(url, args.seconds, auth, **shape)["rps"]
                        daemon.stop()
                    nginx_url = f"http://127.0.0.1:{port}/timeline.json"
                    run.wrk(nginx_url, 1, **shape)
                    row["nginx"] = run.wrk(nginx_url, args.seconds, **shape)["rps"]
                    rows[label].append(row)
                    print(f"round {round_number}, wrk {label}: old {row['old']:,.0f}, new {row['new']:,.0f}, nginx {row['nginx']:,.0f} req/s; "
                          f"old/nginx {row['old'] / row['nginx']:.2f}, new/nginx {row['new'] / row['nginx']:.2f}", flush=True)
        finally:
            proc.terminate()
            proc.wait()
        for label, measured in rows.items():
            for name in builds:
                ratios = [row[name] / row["nginx"] for row in measured]
                print(f"wrk {label}, {name}/nginx: median {statistics.median(ratios):.2f} "
                      f"({', '.join(f'{r:.2f}' for r in ratios)}); req/s median {statistics.median(row[name] for row in measured):,.0f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
