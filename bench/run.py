#!/usr/bin/python3
"""hreaderd's benchmark: what users feel and what the design's targets promise (docs/benchmarks.md, "By target"), measured in one run.

  1. GET /timeline.json?page=year for a patient of hReader's size (~200 entries), with wrk over keep-alive
     connections and an API token (the real deployment), next to nginx serving the identical bytes as a
     static file, and the ratio (target >= 0.8), with wrk 2 threads x 50 connections and 1 x 32, each in three
     rounds of one hreaderd and one nginx run (the round of the median ratio is shown). Each round also runs
     SwiftNIO's own HTTP/1 server serving the daemon's answer byte for byte with no application behind it
     (`Tools/nio-ceiling --layer nio`): what the library the daemon is built on reaches on the machine, beside
     nginx. Then the same with a concurrent writer posting entries.
  2. A generated patient of 100,000 entries: server time of each page, day ... all (targets: month < 10 ms,
     all < 150 ms), and the same pages at 1,000 and 10,000 entries (latency against record size). Then
     month, year and all at 10,000, 100,000 and 1,000,000 entries, sparse and dense (`generate-records --mix
     dense`; the millions' stores are those of their imports): bytes a second and microseconds an entry shown,
     so that a cost an entry that grows with the record shows (targets: the dense million's month < 8 ms; flat
     across sizes).
  3. Import: hreaderd-bench's figures (all its sections; import-writer, the store's writer alone with the entries made
     ready first, is the ceiling of the million's imports and is printed beside them).
  4. Start to ready (locked start, so no scrypt), idle resident memory, peak resident memory under wrk.
  5. page=year again, from a few keep-alive clients, while the generated 100,000-resource FHIR bundle is
     uploaded (POST /imports/files) and imported: p50/p99 of the requests made meanwhile (target p99 < 50 ms),
     the same page (from the payload cache) and each request another page (read from the store). Then the same
     bundle uploaded alone, through the daemon, three times: its resources a second (target 50,000), the daemon's
     CPU and what it holds after.
  6. The health library over the default pack (.build/library/default): about.json and library search
     (server time p50; targets 5 and 10 ms), an update of the pack from a local publisher, checked, downloaded,
     verified and switched (target < 2 s), idle memory with the library installed and without (target: within
     1 MiB).
  7. The documents for a doctor of a 10,000-entry person: server time of GET /patients/{id}/ips.json and
     ccda.xml (target < 200 ms each).
  8. The vendors' C-CDA documents (../shared/ccda-vendors, 196 documents): one import-file run of them all, then
     each through POST /imports/files (documents/s, entries/s).
  9. The web app in headless Chromium (bench/webapp.py): the Summary, the Year view and the Decade view, from
     their JSON parsed to drawn, for the demo's 1,500-entry person (target < 100 ms) and a 10,000-entry one
     (target < 300 ms).

Prints a table, writes .build/bench/results.json, the latest run's section of docs/benchmarks.md (between its
markers; the rest of the page is kept) and docs/latency-vs-record-size.svg.
Usage: bench/run.py [--duration SECONDS] [--bin DIR] [--sizes N,N,…]     (loopback traffic only)
       bench/run.py --only upload-latency [--bin DIR]     (figure 5 alone: about a minute)
       bench/run.py --only daemon-upload [--bin DIR]      (figure 5's upload alone through the daemon: half a minute)
       bench/run.py --only library [--bin DIR]            (figure 6 alone: about half a minute)
       bench/run.py --only export [--bin DIR]             (figure 7 alone: about a minute)
       bench/run.py --only ccda-corpus [--bin DIR]        (figure 8 alone: the 196 vendor C-CDA documents)
       bench/run.py --only million-import [--bin DIR]     (figure 2b's imports alone: the sparse and the dense million, and the writer alone)
       bench/run.py --only webapp [--bin DIR]             (figure 9 alone: the web app's drawing, a few minutes)
DIR (default .build/release) holds hreaderd, generate-records, hreaderd-bench, hreaderd-library-pack and nio-ceiling (without it, the NIO row is left out). The daemon is started by
Tools/harness/hreaderd_harness.py.
"""
import argparse
import functools
import http.server
import itertools
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tools", "harness"))
from hreaderd_harness import Daemon, free_port, wait_for_port  # noqa: E402
from webapp import webapp_figure, webapp_lines  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
END = "2025-01-01"  # the synthetic records' history ends here
PAGES = ["day", "week", "month", "year", "decade", "all"]


def bench_daemon(bin_dir, entries, seed, workdir, members=1, name=None):
    """The harness's Daemon over a state directory made for the benchmark: a synthetic family (or only its
    first person) of `entries` entries a person imported, and an API token. Not started."""
    daemon = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, name or f"state-{entries}"))
    daemon.init()
    records = daemon.generate(os.path.join(workdir, f"records-{entries}.ndjson"), entries=entries, seed=seed)
    if members == 1:  # only the family's first person
        with open(records) as f:
            first = f.readline()
        with open(records, "w") as f:
            f.write(first)
    daemon.import_file(records)
    daemon.create_token("bench")
    return daemon


def binary_facts(bin_dir):
    """The release binary as installed (dist/hreaderd, stripped by scripts/build-release.sh) and as built, what it
    links (ldd), and whether Foundation's heavy parts are in it (symbols of ICU, FoundationNetworking or
    FoundationXML in the unstripped binary: none expected)."""
    built = os.path.join(bin_dir, "hreaderd")
    installed = os.path.join(bin_dir, "dist", "hreaderd")
    facts = {"built_mb": round(os.path.getsize(built) / 1e6, 1)}
    if os.path.exists(installed):
        facts["installed_mb"] = round(os.path.getsize(installed) / 1e6, 1)
        ldd = subprocess.run(["ldd", installed], capture_output=True, text=True).stdout
        facts["links"] = sorted({line.split()[0] for line in ldd.splitlines() if line.strip() and "=>" in line})
    names = subprocess.run(["nm", "--defined-only", built], capture_output=True, text=True).stdout
    facts["heavy_symbols"] = sum(1 for line in names.splitlines()
                                 if re.search(r"FoundationNetworking|FoundationXML|\bu_\w+_7\d\b|icu_7\d", line))
    # How much of the order file (the code the daemon runs, laid out first) the binary still has: a list gone
    # stale after larger changes packs less (scripts/link/make-order-file.py writes it again).
    defined = {line.split()[-1] for line in names.splitlines() if line.strip()}
    with open(os.path.join(REPO, "scripts", "link", "hreaderd.order")) as f:
        ordered = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    facts["ordered_functions"] = len(ordered)
    facts["ordered_found"] = sum(1 for name in ordered if name in defined)
    return facts


