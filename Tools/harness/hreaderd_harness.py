"""Starts the real hreaderd daemon for the scripts that test or measure it: the browser tests
(Tests/browser), the reliability runs (scripts/reliability.py) and the benchmark (bench/run.py).

A Daemon is one state directory with its password file. It runs the CLI against that directory (init,
import-file, token create, any other subcommand), writes synthetic records with the generate-records tool
built beside hreaderd, starts `hreaderd serve` on a loopback port and waits until /healthz answers 200,
reads the process's memory, and stops (SIGTERM) or kills (SIGKILL) it. Each start writes the daemon's
output (stdout and stderr) to a log file of its own in the work directory: `log_path`.

    daemon = Daemon(bin_dir, work, password="…")       # work: a directory the caller made (and removes)
    daemon.init()
    daemon.import_file(daemon.generate(work / "family.ndjson", entries=300, seed=7))
    daemon.create_token("my-script")
    daemon.start("--idle-lock", "0")                   # or port=0: the port the daemon reports
    status, body = daemon.http("GET", "/timeline.json?page=year")
    daemon.stop()

Sandbox starts the project's RHEx server (rhex-sandbox) the same way, and FHIRSandbox its FHIR R4 server
with SMART App Launch (fhir-sandbox), which it also drives through the sandbox's /_sandbox routes:

    fhir = FHIRSandbox(bin_dir / "fhir-sandbox", "--data", bundle)   # fhir.base_url: http://127.0.0.1:PORT/fhir
    fhir.fault("refuse-refresh", target="token")                       # the next refresh is refused
    assert fhir.stats()["pkceVerified"]
    fhir.stop()

Standard library only; the scripts put this folder on sys.path by its path relative to their own file.
"""

import http.client
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PUBLIC_DIR = REPO / "Public" / "timeline"
LISTENING = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
_log_numbers = itertools.count(1)


def free_port():
    """A loopback TCP port nothing listens on now (another process may take it before it is used)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout=20, process=None, name="the server"):
    """Returns once something accepts connections on 127.0.0.1:port; raises RuntimeError after `timeout`
    seconds, or at once when `process` (a Popen) has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} did not listen on port {port} within {timeout} s")


