#!/usr/bin/env python3
"""Reliability runs against the real hreaderd binary: chaos (SIGKILL under a mixed workload), load
(concurrent keep-alive clients) and disk (full and read-only state directory). The sync comes from two
rhex-sandbox processes (the old and the new version of a synthetic family).

    scripts/reliability.py [--short | --long] [--bin DIR] [chaos] [load] [disk]

--short (the default; scripts/test.sh runs it) takes about two minutes in all, --long much longer.
Every run prints its figures; the exit status is 1 when a check failed. Only loopback traffic.
Needs `hreaderd`, `generate-records`, `hreaderd-storecheck` and `rhex-sandbox` built (swift build), Python 3
standard library only. The daemon is started by Tools/harness/hreaderd_harness.py.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tools", "harness"))
from hreaderd_harness import Daemon, Sandbox  # noqa: E402

PASSWORD = "reliability password"
MARK = " [v2]"
SOURCE = "sandbox"
FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"  FAIL: {message}", flush=True)
    return condition


def say(text):
    print(text, flush=True)


class Env:
    """One state directory with a password file, a token and two versions of a synthetic family; the
    daemon over it (`serve`) is the harness's."""

    def __init__(self, bin_dir, root, entries, seed=7, state=None):
        self.root = root
        self.daemon = Daemon(bin_dir, root, password=PASSWORD, state=state)
        self.state = str(self.daemon.state)
        self.env = self.daemon.env
        self.v1 = os.path.join(root, "family-v1.ndjson")
        self.v2 = os.path.join(root, "family-v2.ndjson")
        self.daemon.generate(self.v1, entries=entries, seed=seed)
        self.expected = {}  # record id -> (entries in v1, entries in v2)
        with open(self.v1) as src, open(self.v2, "w") as dst:
            for line in src:
                record = json.loads(line)
                n1 = sum(len(v) for k, v in record.items() if isinstance(v, list) and k != "languages")
                # v2: every description marked, one result fewer; a mix of the two shows in the counts.
                for key, value in record.items():
                    if isinstance(value, list) and key != "languages":
                        for entry in value:
                            if isinstance(entry, dict):
                                entry["description"] = str(entry.get("description", "")) + MARK
                record["results"] = record["results"][:-1]
                self.expected[record["_id"]] = (n1, n1 - 1)
                # An RHEx source knows a patient by the feed's record id, the medical record number.
                self.expected[str(record.get("medical_record_number"))] = (n1, n1 - 1)
                dst.write(json.dumps(record) + "\n")

    def init(self):
        self.daemon.init()
        self.daemon.import_file(self.v1)
        self.token = self.daemon.create_token("reliability")

    def serve(self, extra_env=None):
        """`hreaderd serve` on the port it picks, the idle lock off; the harness's Daemon, started."""
        self.daemon.start("--idle-lock", "0", port=0, extra_env=extra_env)
        return self.daemon

    def storecheck(self):
        """(integrity, {post id: data}, {record id: (entry_count, rows, marked)}) read straight from the store."""
        result = subprocess.run([str(self.daemon.tool("hreaderd-storecheck")), self.state, PASSWORD, MARK],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"hreaderd-storecheck: {result.stderr.strip()}")
        integrity, posts, patients = None, {}, {}
        for line in result.stdout.splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "integrity":
                integrity = rest
            elif kind == "post":
                pid, _, data = rest.partition(" ")
                posts[pid] = data
            elif kind == "patient":
                head, count, rows, marked = rest.rsplit(" ", 3)
                source, _, rid = head.partition(" ")
                patients[(source, rid)] = (int(count), int(rows), int(marked))
        return integrity, posts, patients

    def check_records(self, patients):
        """Every patient of every source is the old or the new version, never a mix. Returns (old, new)."""
        old = new = 0
        for (source, rid), (count, rows, marked) in patients.items():
            if rid not in self.expected:
                check(False, f"an unknown patient {source}/{rid}")
                continue
            n1, n2 = self.expected[rid]
            if marked == 0 and rows == n1 and count == n1:
                old += 1
            elif marked == n2 and rows == n2 and count == n2:
                new += 1
            else:
                check(False, f"patient {source}/{rid} is a mix: entry_count {count}, rows {rows}, marked {marked} (v1 {n1}, v2 {n2})")
        files = sum(1 for source, _ in patients if source != SOURCE)
        check(files == len(self.expected) // 2, f"{files} patients from the file import, {len(self.expected) // 2} expected")
        return old, new

    def start_sandboxes(self):
        """Two RHEx sandboxes, one serving the old version of the family and one the new, and a source
        `sandbox` that points at the old; `point_source` switches it. False when there is no sandbox."""
        sandbox = self.daemon.tool("rhex-sandbox")
        if not sandbox.exists() or not self.daemon.supports("sync"):
            return False
        self.sandboxes = []
        for version in (self.v1, self.v2):
            self.sandboxes.append(Sandbox(sandbox, "--records", version, "--user", "family:family-pw", timeout=15))
        self.urls = [s.url for s in self.sandboxes]
        for name, text in (("secret", "sandbox-client-secret"), ("user-pw", "family-pw")):
            with open(os.path.join(self.root, name), "w") as f:
                f.write(text + "\n")
        self.point_source(0, update=False)
        return True

    def point_source(self, version, update=True):
        self.daemon.run("source", "add", SOURCE, "--url", self.urls[version], "--client-id", "hreaderd",
                        "--client-secret-file", os.path.join(self.root, "secret"), "--username", "family",
                        "--user-password-file", os.path.join(self.root, "user-pw"), "--patients", "all", *(["--update"] if update else []))

    def sync_command(self):
        return self.daemon.command("sync", SOURCE, "--wait")

    def stop_sandboxes(self):
        for sandbox in getattr(self, "sandboxes", []):
            sandbox.kill()


class Client:
    """One keep-alive connection; reconnects after an error."""

    def __init__(self, port, token):
        self.port, self.token, self.conn = port, token, None

    def request(self, method, target, body=None, content_type=None):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Authorization": f"Bearer {self.token}"}
        if content_type:
            headers["Content-Type"] = content_type
        try:
            self.conn.request(method, target, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
            return response.status, data
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise


# --- chaos -----------------------------------------------------------------------------------------


class Ledger:
    """What the workload was told: acknowledged posts, rejected posts, deletes, and the in-doubt ones."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}        # post id -> marker
        self.rejected = set()  # markers answered 4xx
        self.deleted = set()   # post ids answered 204
        self.doubtful_posts = set()    # markers whose answer never came
        self.doubtful_deletes = set()  # post ids whose delete answer never came
        self.counter = 0
        self.reads = 0

    def marker(self):
        with self.lock:
            self.counter += 1
            return f"c{self.counter}"


def chaos_worker(port, token, ledger, stop, rng):
    client = Client(port, token)
    while not stop.is_set():
        action = rng.random()
        try:
            if action < 0.35:
                status, _ = client.request("GET", "/timeline.json?page=all")
                if status == 200:
                    with ledger.lock:
                        ledger.reads += 1
                else:
                    check(status == 200, f"timeline read answered {status}")
            elif action < 0.75:
                marker = ledger.marker()
                if rng.random() < 0.5:
                    req = ("POST", "/timeline.json?key=levels", f"pain={rng.randint(0, 10)}&chaos={marker}", "application/x-www-form-urlencoded")
                else:
                    req = ("POST", "/timeline.json?key=levels", json.dumps({"mood": rng.randint(0, 10), "chaos": marker}), "application/json")
                try:
                    status, data = client.request(req[0], req[1], req[2], req[3])
                except (OSError, http.client.HTTPException):
                    with ledger.lock:
                        ledger.doubtful_posts.add(marker)
                    raise
                with ledger.lock:
                    if status == 201:
                        ledger.acked[json.loads(data)["id"]] = marker
                    else:
                        ledger.doubtful_posts.add(marker)
                        check(False, f"a good post answered {status}: {data[:200]!r}")
            elif action < 0.85:
                marker = ledger.marker()
                # Rejected for certain: an unknown key, or nested JSON.
                if rng.random() < 0.5:
                    req = ("/timeline.json?key=bogus", f"chaos={marker}", "application/x-www-form-urlencoded")
                else:
                    req = ("/timeline.json?key=levels", json.dumps({"chaos": marker, "nested": {"a": 1}}), "application/json")
                try:
                    status, _ = client.request("POST", *req)
                except (OSError, http.client.HTTPException):
                    with ledger.lock:
                        ledger.doubtful_posts.add(marker)
                    raise
                with ledger.lock:
                    if check(status == 400, f"a bad post answered {status}"):
                        ledger.rejected.add(marker)
                    else:
                        ledger.doubtful_posts.add(marker)
            else:
                with ledger.lock:
                    live = [p for p in ledger.acked if p not in ledger.deleted and p not in ledger.doubtful_deletes]
                    victim = rng.choice(live) if live else None
                    if victim:
                        ledger.doubtful_deletes.add(victim)
                if victim is None:
                    continue
                status, _ = client.request("DELETE", f"/timeline/entries/{victim}")
                with ledger.lock:
                    if check(status == 204, f"delete of {victim} answered {status}"):
                        ledger.doubtful_deletes.discard(victim)
                        ledger.deleted.add(victim)
        except (OSError, http.client.HTTPException, ValueError):
            if stop.is_set():
                return
            time.sleep(0.01)


def chaos(bin_dir, rounds, workers, entries, seed):
    say(f"== chaos: {rounds} rounds of SIGKILL under reads, posts, deletes, a record re-import and a sync ({workers} clients)")
    rng = random.Random(seed)
    root = tempfile.mkdtemp(prefix="hreaderd-chaos-")
    env = None
    try:
        env = Env(bin_dir, root, entries)
        env.init()
        has_sync = env.start_sandboxes()
        if not has_sync:
            say("  (no rhex-sandbox or hreaderd sync in this build: record re-imports only)")
        ledger = Ledger()
        survived = imports_killed = imports_done = syncs_killed = syncs_done = 0
        old = new = 0
        started = time.monotonic()
        for round_number in range(1, rounds + 1):
            if has_sync:
                env.point_source(round_number % 2)
            server = env.serve()
            stop = threading.Event()
            threads = [threading.Thread(target=chaos_worker, args=(server.port, env.token, ledger, stop, random.Random(rng.random())))
                       for _ in range(workers)]
            for t in threads:
                t.start()
            # The record re-import (the stand-in for a sync): the other version each time, in its own process.
            version = env.v2 if round_number % 2 else env.v1
            importer = subprocess.Popen(env.daemon.command("import-file", version), env=env.env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # The sync from the sandbox, which now serves the other version, also in its own process.
            syncer = subprocess.Popen(env.sync_command(), env=env.env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL) if has_sync else None
            time.sleep(rng.uniform(0.2, 1.5))
            stop.set()  # no new requests: only those in flight lose their answer to the kill
            server.kill()
            if importer.poll() is None:
                importer.kill()
                imports_killed += 1
            else:
                imports_done += 1
            importer.wait()
            if syncer:
                if syncer.poll() is None:
                    syncer.kill()
                    syncs_killed += 1
                else:
                    check(syncer.returncode == 0, f"round {round_number}: hreaderd sync exited {syncer.returncode}")
                    syncs_done += 1
                syncer.wait()
            stop.set()
            for t in threads:
                t.join(60)
            integrity, posts, patients = env.storecheck()
            if not check(integrity == "ok", f"round {round_number}: integrity_check says {integrity}"):
                break
            survived += 1
            old, new = env.check_records(patients)
            stored_markers = {}
            for pid, data in posts.items():
                try:
                    stored_markers[json.loads(data).get("chaos")] = pid
                except ValueError:
                    check(False, f"post {pid} holds bad JSON: {data[:100]}")
            with ledger.lock:
                for pid, marker in ledger.acked.items():
                    if pid in ledger.deleted:
                        check(pid not in posts, f"round {round_number}: deleted post {pid} is back")
                    elif pid not in ledger.doubtful_deletes:
                        check(posts.get(pid) is not None and stored_markers.get(marker) == pid,
                              f"round {round_number}: acknowledged post {pid} ({marker}) is missing")
                for marker in ledger.rejected:
                    check(marker not in stored_markers, f"round {round_number}: rejected post {marker} was stored")
                known = set(ledger.acked.values()) | ledger.doubtful_posts
                for marker in stored_markers:
                    check(marker in known, f"round {round_number}: a post nobody sent is stored: {marker}")
                # Settle what was in doubt, so later rounds check it as what the store now says.
                for pid in list(ledger.doubtful_deletes):
                    if pid not in posts:
                        ledger.deleted.add(pid)
                    ledger.doubtful_deletes.discard(pid)
            if FAILURES:
                break
        with ledger.lock:
            acked = len(ledger.acked)
            found = sum(1 for pid in ledger.acked if pid in posts)
            deleted = len(ledger.deleted)
            say(f"  kills survived: {survived}/{rounds} (integrity_check ok after each), {time.monotonic() - started:.1f} s")
            say(f"  posts acknowledged: {acked}, found: {found}, deleted (204) and gone: {deleted}, "
                f"acknowledged and not deleted found: {found}/{acked - deleted}")
            say(f"  posts rejected (400) and absent: {len(ledger.rejected)}; answers lost to a kill: {len(ledger.doubtful_posts)} posts")
            say(f"  timeline reads: {ledger.reads}; re-imports killed mid-way: {imports_killed}, finished: {imports_done}; "
                f"syncs from the sandbox killed mid-way: {syncs_killed}, finished: {syncs_done}")
            say(f"  patients (file import and sandbox) at the end: old version {old}, new version {new}, mixed 0 "
                f"(checked after every kill)")
        check(acked > 0 and survived == rounds, "the chaos run did not complete its rounds with acknowledged posts")
    finally:
        if env:
            env.stop_sandboxes()
        shutil.rmtree(root, ignore_errors=True)


# --- load ------------------------------------------------------------------------------------------


def load(bin_dir, seconds, clients, entries, seed):
    say(f"== load: {clients} keep-alive clients for {seconds} s, 10% posts, record re-imports and syncs running")
    root = tempfile.mkdtemp(prefix="hreaderd-load-")
    env = None
    try:
        env = Env(bin_dir, root, entries)
        env.init()
        has_sync = env.start_sandboxes()
        server = env.serve()
        lock = threading.Lock()
        latencies, errors = [], []
        counts = {"requests": 0, "posts": 0, "imports": 0, "syncs": 0}
        stop = threading.Event()

        def worker(index):
            rng = random.Random(seed * 1000 + index)
            client = Client(server.port, env.token)
            mine = []
            while not stop.is_set():
                began = time.perf_counter()
                try:
                    if rng.random() < 0.1:
                        status, _ = client.request("POST", "/timeline.json?key=levels", f"pain={rng.randint(0, 10)}", "application/x-www-form-urlencoded")
                        ok, post = status == 201, 1
                    else:
                        page = rng.choice(["year", "decade", "all", "month"])
                        status, _ = client.request("GET", f"/timeline.json?page={page}")
                        ok, post = status == 200, 0
                except (OSError, http.client.HTTPException) as error:
                    ok, post, status = False, 0, repr(error)
                mine.append(time.perf_counter() - began)
                with lock:
                    counts["requests"] += 1
                    counts["posts"] += post
                    if not ok:
                        errors.append(status)
            with lock:
                latencies.extend(mine)

        def importer():
            n = 0
            while not stop.is_set():
                n += 1
                subprocess.run(env.daemon.command("import-file", env.v2 if n % 2 else env.v1), env=env.env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with lock:
                    counts["imports"] += 1
                if has_sync and not stop.is_set():
                    # A sync that changes every record: the source points at the other sandbox each time.
                    env.point_source(n % 2)
                    result = subprocess.run(env.sync_command(), env=env.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                    with lock:
                        counts["syncs"] += 1
                        if result.returncode != 0:
                            errors.append("sync: " + result.stderr.decode(errors="replace").strip()[-200:])

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)] + [threading.Thread(target=importer)]
        rss = [(0.0, server.rss_kib())]
        started = time.monotonic()
        for t in threads:
            t.start()
        while time.monotonic() - started < seconds:
            time.sleep(1)
            rss.append((time.monotonic() - started, server.rss_kib()))
        stop.set()
        for t in threads:
            t.join(120)
        elapsed = time.monotonic() - started
        status = server.stop()
        integrity, posts, patients = env.storecheck()
        latencies.sort()

        def pct(p):
            return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else 0

        warm = rss[min(len(rss) - 1, max(1, len(rss) // 4))][1]
        samples = ", ".join(f"{int(t)}s:{kib // 1024}MB" for t, kib in rss[:: max(1, len(rss) // 10)])
        say(f"  requests: {counts['requests']} ({counts['requests'] / elapsed:.0f}/s), posts: {counts['posts']}, "
            f"errors: {len(errors)}, re-imports: {counts['imports']}, syncs from the sandbox: {counts['syncs']}")
        say(f"  latency ms: p50 {pct(0.5):.1f}, p90 {pct(0.9):.1f}, p99 {pct(0.99):.1f}, max {pct(1.0):.1f}")
        say(f"  resident memory: start {rss[0][1] // 1024} MB, after warm-up {warm // 1024} MB, end {rss[-1][1] // 1024} MB, "
            f"max {max(k for _, k in rss) // 1024} MB; samples {samples}")
        say(f"  store after the run: integrity {integrity}, posts stored {len(posts)}")
        check(not errors, f"{len(errors)} errors under load, first: {errors[:5]}")
        check(status == 0, f"the daemon exited {status} on SIGTERM after the load")
        check(integrity == "ok", f"integrity_check after load: {integrity}")
        check(len(posts) == counts["posts"], f"{counts['posts']} posts acknowledged, {len(posts)} stored")
        env.check_records(patients)
        # Unbounded growth would keep climbing after warm-up; allow generous slack for allocator caches.
        check(rss[-1][1] <= 2 * warm + 64 * 1024, f"resident memory grew from {warm} KiB after warm-up to {rss[-1][1]} KiB")
    finally:
        if env:
            env.stop_sandboxes()
        shutil.rmtree(root, ignore_errors=True)


# --- disk ------------------------------------------------------------------------------------------


def disk(bin_dir, entries):
    say("== disk: a full and a read-only state directory (tmpfs)")
    root = tempfile.mkdtemp(prefix="hreaderd-disk-")
    mount = os.path.join(root, "mnt")
    os.makedirs(mount)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", mount], capture_output=True).returncode != 0:
        say("  SKIPPED: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN); run as root to test a full disk")
        shutil.rmtree(root, ignore_errors=True)
        return
    server = None
    try:
        env = Env(bin_dir, root, entries, state=os.path.join(mount, "state"))
        env.init()
        server = env.serve()
        client = Client(server.port, env.token)
        acked = []

        def post(tag):
            try:
                status, data = client.request("POST", "/timeline.json?key=levels", f"pain=3&disk={tag}", "application/x-www-form-urlencoded")
            except (OSError, http.client.HTTPException) as error:
                return None, repr(error)
            if status == 201:
                acked.append(json.loads(data)["id"])
            return status, data

        check(post("before")[0] == 201, "a post before the disk filled")
        # Fill the file system to the last byte.
        filler = os.path.join(mount, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        for chunk in (1 << 16, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError:
                pass
        os.close(fd)
        statuses, bodies = [], []
        padding = "x" * 3000
        for i in range(40):  # pages fill up: keep posting until the store says it is full
            status, body = (post(f"full{i}&note={padding}"))
            statuses.append(status)
            bodies.append(body)
            if status == 503:
                break
        full_status = statuses[-1]
        message = ""
        try:
            message = json.loads(bodies[-1])["error"]["message"]
            code = json.loads(bodies[-1])["error"]["code"]
        except (ValueError, KeyError, TypeError):
            code = None
        say(f"  disk full: posts answered {statuses}; error {code}: {message}")
        check(full_status == 503 and code == "store_unavailable", f"a post on a full disk answered {full_status} {bodies[-1]!r}")
        status, _ = client.request("GET", "/timeline.json?page=all")
        check(status == 200, f"a read on a full disk answered {status}")
        status, _ = client.request("GET", "/healthz")
        check(status == 200, f"/healthz on a full disk answered {status}")
        os.remove(filler)
        status, _ = post("after-space")
        check(status == 201, f"a post after space came back answered {status}")
        say(f"  space back: post answered {status}")

        # Read-only: a tmpfs cannot be remounted read-only while the daemon holds files open for writing
        # (EBUSY), so a preloaded shim makes every write under the state directory fail with EROFS, as on
        # a file system the kernel remounted read-only after an error.
        shim = os.path.join(root, "erofs.so")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reliability", "erofs.c")
        if subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", shim, source, "-ldl"], capture_output=True).returncode != 0:
            say("  read-only: SKIPPED (no gcc to build the EROFS shim)")
        else:
            server.kill()
            flag = os.path.join(root, "erofs-on")
            server = env.serve(extra_env={"LD_PRELOAD": shim, "HREADERD_TEST_EROFS_FLAG": flag,
                                          "HREADERD_TEST_EROFS_DIR": os.path.realpath(env.state)})
            client = Client(server.port, env.token)
            check(post("before-read-only")[0] == 201, "a post before the store went read-only")
            open(flag, "w").close()
            statuses, error = [], {}
            for i in range(3):
                status, body = post(f"read-only{i}")
                statuses.append(status)
                try:
                    error = json.loads(body)["error"]
                except (ValueError, KeyError, TypeError):
                    error = {"code": None, "message": repr(body)[:200]}
            say(f"  read-only (EROFS on every write): posts answered {statuses}; error {error.get('code')}: {error.get('message')}")
            check(all(s == 503 for s in statuses) and error.get("code") == "store_unavailable",
                  f"posts on a read-only store answered {statuses} {error}")
            status, _ = client.request("GET", "/timeline.json?page=all")
            check(status == 200, f"a read on a read-only store answered {status}")
            health, _ = client.request("GET", "/healthz")
            say(f"  read-only: timeline read answered {status}, /healthz {health}")
            os.remove(flag)
            status, _ = post("after-read-only")
            check(status == 201, f"a post once the store was writable again answered {status}")
            say(f"  writable again: post answered {status}")
        server.kill()
        server = None
        # A state directory that is read-only when the daemon starts (now the mount has no writers, it
        # can be remounted read-only for real).
        if subprocess.run(["mount", "-o", "remount,ro", mount], capture_output=True).returncode == 0:
            try:
                server = env.serve()
                client = Client(server.port, env.token)
                read, _ = client.request("GET", "/timeline.json?page=all")
                write = post("read-only-start")[0]
                say(f"  read-only at start: the daemon serves; read {read}, post {write}")
                check(read == 200 and write == 503, f"on a read-only state directory: read {read}, post {write}")
                server.kill()
                server = None
            except RuntimeError as error:
                text = str(error).strip().splitlines()[-1] if str(error).strip() else ""
                say(f"  read-only at start: the daemon refuses to start: {text}")
                check("read-only" in text, f"no clear error on a read-only state directory: {text}")
            subprocess.run(["mount", "-o", "remount,rw", mount], check=True)
        integrity, posts, patients = env.storecheck()
        missing = [p for p in acked if p not in posts]
        say(f"  after SIGKILL: integrity {integrity}, posts acknowledged {len(acked)}, found {len(acked) - len(missing)}, stored {len(posts)}")
        check(integrity == "ok", f"integrity after disk full: {integrity}")
        check(not missing and len(posts) == len(acked), f"posts acknowledged {acked}, stored {sorted(posts)}")
        env.check_records(patients)
    finally:
        if server:
            server.kill()
        subprocess.run(["umount", "-l", mount], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", help="chaos, load, disk (default: all three)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--short", action="store_true", help="a few minutes in all (the default)")
    length.add_argument("--long", action="store_true", help="hundreds of kills, a five-minute load")
    parser.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "debug"),
                        help="directory holding hreaderd, generate-records, hreaderd-storecheck and rhex-sandbox (default .build/debug)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("RELIABILITY_SEED", "11")))
    args = parser.parse_args()
    runs = args.runs or ["chaos", "load", "disk"]
    if set(runs) - {"chaos", "load", "disk"}:
        parser.error("runs are chaos, load and disk")
    bin_dir = os.path.abspath(args.bin)
    say(f"reliability ({'long' if args.long else 'short'}), seed {args.seed}, binaries {bin_dir}")
    if "chaos" in runs:
        if args.long:
            chaos(bin_dir, rounds=200, workers=6, entries=2000, seed=args.seed)
        else:
            chaos(bin_dir, rounds=12, workers=4, entries=1000, seed=args.seed)
    if "load" in runs:
        if args.long:
            load(bin_dir, seconds=300, clients=64, entries=2000, seed=args.seed)
        else:
            load(bin_dir, seconds=20, clients=16, entries=500, seed=args.seed)
    if "disk" in runs:
        disk(bin_dir, entries=300)
    if FAILURES:
        say(f"reliability: {len(FAILURES)} checks failed")
        sys.exit(1)
    say("reliability: every check passed")


if __name__ == "__main__":
    main()