def million(bin_dir, workdir, entries=1_000_000, clients=3):
    """A generated record of a million entries: `import-file` (its time and its peak memory), then the daemon's
    `page=month` server time and its peak memory while `clients` clients read the `all` page at once."""
    d = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, "state-million"))
    r = import_million(d, entries, "sparse")
    d.create_token("bench")
    serve(d)
    try:
        # The all page first, on a daemon just started: what it adds is then what the page costs. (Later pages
        # fill the four readers' page caches, up to 16 MiB each, whatever page comes after.)
        r["rss_before_mib"] = round(d.rss_kib() / 1024, 1)
        sizes, errors = [], []

        def read_all(i):
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{d.port}/timeline.json?page=all&end=2030-01-0{i + 1}",
                                                 headers={"Authorization": f"Bearer {d.token}"})
                total = 0
                with urllib.request.urlopen(request, timeout=600) as response:
                    while chunk := response.read(1 << 20):
                        total += len(chunk)
                sizes.append(total)
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(repr(error))

        started = time.perf_counter()
        threads = [threading.Thread(target=read_all, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise RuntimeError(f"page=all of {entries} entries: {errors[0]}")
        r["all_clients"] = clients
        r["all_seconds"] = round(time.perf_counter() - started, 1)
        r["all_mb"] = round(max(sizes) / 1e6, 1)
        r["all_peak_mib"] = round(d.status_kib("VmHWM") / 1024, 1)
        d.get(f"/timeline.json?page=month&end={END}")
        r["month"] = page_times(d, "month", 10)
        r["rates"] = page_rates(d, entries, times={"month": r["month"]})
        r["rss_after_mib"] = round(d.rss_kib() / 1024, 1)
    finally:
        d.stop()
    return r


class PeakWatcher:
    """The peak resident memory of a child process, from its own `VmHWM`, read every 10 ms until it ends.

    Not `wait4`'s `ru_maxrss`: Python starts a child with vfork, and at exec Linux keeps the high-water mark of the
    memory the child shared until then, which is this benchmark's own. A child started after the benchmark had read
    three 160 MB pages reported a peak of 351 MiB that was Python's, not the import's (216 MiB, sampled)."""

    def __init__(self, pid):
        self.path = f"/proc/{pid}/status"
        self.kib = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while not self.done.is_set():
            try:
                with open(self.path) as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            self.kib = max(self.kib, int(line.split()[1]))
            except OSError:
                return  # gone
            self.done.wait(0.01)

    def stop_kib(self):
        """The highest mark read; call after the child has ended (its memory only falls in its last 10 ms)."""
        self.done.set()
        self.thread.join()
        return self.kib


def import_million(d, entries, mix):
    """`import-file` of a generated record of `entries` entries (`generate-records --mix MIX`) into the new store of
    `d`: its wall time, entries/s, CPU time and peak memory. Sparse: the history from 1990, 40 % vital signs and 30 %
    results; dense: 35 years, 40 % vital signs and 25 % results (about 2,500 entries a month at a million)."""
    d.init()
    records = os.path.join(d.work, f"records-million-{mix}.json")
    command = [str(d.tool("generate-records")), "--seed", "7", "--entries", str(entries), "--members", "1", "--output", records]
    if mix != "sparse":
        command += ["--mix", mix]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    r = {"entries": entries, "record_mb": round(os.path.getsize(records) / 1e6, 1)}
    # The record just written is written back first: the import is measured, not the generator's writeback.
    os.sync()
    time.sleep(2)
    started = time.perf_counter()
    process = subprocess.Popen(d.command("import-file", records), env=d.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = PeakWatcher(process.pid)
    _, status, usage = os.wait4(process.pid, 0)
    r["import_seconds"] = round(time.perf_counter() - started, 1)
    if status != 0:
        raise RuntimeError(f"import-file of {entries} {mix} entries failed: {process.stderr.read().decode()[-500:]}")
    r["import_entries_per_s"] = round(entries / r["import_seconds"])
    r["import_peak_mib"] = round(peak.stop_kib() / 1024, 1)
    # What the import's threads ran for, which other work on the machine changes less than the wall time.
    r["import_cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)
    os.remove(records)
    return r


def dense_million(bin_dir, workdir, entries=1_000_000, pages=False):
    """The dense million (issue 41): `import-file` of a record of `entries` entries over 35 years, about 2,500 a month;
    with `pages`, then month, year and all of it served (`page_rates`, in `rates`), from the same store."""
    d = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, "state-dense-million"))
    try:
        r = import_million(d, entries, "dense")
        if pages:
            d.create_token("bench")
            serve(d)
            try:
                d.get(f"/timeline.json?page=year&end={END}")  # the first read opens a reader
                r["rates"] = page_rates(d, entries)
            finally:
                d.stop()
        return r
    finally:
        shutil.rmtree(d.state, ignore_errors=True)


def million_import_lines(m, dense, writer=None):
    """The sparse and the dense million's imports, one beside the other; then, when given, the store's writer
    alone (`hreaderd-bench import-writer`): how fast the import could go, however fast it read."""
    target = "(targets: 50,000 entries/s, 256 MiB)"
    lines = [f"  import-file, {label}: {x['import_seconds']} s, {x['import_entries_per_s']:,} entries/s, {x.get('import_cpu_seconds', '?')} s of CPU,"
             f" peak {x['import_peak_mib']} MiB ({x['record_mb']} MB of record JSON) {target}"
             for label, x in (("sparse", m), ("dense (35 years, 2,500 entries a month)", dense))]
    if writer:
        s, d = writer["sparse"], writer["dense"]
        lines.append(f"  the store's writer alone, {s['entries']:,} entries made ready before the clock (hreaderd-bench import-writer):"
                     f" sparse {s['entries_per_second']:,}, dense {d['entries_per_second']:,} entries/s,"
                     f" {s['store_bytes_per_entry']} and {d['store_bytes_per_entry']} store bytes an entry: import-file's ceiling here")
    return lines


def import_writer(bin_dir, workdir):
    """`hreaderd-bench import-writer`'s figures (its JSON), for `--only million-import`."""
    path = os.path.join(workdir, "import-writer.json")
    subprocess.run([os.path.join(bin_dir, "hreaderd-bench"), "import-writer", "--json", path], check=True, capture_output=True, timeout=900)
    with open(path) as f:
        return json.load(f)["import_writer"]


def idle_from_disk(daemon):
    """Idle resident memory (MiB), locked and unlocked, with the binary's pages first dropped from the page
    cache (written back, then POSIX_FADV_DONTNEED), so that the kernel reads it from disk as after a boot."""
    figures = []
    for locked in (True, False):
        fd = os.open(daemon.binary, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        serve(daemon, locked=locked)
        time.sleep(1)
        figures.append(round(daemon.rss_kib() / 1024, 1))
        daemon.stop()
    return figures


def serve(daemon, locked=False):
    """`hreaderd serve` on a free port, the idle lock off; the seconds from the spawn to the first /healthz
    200. The log is kept: its access lines give each request's time inside the server (page_times)."""
    return daemon.start("--idle-lock", "0", *(["--locked"] if locked else []), timeout=30)


# The second wrk shape of page=year against nginx (the first is wrk's default here, 2 threads x 50).
YEAR_1X32 = {"threads": 1, "connections": 32}


def wrk(url, duration, headers=(), connections=50, threads=2):
    args = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{duration}s", "--latency"]
    for h in headers:
        args += ["-H", h]
    out = subprocess.run(args + [url], check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def latency(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p50_ms": latency(50), "p99_ms": latency(99),
            "non_2xx": int(errors.group(1)) if errors else 0, "socket_errors": socket_errors.group(1) if socket_errors else ""}


# Rounds of page=year against nginx: one hreaderd run and one nginx run a round, the ratio taken within each.
# On this shared two-core machine one server's req/s move by 15-30 % from minute to minute (nginx's from 63,000
# to 84,000 in two rounds of one minute), so a ratio of two runs minutes apart says more of the minute than of
# the servers.
YEAR_ROUNDS = 3


def year_rounds(url, auth, nginx_url, duration, shape, suffix, nio_url=None):
    """hreaderd and nginx in turn, YEAR_ROUNDS rounds of `duration` seconds split between them: the round of
    the median ratio (its two wrk results) and every round's ratio. With `nio_url`, each round also runs NIO's
    own HTTP/1 server serving the same answer (`nio_ceiling_server`), and its ratio to that round's nginx is kept
    beside: what the library the daemon is built on reaches on this machine with no application behind it."""
    seconds = max(2, duration // 2)
    rounds = []
    nio = []
    for _ in range(YEAR_ROUNDS):
        ours = wrk(url, seconds, auth, **shape)
        theirs = wrk(nginx_url, seconds, **shape)
        rounds.append((ours["rps"] / theirs["rps"], ours, theirs))
        if nio_url:
            bare = wrk(nio_url, seconds, auth, **shape)
            nio.append((bare["rps"] / theirs["rps"], bare))
    ratio, ours, theirs = sorted(rounds, key=lambda r: r[0])[len(rounds) // 2]
    results = {f"hreaderd_year{suffix}": ours, f"nginx_year{suffix}": theirs, f"ratio{suffix}": round(ratio, 3),
               f"ratio{suffix}_rounds": [round(r[0], 3) for r in rounds]}  # in the order they ran
    if nio:
        nio_ratio, bare = sorted(nio, key=lambda r: r[0])[len(nio) // 2]
        results.update({f"nio_year{suffix}": bare, f"nio_ratio{suffix}": round(nio_ratio, 3),
                        f"nio_ratio{suffix}_rounds": [round(r[0], 3) for r in nio]})
    return results


def raw_response(port, path, token):
    """The daemon's whole response to one keep-alive GET, as it wrote it (head and body)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += s.recv(65536)
        head = answer.partition(b"\r\n\r\n")[0].decode("latin-1")
        length = next(int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.lower().startswith("content-length:"))
        while len(answer) < len(head) + 4 + length:
            answer += s.recv(65536)
    return answer


def nio_ceiling_server(bin_dir, daemon, path, workdir):
    """`Tools/nio-ceiling --layer nio` serving the daemon's answer to `path` byte for byte (head and body): SwiftNIO's
    idiomatic HTTP/1 server (its decoder, pipelining handler and response encoder) with no application behind it.
    (process, url), or None when the binary was not built."""
    binary = os.path.join(bin_dir, "nio-ceiling")
    if not os.path.exists(binary):
        return None
    answer = raw_response(daemon.port, path, daemon.token)
    if not answer.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"unexpected answer for the NIO server to repeat: {answer[:200]!r}")
    answer_file = os.path.join(workdir, "nio-ceiling-answer.http")
    with open(answer_file, "wb") as f:
        f.write(answer)
    process, port = start_nio_ceiling(bin_dir, "nio", answer_file)
    return process, f"http://127.0.0.1:{port}{path}"


def start_nio_ceiling(bin_dir, layer, answer_file, timeout=20):
    """`Tools/nio-ceiling --layer LAYER` serving the answer in `answer_file` on a free port, once it listens:
    (process, port). A server that never listens is stopped before the error is raised."""
    port = free_port()
    process = subprocess.Popen([os.path.join(bin_dir, "nio-ceiling"), "--layer", layer, "--answer", answer_file, "--port", str(port)],
                               stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, timeout=timeout, process=process, name=f"nio-ceiling --layer {layer}")
    except Exception:
        process.kill()
        process.wait()
        raise
    return process, port


def nginx(payload, workdir):
    """nginx-light serving `payload` as a static JSON file, on its own port and config."""
    root = os.path.join(workdir, "nginx")
    os.makedirs(os.path.join(root, "html"), exist_ok=True)
    # nginx's workers run as nobody: they must be able to read the file (mkdtemp makes 0700 folders).
    for folder in (workdir, root, os.path.join(root, "html")):
        os.chmod(folder, 0o755)
    with open(os.path.join(root, "html", "timeline.json"), "wb") as f:
        f.write(payload)
    os.chmod(os.path.join(root, "html", "timeline.json"), 0o644)
    port = free_port()
    conf = os.path.join(root, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 2; daemon off; pid {root}/nginx.pid; error_log {root}/error.log;
events {{ worker_connections 1024; }}
http {{ access_log off; types {{ application/json json; }} default_type application/json;
  client_body_temp_path {root}/tmp; proxy_temp_path {root}/tmp; fastcgi_temp_path {root}/tmp;
  uwsgi_temp_path {root}/tmp; scgi_temp_path {root}/tmp;
  server {{ listen 127.0.0.1:{port}; root {root}/html; keepalive_requests 100000;
    location / {{ add_header Cache-Control no-store; }} }} }}
""")
    os.makedirs(os.path.join(root, "tmp"), exist_ok=True)
    proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", root], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/timeline.json", timeout=1) as r:
                if r.read() == payload:
                    break
        except OSError:
            time.sleep(0.01)
    return proc, port


NOTES = """## Reading the figures

- The machine is a 2-core VM shared with other work: the same commit gives figures up to 30% apart from
  one run to the next (nginx itself from 62,000 to 110,000 req/s). wrk, nginx and hreaderd share the two
  cores, so every comparison is made within one run.
- `GET /timeline.json` answers a page that was answered since the last commit from memory, on the event
  loop, without a store read: the WAL index header counts commits (`iChange`), so a change by another
  process is seen at once too. The wrk rows measure that path; the server-time rows bypass it (each
  request has another `end`) and measure reading and encoding.
- Each entry's JSON object is written at import and read from covering indexes, so a page copies bytes:
  the cost follows the entries in the window and the ongoing ones. The synthetic records keep a believable
  life course since 2026-11-24 (a condition, drug or allergy open once, not once more at every visit):
  before, a 100,000-entry record had 6,356 ongoing entries on every page and a 1,000,000-entry one about
  60,000, so the short pages of earlier runs (month 5.2 ms at 100,000 entries) measured those.
- The `all` page of a record of 200,000 entries or more is written as it is read, a part at a time, each
  type's entries a pass along the date index: slower than a page read whole (the 1,000,000-entry record's
  takes about 8 s for one client) but in bounded memory (three clients at once: 1,009 MiB before, 80 MiB).
- `import-file` and `reimport` write a record of 10,000 entries or more in place, through a rollback journal,
  when no daemon has the store open: each page written once, where the WAL writes it and the checkpoint
  copies it again (the 1,000,000-entry import spent 3–4 s in that copy). A large record file is also read a
  section at a time, side by side, so that its entries reach the store in date order: the date index, which
  holds each entry's JSON, then grows at its end instead of being read back and rewritten once a section
  (before: 1.9 times the store's size written before the commit and 0.9 GB read back; after: 1.1 times and
  0.2 GB, on a plain SQLite copy of the schema). With the insert's values bound by type, the 1,000,000-entry
  import went from 30 s to 17–21 s (run to run). The daemon's uploads and syncs always go through the WAL, so
  its readers never wait: the FHIR rows show both.
- A FHIR patient of 10,000 resources or more is mapped on one thread while the store's writer writes the
  batches before (`StreamedFHIRImport`), and the writer is now the slower of the two: for the generated
  100,000-resource bundle it spends about 1.0 s inserting (FTS4's share about 0.18 s) and 0.43-0.48 s in
  the commit, encrypting the 140 MB the transaction made, while the mapping thread has nothing left to do:
  most of it is SQLCipher's AES-256-CBC and HMAC-SHA1 of each page and the pager's own work (about 0.35 s
  for 140 MB on this CPU), on the writer's thread. Writing the commit's pages out on a second thread (a
  pass-through SQLite VFS in C, `CWriteBehind`) took the commit to 0.37 s, about 0.09 s of the 1.7 s
  import, and was removed again (issue 37): 358 lines of C on the durability path for that. Each FHIR
  entry keeps its resource's compact JSON (495 bytes on average, against about 210 for an RHEx entry):
  writing the bundle with that text cut to 160 bytes took 0.35 s less. The reading thread's steps alone
  are the `fhir-steps` rows. A batch the writer is done with is freed by the thread that made
  it (freed by the writer, into the other thread's malloc arena, it cost the writer 0.27 s).
- Idle memory is mostly code mapped from the binary and from shared libraries (libcrypto, whose OpenSSL 3
  provider alone is 2 MiB once the store is unlocked, libc, libstdc++); the process's own anonymous memory
  is under 4 MiB. The kernel maps code 64 KiB around each page first run (fault-around): the release build
  lays out the functions the daemon runs together (scripts/link/hreaderd.order) and exports no symbols, which
  took the binary's resident part from about 14 MiB to 9 (idle: 20.3 to 15.3 MiB locked, 25.5 to 20.1 MiB
  unlocked, measured apart). What is left is run code inside the static Swift runtime's and Foundation's
  large sections, which cannot be laid out function by function. libcurl and libxml2 (with ICU) are loaded
  only when a sync or an XML document first needs them.
- The web app's figures are the page's own User Timing measures (Public/timeline/js/draw-timing.js), read
  through WebDriver: from a view's JSON parsed to the first frame painted after its DOM was updated. They
  include the wait for that frame (up to 16.7 ms at 60 Hz) and, on a loaded machine, the compositor's delay
  before it: `script`, the app's own drawing, moves less from run to run.
"""


ACCESS_LINE = re.compile(rb"GET /timeline\.json 200 (\d+)B (\d+\.\d)ms")


def page_times(daemon, page, runs, timeout=30):
    """Time of a page inside the server, without the payload cache: each request has another `end`.

    The server's time is the daemon's own access log figure: from the request's arrival to the last byte
    handed to the socket (0.1 ms resolution). The time the client saw, which adds the client's own reading
    and parsing of the answer, is kept beside it."""
    client = []
    sizes = []
    time.sleep(0.1)  # lines of earlier requests are written a few milliseconds late: let them land first
    offset = os.path.getsize(daemon.log_path)
    base = 1_735_689_600  # 2025-01-01T00:00:00Z
    for i in range(runs):
        path = f"/timeline.json?page={page}&end={base - 60 * (i + 1)}"
        started = time.perf_counter()
        daemon.get(path, timeout=timeout)
        client.append((time.perf_counter() - started) * 1000)
    server = []
    for _ in range(200):  # the log's own thread writes a few milliseconds later
        with open(daemon.log_path, "rb") as f:
            f.seek(offset)
            found = list(ACCESS_LINE.finditer(f.read()))
            server = [float(m.group(2)) for m in found]
            sizes = [int(m.group(1)) for m in found]
        if len(server) >= runs:
            break
        time.sleep(0.01)
    if len(server) != runs:
        raise RuntimeError(f"expected {runs} access log lines for page={page}, found {len(server)}")
    client.sort()
    server.sort()
    return {"p50_ms": statistics.median(server), "min_ms": server[0], "max_ms": server[-1], "runs": runs,
            "client_p50_ms": statistics.median(client), "bytes": int(statistics.median(sizes))}


RATE_PAGES = ["month", "year", "all"]
RATE_SIZES = [10_000, 100_000, 1_000_000]
MIXES = ["sparse", "dense"]


def entries_shown(body):
    """The entries a page shows: its entry arrays, the ongoing ones and the vital signs' values."""
    page = json.loads(body)
    return (sum(len(v) for k, v in page.items() if isinstance(v, list) and k not in ("vitals", "posts", "readings"))
            + sum(len(group["values"]) for group in page.get("vitals", [])))


def page_rates(daemon, entries, times=None):
    """month, year and all of a record of `entries` entries: server time (p50, access log), bytes, entries
    shown, MB/s and microseconds an entry. `times`: page_times already taken (section 2), else taken here. The
    `all` page shows the whole record (its entries are the record's, not counted: a million-entry page is
    hundreds of MB of JSON); `all` at a million entries is timed 3 times (a few seconds each, streamed)."""
    rates = {}
    for page in RATE_PAGES:
        t = (times or {}).get(page) or page_times(daemon, page, (3 if entries >= 1_000_000 else 5) if page == "all" else 15, timeout=600)
        shown = entries if page == "all" else entries_shown(daemon.get(f"/timeline.json?page={page}&end={END}"))
        rates[page] = {"ms": t["p50_ms"], "min_ms": t["min_ms"], "max_ms": t["max_ms"], "bytes": t["bytes"], "entries": shown,
                       "mb_per_s": round(t["bytes"] / 1e6 / (t["p50_ms"] / 1000), 1) if t["p50_ms"] else None,
                       "us_per_entry": round(t["p50_ms"] * 1000 / shown, 2) if shown else None}
    return rates


def dense_rates(bin_dir, workdir, sizes=RATE_SIZES):
    """page_rates of dense records (`generate-records --mix dense`: about 2,500 entries a month at a million,
    two fifths of them vital signs), one store a size, imported with import-file."""
    rates = {}
    for n in sizes:
        d = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, f"state-dense-{n}"))
        d.init()
        records = os.path.join(workdir, f"records-dense-{n}.json")
        subprocess.run([str(d.tool("generate-records")), "--seed", "7", "--entries", str(n), "--members", "1", "--mix", "dense",
                        "--output", records], check=True, capture_output=True, timeout=600)
        d.import_file(records)
        os.remove(records)
        d.create_token("bench")
        serve(d)
        try:
            d.get(f"/timeline.json?page=year&end={END}")  # the first read opens a reader
            rates[str(n)] = page_rates(d, n)
        finally:
            d.stop()
        shutil.rmtree(d.state, ignore_errors=True)
    return rates


def rate_lines(r):
    """The table of bytes per second against record size and shape."""
    lines = ["Pages against record size and shape: server time (p50 ms, access log; payload cache bypassed), bytes a second and"
             " microseconds an entry shown", f"{'record':>20}{'page':>7}{'entries':>10}{'bytes':>13}{'ms':>9}{'MB/s':>8}{'us/entry':>10}"]
    for mix in MIXES:
        for n in RATE_SIZES:
            rates = r.get("page_rates", {}).get(mix, {}).get(str(n))
            if not rates:
                continue
            for page in RATE_PAGES:
                x = rates[page]
                lines.append(f"{mix + ' ' + format(n, ','):>20}{page:>7}{x['entries']:>10,}{x['bytes']:>13,}{x['ms']:>9.1f}"
                             f"{x['mb_per_s'] or 0:>8.0f}{x['us_per_entry'] or 0:>10.2f}")
    lines.append("targets: all at 100,000 entries < 150 ms; month of the dense 1,000,000 < 8 ms; us/entry flat across sizes")
    return lines


def svg_chart(sizes, page_results, path):
    """Latency (p50 ms, log scale) of each page against the record size."""
    import math
    width, height, left, bottom = 640, 360, 70, 50
    top, right = 30, 130
    xs = {n: left + (width - left - right) * i / max(1, len(sizes) - 1) for i, n in enumerate(sizes)}
    values = [page_results[n][p]["p50_ms"] for n in sizes for p in PAGES]
    lo, hi = math.log10(max(0.1, min(values))), math.log10(max(values) * 1.2)

    def y(v):
        return top + (height - top - bottom) * (1 - (math.log10(max(v, 0.1)) - lo) / max(0.001, hi - lo))

    colors = dict(day="#1b9e77", week="#d95f02", month="#7570b3", year="#e7298a", decade="#66a61e", all="#a6761d")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="18" font-size="14">GET /timeline.json server time (p50) against record size</text>']
    for n in sizes:
        parts.append(f'<text x="{xs[n]}" y="{height - bottom + 18}" text-anchor="middle">{n:,} entries</text>')
    for tick in [0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000]:
        if lo <= math.log10(tick) <= hi:
            parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>')
            parts.append(f'<text x="{left - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick} ms</text>')
    for i, p in enumerate(PAGES):
        points = " ".join(f"{xs[n]:.1f},{y(page_results[n][p]['p50_ms']):.1f}" for n in sizes)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colors[p]}" stroke-width="2"/>')
        for n in sizes:
            parts.append(f'<circle cx="{xs[n]:.1f}" cy="{y(page_results[n][p]["p50_ms"]):.1f}" r="3" fill="{colors[p]}"/>')
        parts.append(f'<text x="{width - right + 12}" y="{top + 16 * i + 10}" fill="{colors[p]}">page={p}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def upload_latency(bin_dir, workdir, resources=100_000, clients=3, rate=200, cached=True):
    """GET /timeline.json?page=year (hReader's size: a 200-entry patient) from `clients` keep-alive clients,
    `rate` requests a second each, while a generated FHIR bundle of `resources` resources (one person) is
    uploaded with POST /imports/files and imported: the latency of the requests due between the upload's first
    byte and its job's end, each from when it was due. An upload must not stall the requests of everyone else
    (it is read, mapped and written on threads of its own, not on the Swift concurrency pool that answers them).

    cached: every client asks for the same page, which the daemon answers from its payload cache on the event
    loop while no commit has changed the store; otherwise each request has another `end`, so that every page
    is read from the store, through the concurrency pool, as most routes are."""
    import http.client
    own = os.path.join(workdir, "upload-cached" if cached else "upload-uncached")
    os.makedirs(own, exist_ok=True)
    d = bench_daemon(bin_dir, 200, 2012, own)
    body = generated_bundle(d, bin_dir, workdir, resources)
    serve(d)
    base = 1_735_689_600  # 2025-01-01T00:00:00Z
    paths = itertools.count() if not cached else None

    def path():
        return f"/timeline.json?page=year&end={END}" if cached else f"/timeline.json?page=year&end={base - 60 * next(paths)}"

    headers = {"Authorization": f"Bearer {d.token}"}
    for _ in range(20):
        d.get(path())  # warm up
    stop = threading.Event()
    samples = []  # (due, milliseconds, status)
    lock = threading.Lock()

    def client():
        # On a fixed schedule, `rate` requests a second, each timed from when it was due: a stall then counts
        # for every request it held back, not only for the one that met it (no coordinated omission).
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=60)
        mine = []
        due = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            if now < due:
                time.sleep(due - now)
            conn.request("GET", path(), headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append((due, (time.perf_counter() - due) * 1000, response.status))
            due += 1 / rate
        conn.close()
        with lock:
            samples.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    try:
        upload_started, accepted, upload_done, state = upload(d, body, headers)
        time.sleep(0.5)
        # What the upload leaves the daemon holding once it is over (FreedMemory gives back what it freed).
        peak_mib, after_mib = round(d.status_kib("VmHWM") / 1024, 1), round(d.rss_kib() / 1024, 1)
    finally:
        stop.set()
        for t in threads:
            t.join()
        d.stop()
    during = sorted(ms for due, ms, status in samples if upload_started <= due <= upload_done and status == 200)
    if not during:
        raise RuntimeError("no request was made during the upload")
    bad = sum(1 for due, _, status in samples if upload_started <= due <= upload_done and status != 200)

    def pct(p):
        return during[min(len(during) - 1, int(round(p / 100 * (len(during) - 1))))]

    return {"resources": resources, "bundle_mb": round(len(body) / 1e6, 1), "clients": clients, "rate": rate, "cached": cached, "job": state,
            "accepted_seconds": round(accepted - upload_started, 2), "upload_seconds": round(upload_done - upload_started, 2),
            "requests": len(during), "non_200": bad, "p50_ms": round(pct(50), 2), "p99_ms": round(pct(99), 2), "p999_ms": round(pct(99.9), 2),
            "max_ms": round(during[-1], 2), "peak_mib": peak_mib, "rss_after_mib": after_mib}


def generated_bundle(d, bin_dir, workdir, resources):
    """The bytes of a generated FHIR bundle of one person and `resources` resources (made once a run)."""
    bundle = os.path.join(workdir, f"bundle-{resources}.json")
    if not os.path.exists(bundle):
        subprocess.run([os.path.join(bin_dir, "generate-records"), "--format", "fhir", "--entries", str(resources - 1),
                        "--members", "1", "--seed", "2012", "--output", bundle], check=True, env=d.env)
    with open(bundle, "rb") as f:
        return f.read()


def daemon_upload(bin_dir, workdir, resources=100_000, runs=3):
    """The generated FHIR bundle uploaded through the running daemon, alone: POST /imports/files, then its job
    followed to its end (polled every 10 ms), each run on a daemon of its own. The design's measure of FHIR uploads
    (at least 50,000 resources/s); hreaderd-bench's rows run the import in its own process, without the HTTP side or
    the daemon's threads. Also the daemon's CPU time for it, and what it holds 0.5 s after the job."""
    measured = []
    body = None
    for i in range(runs):
        own = os.path.join(workdir, f"daemon-upload-{i}")
        os.makedirs(own, exist_ok=True)
        d = bench_daemon(bin_dir, 200, 2012, own)
        body = body or generated_bundle(d, bin_dir, workdir, resources)
        serve(d)
        try:
            cpu_before = d.cpu_seconds()
            started, accepted, ended, state = upload(d, body, {"Authorization": f"Bearer {d.token}"}, poll=0.01)
            cpu = d.cpu_seconds() - cpu_before
            time.sleep(0.5)
            measured.append({"seconds": ended - started, "accepted_seconds": accepted - started, "cpu_seconds": cpu,
                             "rss_after_mib": d.rss_kib() / 1024, "state": state})
        finally:
            d.stop()
    middle = sorted(measured, key=lambda m: m["seconds"])[len(measured) // 2]
    return {"resources": resources, "bundle_mb": round(len(body) / 1e6, 1), "runs": [round(m["seconds"], 2) for m in measured],
            "seconds": round(middle["seconds"], 2), "accepted_seconds": round(middle["accepted_seconds"], 2),
            "cpu_seconds": round(middle["cpu_seconds"], 2), "rss_after_mib": round(middle["rss_after_mib"], 1),
            "resources_per_second": round(resources / middle["seconds"]), "states": sorted({m["state"] for m in measured})}


def daemon_upload_line(u):
    return (f"the same bundle ({u['bundle_mb']} MB) uploaded alone through the daemon (POST /imports/files, its job followed to its end; "
            f"the median of {len(u['runs'])}: {', '.join(f'{x} s' for x in u['runs'])}): {u['seconds']} s, "
            f"{u['resources_per_second']:,} resources/s (target 50,000), the 202 after {u['accepted_seconds']} s, "
            f"{u['cpu_seconds']} s of the daemon's CPU, {u['rss_after_mib']} MiB resident 0.5 s after the job; jobs {'/'.join(u['states'])}")


def upload(daemon, body, headers, poll=0.05):
    """POST /imports/files of `body`, then its job polled every `poll` seconds until it ends: (started, accepted,
    ended, final state), times from time.perf_counter()."""
    import http.client
    time.sleep(1)
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=120)
    conn.request("POST", "/imports/files?name=bundle.json", body=body,
                 headers=dict(headers, **{"Content-Type": "application/fhir+json"}))
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    accepted = time.perf_counter()
    if response.status != 202:
        raise RuntimeError(f"the upload answered {response.status}: {answer}")
    job_id = answer["job"]["id"]
    state = "running"
    while state == "running":
        time.sleep(poll)
        state = json.loads(daemon.get(f"/imports/jobs/{job_id}"))["job"]["state"]
    return started, accepted, time.perf_counter(), state


def upload_latency_line(u):
    which = "the same page, from the payload cache" if u["cached"] else "each with another end, read from the store"
    return (f"GET /timeline.json?page=year ({u['clients']} keep-alive clients at {u['rate']}/s each, timed from when due; {which}) "
            f"while a {u['resources']:,}-resource FHIR bundle ({u['bundle_mb']} MB) is uploaded and imported (POST /imports/files, 202 after {u['accepted_seconds']} s, job "
            f"{u['job']} after {u['upload_seconds']} s): {u['requests']} requests, p50 {u['p50_ms']:.2f} ms, p99 {u['p99_ms']:.2f} ms, "
            f"p99.9 {u['p999_ms']:.2f} ms, max {u['max_ms']:.2f} ms, non-200 {u['non_200']} (target p99 < 50 ms); the daemon's peak "
            f"{u.get('peak_mib', '?')} MiB, {u.get('rss_after_mib', '?')} MiB resident 0.5 s after the job")


CCDA_VENDORS = os.path.join(REPO, "..", "shared", "ccda-vendors")
ENTRIES_LINE = re.compile(r"entries (\d+) added, (\d+) updated, (\d+) unchanged")


def ccda_corpus(bin_dir, workdir, folder=CCDA_VENDORS):
    """7. The vendors' C-CDA documents (../shared/ccda-vendors: 196 certification documents of 25 vendors):
    imported by one `import-file` run of a folder holding them all (documents/s, entries/s), then, into a
    fresh store, each uploaded with POST /imports/files and its job followed to its end, one after another."""
    paths = sorted(os.path.join(root, name) for root, _, names in os.walk(folder) for name in names
                   if name.lower().endswith((".xml", ".ccd")))
    if not paths:
        raise RuntimeError(f"no documents in {folder} (the shared corpus is absent)")
    flat = os.path.join(workdir, "ccda-corpus")
    os.makedirs(flat, exist_ok=True)
    for index, path in enumerate(paths):  # one folder: vendors reuse file names
        os.symlink(os.path.abspath(path), os.path.join(flat, f"{index:03d}-{os.path.basename(path)}"))
    cli = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, "state-ccda-cli"))
    cli.init()
    started = time.perf_counter()
    out = cli.import_file(flat)
    cli_seconds = time.perf_counter() - started
    match = ENTRIES_LINE.search(out.splitlines()[-1] if out else "")
    cli_entries = sum(int(n) for n in match.groups()) if match else 0

    d = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, "state-ccda-upload"))
    d.init()
    d.create_token("bench")
    serve(d)
    import http.client
    headers = {"Authorization": f"Bearer {d.token}", "Content-Type": "application/xml"}
    upload_entries = 0
    failed = 0
    try:
        started = time.perf_counter()
        for index, path in enumerate(paths):
            conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=120)
            conn.request("POST", f"/imports/files?name={index:03d}.xml", body=open(path, "rb").read(), headers=headers)
            response = conn.getresponse()
            answer = json.loads(response.read())
            conn.close()
            if response.status != 202:
                failed += 1
                continue
            job_id = answer["job"]["id"]
            body = json.loads(d.get(f"/imports/jobs/{job_id}"))
            while body["job"]["state"] in ("queued", "running"):
                time.sleep(0.005)
                body = json.loads(d.get(f"/imports/jobs/{job_id}"))
            if body["job"]["state"] != "done":
                failed += 1
            totals = (body.get("report") or {}).get("totals") or {}
            upload_entries += totals.get("entries_added", 0) + totals.get("entries_updated", 0) + totals.get("entries_unchanged", 0)
        upload_seconds = time.perf_counter() - started
    finally:
        d.stop()
    return {"documents": len(paths), "cli_seconds": round(cli_seconds, 2), "cli_entries": cli_entries,
            "cli_documents_per_s": round(len(paths) / cli_seconds, 1), "cli_entries_per_s": round(cli_entries / cli_seconds),
            "upload_seconds": round(upload_seconds, 2), "upload_entries": upload_entries, "upload_failed": failed,
            "upload_documents_per_s": round(len(paths) / upload_seconds, 1), "upload_entries_per_s": round(upload_entries / upload_seconds)}