def clean_environment(**extra):
    """This process's environment without what would point hreaderd elsewhere (HREADERD_*, systemd's
    CREDENTIALS_DIRECTORY and STATE_DIRECTORY), in UTC, with `extra` added."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HREADERD_") and k not in ("CREDENTIALS_DIRECTORY", "STATE_DIRECTORY")}
    env["TZ"] = "UTC"
    env.update(extra)
    return env


class Daemon:
    """hreaderd over a state directory of its own: the CLI, the generate-records tool, `hreaderd serve`."""

    def __init__(self, bin_dir, work, password="hreaderd harness password", state=None):
        self.bin_dir = Path(bin_dir)
        self.binary = self.bin_dir / "hreaderd"
        self.work = Path(work)
        self.state = Path(state) if state else self.work / "state"
        self.password = password
        self.password_file = self.work / "password"
        self.password_file.write_text(password + "\n")
        self.env = clean_environment(HREADERD_STATE_DIR=str(self.state), HREADERD_PASSWORD_FILE=str(self.password_file))
        self.token = None
        self.port = None
        self.process = None
        self.log_path = None
        self._log = None

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self):
        return self.process.pid if self.process else None

    # ---- the command line ----

    def tool(self, name):
        """An executable built beside hreaderd (generate-records, hreaderd-storecheck, rhex-sandbox, …)."""
        return self.bin_dir / name

    def command(self, *args):
        """The argv of `hreaderd ARGS…`, for a caller that runs it its own way (with self.env)."""
        return [str(self.binary), *map(str, args)]

    def run(self, *args, check=True, timeout=300):
        """`hreaderd ARGS…` against the state directory; the CompletedProcess (text). With check, a
        non-zero exit raises RuntimeError with the command's stderr."""
        result = subprocess.run(self.command(*args), env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"hreaderd {' '.join(map(str, args))} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def cli(self, *args, timeout=300):
        """`hreaderd ARGS…`'s stdout; a non-zero exit raises RuntimeError."""
        return self.run(*args, timeout=timeout).stdout

    def supports(self, *args):
        """Whether this build has the subcommand `ARGS…` (its --help exits 0)."""
        return self.run(*args, "--help", check=False, timeout=60).returncode == 0

    def init(self):
        """`hreaderd init`: the state directory, key file and store. Returns what it prints (the recovery key)."""
        return self.cli("init")

    def import_file(self, *paths):
        return self.cli("import-file", *paths)

    def create_token(self, name):
        """A new API token, kept in self.token for http()."""
        self.token = self.cli("token", "create", "--name", name).strip().splitlines()[-1].strip()
        return self.token

    def generate(self, output, entries, seed, shape=None):
        """Synthetic family records (one RHEx record a line) from the generate-records tool into `output`."""
        tool = self.tool("generate-records")
        if not tool.exists():
            raise RuntimeError(f"{tool} is missing: build it beside hreaderd (swift build --product generate-records)")
        args = [str(tool), "--seed", str(seed), "--entries", str(entries), "--output", str(output)]
        if shape:
            args += ["--shape", shape]
        result = subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise RuntimeError(f"generate-records failed ({result.returncode}): {result.stderr.strip()}")
        return Path(output)

    # ---- the server ----

    def start(self, *serve_args, port=None, extra_env=None, timeout=60):
        """`hreaderd serve --listen 127.0.0.1:PORT SERVE_ARGS…`, then waits until GET /healthz answers 200.

        port None: a free port chosen here; port 0: the daemon binds any port and the one it reports
        ("listening on …") is used. extra_env is added to the daemon's environment. Returns the seconds
        from the spawn to the first 200. When the daemon exits first, or is not ready in `timeout`
        seconds, raises RuntimeError whose message ends with the last lines of its log."""
        self._close_log()
        self.port = free_port() if port is None else port
        listen = f"127.0.0.1:{self.port}"
        self.log_path = self.work / f"serve-{next(_log_numbers)}.log"
        self._log = open(self.log_path, "wb")
        env = dict(self.env, **(extra_env or {}))
        if port == 0:
            self.port = None
        started = time.perf_counter()
        self.process = subprocess.Popen([str(self.binary), "serve", "--listen", listen, *map(str, serve_args)],
                                        env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        self.wait_ready(timeout)
        return time.perf_counter() - started

    def wait_ready(self, timeout=60):
        """Until the server answers GET /healthz with 200 (reading its port from the log first if needed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._close_log()
                raise RuntimeError(f"hreaderd serve exited with {self.process.returncode}:\n{self.log_tail()}")
            if self.port is None:
                match = LISTENING.search(self.log_path.read_text(errors="replace"))
                if match:
                    self.port = int(match.group(1))
            if self.port is not None:
                try:
                    if self.http("GET", "/healthz", auth=False, timeout=1)[0] == 200:
                        return
                except (OSError, http.client.HTTPException):
                    pass
            time.sleep(0.002)
        self.kill()
        raise RuntimeError(f"hreaderd serve was not ready within {timeout} s:\n{self.log_tail()}")

    def http(self, method, path, body=None, content_type=None, auth=True, timeout=30):
        """(status, body bytes) of one request on a new connection, with the API token unless auth=False.
        A connection error raises (OSError or http.client.HTTPException)."""
        headers = {}
        if auth and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if content_type:
            headers["Content-Type"] = content_type
        if isinstance(body, str):
            body = body.encode()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def get(self, path, timeout=30):
        """The body of GET path (with the token); any status but 200 raises RuntimeError."""
        status, data = self.http("GET", path, timeout=timeout)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {data[:300]!r}")
        return data

    def status_kib(self, field="VmRSS"):
        """A kB field of /proc/PID/status (VmRSS: resident memory, VmHWM: its peak); 0 when unreadable."""
        return self._proc_kib("status", field)

    def rss_kib(self):
        return self.status_kib("VmRSS")

    def cpu_seconds(self):
        """The CPU time (user and system) the daemon has used so far, from /proc/PID/stat; 0 when unreadable."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def smaps_rollup_kib(self, field):
        """A kB field of /proc/PID/smaps_rollup (Anonymous: heap, stacks and written data); 0 when unreadable."""
        return self._proc_kib("smaps_rollup", field)

    def _proc_kib(self, name, field):
        try:
            with open(f"/proc/{self.process.pid}/{name}") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except (OSError, AttributeError):
            pass
        return 0

    def stop(self, timeout=30):
        """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds. The exit status (None when
        it was never started)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_log()
        return self.process.returncode

    def kill(self):
        """SIGKILL, as a crash or power loss would."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._close_log()

    def log_tail(self, lines=30):
        """The last lines of the latest start's log."""
        if not self.log_path or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def _close_log(self):
        if self._log is not None:
            self._log.close()
            self._log = None


class Sandbox:
    """The project's RHEx server (rhex-sandbox, built beside hreaderd) on a free loopback port."""

    def __init__(self, binary, *args, timeout=20):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process = subprocess.Popen([str(binary), "--listen", f"127.0.0.1:{self.port}", *map(str, args)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(self.port, timeout, self.process, name="rhex-sandbox")
        except RuntimeError:
            self.kill()
            raise

    def stop(self, timeout=10):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class FHIRSandbox:
    """The project's FHIR R4 server (fhir-sandbox, built beside hreaderd) on a free loopback port: SMART
    discovery, its sign-in page at /authorize, tokens, $everything. `args` are the sandbox's own (--data
    PATH, --client-id ID, --user NAME:PASSWORD, --auto-approve, --fault SPEC, …). Its output (the base URL,
    client id and users it prints) goes to `log_path` when one is given."""

    def __init__(self, binary, *args, timeout=20, log_path=None):
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.base_url = f"{self.origin}/fhir"
        self.log_path = Path(log_path) if log_path else None
        self._log = open(self.log_path, "wb") if self.log_path else None
        output = self._log or subprocess.DEVNULL
        self.process = subprocess.Popen([str(binary), "--listen", f"127.0.0.1:{self.port}", *map(str, args)],
                                        stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT if self._log else subprocess.DEVNULL)
        try:
            wait_for_port(self.port, timeout, self.process, name="fhir-sandbox")
        except RuntimeError:
            self.kill()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def admin(self, method, path, body=None, timeout=10):
        """(status, parsed JSON or None) of a request to the sandbox (its /_sandbox routes, say)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        try:
            return response.status, (json.loads(raw) if raw else None)
        except ValueError:
            return response.status, None

    def stats(self):
        """GET /_sandbox/stats: requests by kind, grants issued and refused, pkceVerified, tokensInURL, the last
        authorize request's query (lastAuthorizeQuery), …"""
        status, data = self.admin("GET", "/_sandbox/stats")
        if status != 200:
            raise RuntimeError(f"fhir-sandbox: GET /_sandbox/stats answered {status}: {data}")
        return data

    def fault(self, fault, target="any", count=1):
        """A fault for the next `count` requests of `target` (count None: always): "500", "429=SECONDS",
        "delay=SECONDS", "truncate", "expired-token", "refuse-refresh", "outcome=STATUS:TEXT"."""
        status, data = self.admin("POST", "/_sandbox/faults", {"fault": fault, "target": target, "count": count})
        if status != 204:
            raise RuntimeError(f"fhir-sandbox: fault {fault}@{target} refused ({status}): {data}")

    def clear_faults(self):
        self.admin("DELETE", "/_sandbox/faults")

    def stop(self, timeout=10):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_log()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._close_log()

    def _close_log(self):
        if self._log is not None:
            self._log.close()
            self._log = None
