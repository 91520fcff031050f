#!/usr/bin/env python3
"""How far `page=year` could go on SwiftNIO at all (issue 41: 0.8 of nginx with wrk 1 x 32 and 2 x 50).

The same answer (hreaderd's `page=year` response of the 200-entry patient, head and body, as the daemon wrote
it) is served by five servers, in turn, in rounds; each server's req/s is divided by nginx's of the same round:

  hreaderd   the daemon (API token, access policy, audit, page cache, HTTPKit);
  socket     Tools/nio-ceiling --layer socket: NIO's event loops and sockets, no HTTP parsing;
  decoder    --layer decoder: and NIO's request decoder and pipelining handler, the answer as prebuilt bytes;
  nio        --layer nio: and NIO's response encoder (idiomatic NIO);
  nginx      nginx-light serving the body as a static file (bench/run.py's configuration).

Every server gets the same requests (with the daemon's `Authorization` header). wrk, the servers and this
script share the machine's cores, as in `make bench`.

  scripts/build-release.sh hreaderd generate-records nio-ceiling
  bench/perf/nio-ceiling.py [--bin .build/release] [--rounds 5] [--seconds 5]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import run  # noqa: E402  (bench/run.py: the daemon, nginx and wrk as make bench runs them)

SHAPES = [("2 x 50", {}), ("1 x 32", run.YEAR_1X32)]
LAYERS = ["socket", "decoder", "nio"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="nio-ceiling-")
    processes = []
    try:
        daemon = run.bench_daemon(args.bin, 200, 2012, workdir)
        run.serve(daemon)
        path = f"/timeline.json?page=year&end={run.END}"
        answer = run.raw_response(daemon.port, path, daemon.token)
        head, _, body = answer.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200") or b"Content-Length" not in head:
            raise RuntimeError(f"unexpected answer: {head[:200]!r}")
        answer_file = os.path.join(workdir, "answer.http")
        with open(answer_file, "wb") as f:
            f.write(answer)
        auth = [f"Authorization: Bearer {daemon.token}"]
        urls = {"hreaderd": f"http://127.0.0.1:{daemon.port}{path}"}
        for layer in LAYERS:
            process, port = run.start_nio_ceiling(args.bin, layer, answer_file, timeout=5)
            processes.append(process)
            urls[layer] = f"http://127.0.0.1:{port}{path}"
        proc, port = run.nginx(body, workdir)
        processes.append(proc)
        urls["nginx"] = f"http://127.0.0.1:{port}/timeline.json"
        for url in urls.values():
            run.wrk(url, 1, auth)  # warm up
        print(f"page=year of the 200-entry patient ({len(body):,} bytes, head {len(head) + 4} bytes), "
              f"{args.rounds} rounds of {args.seconds} s a server, load average {os.getloadavg()[0]:.2f} at start")
        for label, shape in SHAPES:
            ratios = {name: [] for name in urls if name != "nginx"}
            rates = {name: [] for name in urls}
            for _ in range(args.rounds):
                got = {name: run.wrk(url, args.seconds, auth, **shape) for name, url in urls.items()}
                for name, result in got.items():
                    if result["non_2xx"] or result["socket_errors"]:
                        raise RuntimeError(f"{name}: {result}")
                    rates[name].append(result["rps"])
                for name in ratios:
                    ratios[name].append(got[name]["rps"] / got["nginx"]["rps"])
            print(f"\nwrk {label}: req/s (median of the rounds) and the ratio to nginx of the same round (median; every round)")
            for name in urls:
                line = f"  {name:9} {statistics.median(rates[name]):>9,.0f} req/s"
                if name in ratios:
                    line += f"   {statistics.median(ratios[name]):.2f}   (" + ", ".join(f"{r:.2f}" for r in ratios[name]) + ")"
                print(line)
    finally:
        for proc in processes:
            proc.terminate()
            proc.wait()
        try:
            daemon.stop()
        except Exception:  # noqa: BLE001 (not started)
            pass
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