def ccda_corpus_lines(c):
    return [f"The vendors' C-CDA corpus ({c['documents']} documents, ../shared/ccda-vendors):",
            f"  import-file of the folder: {c['cli_seconds']} s, {c['cli_documents_per_s']} documents/s, {c['cli_entries_per_s']:,} entries/s"
            f" ({c['cli_entries']:,} entries, the process's start and the store's open included)",
            f"  POST /imports/files, one document at a time, each job followed to its end: {c['upload_seconds']} s,"
            f" {c['upload_documents_per_s']} documents/s, {c['upload_entries_per_s']:,} entries/s ({c['upload_entries']:,} entries,"
            f" {c['upload_failed']} not imported)"]


LIBRARY_PACK = os.path.join(REPO, ".build", "library", "default")
SERVER_LINE = re.compile(rb"GET (\S+) 200 (\d+)B (\d+\.\d)ms")
LIBRARY_QUERIES = ["diabetes", "asthma", "flu", "blood pressure", "vaccine", "hepat", "cholesterol", "pregnancy", "a1c", "heart attack",
                   "sleep", "cancer screening", "allergy", "covid", "kidney"]


def server_times(daemon, paths, runs):
    """Server time (ms, the daemon's access log) of GET each of `paths`, round robin, `runs` requests in all."""
    time.sleep(0.1)
    offset = os.path.getsize(daemon.log_path)
    for i in range(runs):
        daemon.get(paths[i % len(paths)])
    times = []
    for _ in range(200):
        with open(daemon.log_path, "rb") as f:
            f.seek(offset)
            times = [float(m.group(3)) for m in SERVER_LINE.finditer(f.read())]
        if len(times) >= runs:
            break
        time.sleep(0.01)
    times.sort()
    return {"p50_ms": statistics.median(times), "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))], "max_ms": times[-1],
            "runs": len(times)}


EXPORT_ENTRIES = 10_000


def export_figure(bin_dir, workdir):
    """7. The documents for a doctor of a 10,000-entry person: server time of GET ips.json and ccda.xml
    (target < 200 ms each), and their sizes."""
    d = bench_daemon(bin_dir, EXPORT_ENTRIES, 2040, workdir, name="state-export")
    d.start("--idle-lock", "0")
    patient = json.loads(d.get("/patients.json"))["current"]
    r = {"entries": EXPORT_ENTRIES}
    for name, path in (("ips", f"/patients/{patient}/ips.json"), ("ccda", f"/patients/{patient}/ccda.xml")):
        r[name] = server_times(d, [path], 20)
        r[name]["bytes"] = len(d.get(path))
    r["load_average"] = round(os.getloadavg()[0], 2)
    d.stop()
    return r


def export_lines(r):
    return [f"Documents for a doctor of a {r['entries']:,}-entry person (target < 200 ms each; load average {r['load_average']}):"] + [
        f"  {label}: {r[key]['p50_ms']:.1f} ms p50, {r[key]['max_ms']:.1f} ms max over {r[key]['runs']} requests, "
        f"{r[key]['bytes'] / 1e6:.1f} MB" for key, label in (("ips", "IPS (ips.json)"), ("ccda", "CCD (ccda.xml)"))]


def wait_json(daemon, path, condition, timeout=60, interval=0.01):
    deadline = time.monotonic() + timeout
    while True:
        body = json.loads(daemon.get(path))
        if condition(body) or time.monotonic() > deadline:
            return body
        time.sleep(interval)


def library(bin_dir, workdir):
    """6. The health library over the default pack: memory without and with it, about.json and search server
    times, and an update of the default pack (a newer version of the same content) from a local publisher."""
    if not os.path.exists(os.path.join(LIBRARY_PACK, "manifest.json.sha256")):
        subprocess.run([os.path.join(REPO, "scripts", "build-library-pack.sh")], check=True, capture_output=True)
    r = {}
    d = bench_daemon(bin_dir, 200, 2012, workdir, name="state-library")
    # Idle memory without a library, then with the bundled pack installed (by an earlier start: the second
    # start finds it there and opens nothing until a library request).
    d.start("--idle-lock", "0", "--bundled-library", "none")
    time.sleep(1)
    r["idle_rss_mib_without"] = round(d.rss_kib() / 1024, 1)
    d.stop()
    started = time.perf_counter()
    d.start("--idle-lock", "0", "--bundled-library", LIBRARY_PACK)
    wait_json(d, "/library.json", lambda b: b.get("installed") is not None)
    r["bundled_install_s"] = round(time.perf_counter() - started, 2)
    d.stop()
    d.start("--idle-lock", "0", "--bundled-library", LIBRARY_PACK)
    time.sleep(1)
    r["idle_rss_mib_with"] = round(d.rss_kib() / 1024, 1)
    installed = json.loads(d.get("/library.json"))["installed"]
    r["pack"] = {"version": installed["version"], "topics": installed["topics"], "vaccines": installed["vaccines"],
                 "gz_bytes": json.load(open(os.path.join(LIBRARY_PACK, "manifest.json")))["database"]["bytes"]}
    # The entries a person opens "About this" on: immunizations, conditions and results of the record.
    patient = json.loads(d.get("/patients.json"))["current"]
    timeline = json.loads(d.get(f"/timeline.json?page=all&end={END}"))
    ids = [e["id"] for key in ("immunizations", "conditions", "results") for e in timeline.get(key, [])]
    about = [f"/patients/{patient}/entries/{i}/about.json" for i in ids]
    with_topic = sum(1 for p in about if json.loads(d.get(p))["topics"])  # also warms the connection
    r["about"] = server_times(d, about, 300)
    r["about"]["entries"] = len(about)
    r["about"]["with_a_topic"] = with_topic
    searches = ["/library/search.json?q=" + urllib.parse.quote(q) for q in LIBRARY_QUERIES]
    r["search"] = server_times(d, searches, 300)
    r["idle_rss_mib_after_use"] = round(d.rss_kib() / 1024, 1)
    d.stop()

    # An update: the same content as a newer version, signed by a publisher key, served as static files.
    tool = os.path.join(bin_dir, "hreaderd-library-pack")
    publisher = os.path.join(workdir, "publisher")
    key = os.path.join(workdir, "publisher.pem")
    subprocess.run([tool, "keygen", "--output", key], check=True, capture_output=True)
    newer = installed["version"] + ".1"
    content = os.path.join(REPO, "Resources", "library")
    subprocess.run([tool, "build", "--content", content + "/content", "--codes", content + "/codes", "--strings", content + "/strings",
                    "--key", key, "--version", newer, "--output", publisher], check=True, capture_output=True)
    handler = functools.partial(QuietFiles, directory=publisher)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        d.start("--idle-lock", "0", "--bundled-library", LIBRARY_PACK, "--library-url", f"http://127.0.0.1:{server.server_port}",
                "--library-public-key", key + ".pub")
        wait_json(d, "/library.json", lambda b: b.get("available") is not None)
        started = time.perf_counter()
        status, _ = d.http("POST", "/library/update")
        if status != 202:
            raise RuntimeError(f"POST /library/update answered {status}")
        done = wait_json(d, "/library.json", lambda b: b["update"]["state"] in ("installed", "failed"), interval=0.005)
        r["update_s"] = round(time.perf_counter() - started, 3)
        if done["update"]["state"] != "installed":
            raise RuntimeError(f"the library update failed: {done['update']}")
        logged = None
        for _ in range(200):  # the log's own thread writes a few milliseconds later
            logged = re.search(rb"switched in (\d+) ms", open(d.log_path, "rb").read())
            if logged:
                break
            time.sleep(0.01)
        r["update_logged_ms"] = int(logged.group(1)) if logged else None
        r["update_version"] = done["installed"]["version"]
        d.stop()
    finally:
        server.shutdown()
    return r


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def library_lines(r):
    a, s = r["about"], r["search"]
    return [
        f"Health library, the default pack {r['pack']['version']} ({r['pack']['topics']} topics, {r['pack']['vaccines']} vaccines, "
        f"{r['pack']['gz_bytes']:,} bytes gzipped), over a synthetic patient of 200 entries:",
        f"  about.json: {a['p50_ms']:.1f} ms p50, {a['p99_ms']:.1f} ms p99 server time over {a['entries']} immunizations, conditions and results"
        f" ({a['with_a_topic']} with a topic; target p50 < 5 ms)",
        f"  library search: {s['p50_ms']:.1f} ms p50, {s['p99_ms']:.1f} ms p99 over {len(LIBRARY_QUERIES)} queries (target p50 < 10 ms)",
        f"  update to {r['update_version']} from a local publisher: {r['update_s']:.2f} s from POST /library/update to installed"
        f" ({r['update_logged_ms']} ms in the daemon: checked, downloaded, verified and switched; target < 2 s)",
        f"  idle memory: {r['idle_rss_mib_without']} MiB without a library, {r['idle_rss_mib_with']} MiB with it installed"
        f" (target: within 1 MiB), {r['idle_rss_mib_after_use']} MiB after the requests above; the bundled pack installed at a first start"
        f" in {r['bundled_install_s']} s",
    ]


def only_figure(name, bin_dir, workdir):
    """The lines of one figure alone (`--only NAME`), its stores under `workdir`."""
    if name == "webapp":
        return webapp_lines(webapp_figure(bin_dir, workdir))
    if name == "million-import":
        d = Daemon(bin_dir, workdir, password="bench password", state=os.path.join(workdir, "state-million"))
        sparse = import_million(d, 1_000_000, "sparse")
        shutil.rmtree(d.state, ignore_errors=True)
        return million_import_lines(sparse, dense_million(bin_dir, workdir), import_writer(bin_dir, workdir))
    if name == "ccda-corpus":
        return ccda_corpus_lines(ccda_corpus(bin_dir, workdir))
    if name == "library":
        return library_lines(library(bin_dir, workdir))
    if name == "export":
        return export_lines(export_figure(bin_dir, workdir))
    if name == "upload-latency":
        return [upload_latency_line(upload_latency(bin_dir, workdir, cached=cached)) for cached in (True, False)]
    if name == "daemon-upload":
        return [daemon_upload_line(daemon_upload(bin_dir, workdir))]
    raise ValueError(f"no figure named {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10, help="seconds of each measured wrk run (default 10)")
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "release"),
                        help="folder of hreaderd, generate-records and hreaderd-bench (default .build/release)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="record sizes of the page latency section")
    parser.add_argument("--only", choices=["upload-latency", "daemon-upload", "library", "export", "ccda-corpus", "million-import", "webapp"],
                        help="run only this figure and print it (upload-latency: page=year while a large upload imports;"
                             " daemon-upload: the same upload alone through the daemon, resources/s;"
                             " library: about.json, search, an update and memory over the default pack;"
                             " export: the IPS and the CCD of a 10,000-entry person;"
                             " ccda-corpus: the vendors' C-CDA documents by import-file and by upload;"
                             " million-import: import-file of the sparse and the dense million;"
                             " webapp: the Summary, Year and Decade drawn in headless Chromium, 1,500 and 10,000 entries)")
    args = parser.parse_args()
    if args.only:
        workdir = tempfile.mkdtemp(prefix="hreaderd-bench-")
        try:
            print("\n".join(only_figure(args.only, args.bin, workdir)))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    workdir = tempfile.mkdtemp(prefix="hreaderd-bench-")
    results = {"machine": {"cpus": os.cpu_count(), "kernel": platform.release(), "load_average_at_start": round(os.getloadavg()[0], 2),
                           "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")},
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        # 1. hReader's size.
        small = bench_daemon(args.bin, 200, 2012, workdir)
        results["start_to_ready_ms"] = round(serve(small, locked=True) * 1000, 1)
        time.sleep(1)
        results["idle_rss_mib_locked"] = round(small.rss_kib() / 1024, 1)
        small.stop()
        serve(small)
        time.sleep(1)
        results["idle_rss_mib"] = round(small.rss_kib() / 1024, 1)
        results["idle_anonymous_mib"] = round(small.smaps_rollup_kib("Anonymous") / 1024, 1)
        small.stop()
        # Again with the binary read from disk, as when the service starts at boot: a binary the linker has just
        # written sits in the page cache in larger pieces (folios), and the kernel maps more of it at each first
        # fault (measured: about 1.3 MiB more resident, the same code run).
        results["idle_rss_mib_locked_from_disk"], results["idle_rss_mib_from_disk"] = idle_from_disk(small)
        serve(small)
        results["binary"] = binary_facts(args.bin)
        path = f"/timeline.json?page=year&end={END}"
        payload = small.get(path)
        body = json.loads(payload)
        results["payload"] = {"bytes": len(payload), "entries": sum(len(v) for k, v in body.items()
                                                                    if isinstance(v, list) and k not in ("vitals", "timeline_entries"))}
        url = f"http://127.0.0.1:{small.port}{path}"
        auth = [f"Authorization: Bearer {small.token}"]
        wrk(url, 2, auth)  # warm up
        proc, port = nginx(payload, workdir)
        nio_server = None
        try:
            nio_server = nio_ceiling_server(args.bin, small, path, workdir)
            nginx_url = f"http://127.0.0.1:{port}/timeline.json"
            wrk(nginx_url, 2)
            nio_url = nio_server[1] if nio_server else None
            if nio_url:
                wrk(nio_url, 2, auth)
            # Issue 41's target is met with both shapes: wrk's default here (2 threads x 50) and 1 x 32.
            for suffix, shape in (("", {}), ("_1x32", YEAR_1X32)):
                results.update(year_rounds(url, auth, nginx_url, args.duration, shape, suffix, nio_url))
        finally:
            for process in [proc] + ([nio_server[0]] if nio_server else []):
                process.terminate()
                process.wait()
        results["peak_rss_mib"] = round(small.status_kib("VmHWM") / 1024, 1)

        # The same with a writer posting levels ~20 times a second (each post changes the patient's revision).
        stop = threading.Event()
        posted = [0]

        def writer():
            while not stop.is_set():
                if small.http("POST", "/timeline.json?key=levels", "pain=3&mood=6", "application/x-www-form-urlencoded")[0] == 201:
                    posted[0] += 1
                time.sleep(0.05)

        t = threading.Thread(target=writer)
        t.start()
        results["hreaderd_year_with_writer"] = wrk(url, args.duration, auth)
        stop.set()
        t.join()
        results["hreaderd_year_with_writer"]["posts"] = posted[0]
        small.stop()

        # 1b. The same page while a large upload is read, mapped and written.
        results["upload_latency"] = upload_latency(args.bin, workdir)
        results["upload_latency_uncached"] = upload_latency(args.bin, workdir, cached=False)
        results["daemon_upload"] = daemon_upload(args.bin, workdir)

        # 2. Pages against record size.
        page_results = {}
        for n in sizes:
            d = bench_daemon(args.bin, n, 7, workdir)
            serve(d)
            d.get(f"/timeline.json?page=all&end={END}")  # warm the page cache
            page_results[n] = {p: page_times(d, p, 5 if (p == "all" and n >= 100_000) else 15) for p in PAGES}
            if n in RATE_SIZES:
                results.setdefault("page_rates", {}).setdefault("sparse", {})[str(n)] = page_rates(d, n, times=page_results[n])
            d.stop()
        results["pages"] = {str(n): v for n, v in page_results.items()}
        os.makedirs(os.path.join(REPO, "docs"), exist_ok=True)
        svg_chart(sizes, page_results, os.path.join(REPO, "docs", "latency-vs-record-size.svg"))

        # 2b. A million entries: import, a short page, the whole page read by three clients at once.
        results["million"] = million(args.bin, workdir)
        results["dense_million"] = dense_million(args.bin, workdir, pages=True)
        results.setdefault("page_rates", {}).setdefault("sparse", {})["1000000"] = results["million"]["rates"]
        # 2c. The same pages of dense records: 10,000 and 100,000 entries here, the million's from its store above.
        results["page_rates"]["dense"] = dict(dense_rates(args.bin, workdir, sizes=RATE_SIZES[:-1]),
                                              **{str(RATE_SIZES[-1]): results["dense_million"]["rates"]})

        # 3. Store and import figures.
        bench_json = os.path.join(workdir, "store.json")
        out = subprocess.run([os.path.join(args.bin, "hreaderd-bench"), "--json", bench_json], check=True, capture_output=True, text=True)
        results["store_and_import"] = json.load(open(bench_json))
        results["store_and_import_table"] = out.stdout

        # 6. The health library.
        results["library"] = library(args.bin, workdir)
        # 7. The documents for a doctor.
        results["export"] = export_figure(args.bin, workdir)
        # 8. The vendors' C-CDA documents, when the shared corpus is there.
        if os.path.isdir(CCDA_VENDORS):
            results["ccda_corpus"] = ccda_corpus(args.bin, workdir)
        # 9. The web app's drawing, in headless Chromium.
        results["webapp"] = webapp_figure(args.bin, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report(results, sizes)


def year_against_nginx_line(r):
    """page=year against nginx with both wrk shapes, each as hreaderd req/s, nginx req/s and the ratio (issue 41)."""
    shapes = [("1 x 32", "hreaderd_year_1x32", "nginx_year_1x32", "ratio_1x32"), ("2 x 50", "hreaderd_year", "nginx_year", "ratio")]
    def rounds(q):
        return f" (rounds {', '.join(f'{x:.2f}' for x in r[q + '_rounds'])})" if q + "_rounds" in r else ""
    parts = [f"wrk {label}: {r[h]['rps']:,.0f} / {r[n]['rps']:,.0f} req/s = {r[q]:.2f}{rounds(q)}" for label, h, n, q in shapes if h in r]
    line = ("page=year hreaderd / nginx, the round of the median ratio, " + "; ".join(parts)
            + " (target >= 0.8 with both)")
    nio = [f"wrk {label}: {r['nio_' + h.removeprefix('hreaderd_')]['rps']:,.0f} req/s = {r['nio_' + q]:.2f}{rounds('nio_' + q)}"
           for label, h, n, q in shapes if "nio_" + q in r]
    if nio:
        line += ("\nthe same answer from SwiftNIO's own HTTP/1 server with no application behind it (Tools/nio-ceiling --layer nio), "
                 "against nginx in the same rounds: " + "; ".join(nio))
    return line


def report(r, sizes):
    lines = []
    w = lines.append
    w(f"hreaderd benchmark, {r['date']}, {r['machine']['cpus']} CPUs ({r['machine']['cpu']}), Linux {r['machine']['kernel']}, "
      f"load average {r['machine']['load_average_at_start']} at start")
    w("")
    w(f"GET /timeline.json?page=year, synthetic patient of 200 entries ({r['payload']['entries']} in the window, {r['payload']['bytes']} bytes), wrk 2 threads x 50 keep-alive connections unless said")
    w(f"{'server':46}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'non-2xx':>9}")
    for label, key in [("hreaderd (API token)", "hreaderd_year"), ("nginx, the same bytes as a static file", "nginx_year"),
                       ("hreaderd with a writer posting ~20/s", "hreaderd_year_with_writer"),
                       ("hreaderd (API token), wrk 1 thread x 32", "hreaderd_year_1x32"), ("nginx, wrk 1 thread x 32", "nginx_year_1x32"),
                       ("SwiftNIO alone (nio-ceiling --layer nio)", "nio_year"), ("SwiftNIO alone, wrk 1 thread x 32", "nio_year_1x32")]:
        if key not in r:
            continue  # a results file from before the 1 x 32 rows
        x = r[key]
        w(f"{label:46}{x['rps']:>10.0f}{x['p50_ms']:>9.2f}{x['p99_ms']:>9.2f}{x['non_2xx']:>9}")
    w(year_against_nginx_line(r))
    w(f"posts during the writer run: {r['hreaderd_year_with_writer'].get('posts', 0)}")
    w(upload_latency_line(r["upload_latency"]))
    w(upload_latency_line(r["upload_latency_uncached"]))
    if "daemon_upload" in r:  # a results file from before this figure
        w(daemon_upload_line(r["daemon_upload"]))
    w("")
    w("Server time of each page (p50 ms, from the daemon's access log; payload cache bypassed: every request has another end)")
    w(f"{'entries':>10}" + "".join(f"{p:>10}" for p in PAGES))
    for n in sizes:
        w(f"{n:>10}" + "".join(f"{r['pages'][str(n)][p]['p50_ms']:>10.2f}" for p in PAGES))
    w("targets at 100,000 entries: month < 10 ms, all < 150 ms")
    month = next((t for t in r["store_and_import"].get("timeline", []) if t["page"] == "month"), None)
    if month:
        w(f"(a short page of the 100,000-entry patient is not small: month holds {month['entries']} entries but also "
          f"{month['ongoing']:,} ongoing conditions, medications and allergies, {month['bytes'] / 1e6:.1f} MB in all)")
    w("")
    w(f"start to ready (locked, no scrypt): {r['start_to_ready_ms']} ms (target < 200 ms)")
    w(f"idle resident memory: {r['idle_rss_mib_locked_from_disk']} MiB locked, {r['idle_rss_mib_from_disk']} MiB unlocked, the binary read from disk"
      f" as at boot (target < 20 MiB); {r['idle_rss_mib_locked']} and {r['idle_rss_mib']} MiB with the binary as the build left it"
      f" in the page cache; peak under wrk: {r['peak_rss_mib']} MiB")
    w(f"  of which anonymous (heap, stacks, written data; the rest is the binary's and libraries' mapped code): {r['idle_anonymous_mib']} MiB")
    m = r["million"]
    w(f"A generated record of {m['entries']:,} entries ({m['record_mb']} MB of record JSON):")
    for line in million_import_lines(m, r["dense_million"], r["store_and_import"].get("import_writer")):
        w(line)
    w(f"  page=month: {m['month']['p50_ms']:.1f} ms server time (p50; target 10 ms)")
    w(f"  page=all ({m['all_mb']} MB, written as it is read) by {m['all_clients']} clients at once: {m['all_seconds']} s,"
      f" the daemon's peak {m['all_peak_mib']} MiB (target 128 MiB; {m['rss_before_mib']} MiB before; {m['rss_after_mib']} MiB"
      " after the month pages, its readers' page caches full)")
    for line in rate_lines(r):
        w(line)
    for line in library_lines(r["library"]):
        w(line)
    if "export" in r:
        for line in export_lines(r["export"]):
            w(line)
    if "ccda_corpus" in r:
        for line in ccda_corpus_lines(r["ccda_corpus"]):
            w(line)
    if "webapp" in r:
        for line in webapp_lines(r["webapp"]):
            w(line)
    b = r["binary"]
    w(f"release binary: {b.get('installed_mb', '?')} MB as installed (stripped; target < 40 MB), {b['built_mb']} MB as built "
      f"(with symbols and debug information); ICU, FoundationNetworking or FoundationXML symbols in it: {b['heavy_symbols']}")
    w(f"  code the daemon runs, laid out together (scripts/link/hreaderd.order): {b['ordered_found']} of its {b['ordered_functions']} functions found in the binary")
    w(f"  links: {', '.join(b.get('links', []))}")
    w("")
    text = "\n".join(lines)
    print(text)
    print(r["store_and_import_table"])
    os.makedirs(os.path.join(REPO, ".build", "bench"), exist_ok=True)
    with open(os.path.join(REPO, ".build", "bench", "results.json"), "w") as f:
        json.dump({k: v for k, v in r.items() if k != "store_and_import_table"}, f, indent=2)
    write_latest_run(text + "\n" + r["store_and_import_table"])


LATEST_BEGIN = "<!-- make bench writes from here: the latest run -->"
LATEST_END = "<!-- make bench writes up to here -->"


def write_latest_run(output):
    """Replaces the latest run's section of docs/benchmarks.md, between its two markers, and keeps the rest
    of the page (the figures by target, earlier figures, how to read them), which people write."""
    path = os.path.join(REPO, "docs", "benchmarks.md")
    with open(path) as f:
        page = f.read()
    section = (LATEST_BEGIN + "\n## The latest run\n\n```\n" + output + "```\n\n"
               "![latency against record size](latency-vs-record-size.svg)\n\n" + NOTES.rstrip("\n") + "\n" + LATEST_END)
    if LATEST_BEGIN in page and LATEST_END in page:
        page = page[:page.index(LATEST_BEGIN)] + section + page[page.index(LATEST_END) + len(LATEST_END):]
    else:
        page = page.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(page)

if __name__ == "__main__":
    main()
