"""The pieces the browser tests stand on: the real daemon in a temporary state directory (started by
Tools/harness/hreaderd_harness.py), headless Chromium over WebDriver, an attacker's web server on
another origin, and small wait helpers."""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# The daemon itself is started by the harness the reliability runs and the benchmark share.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tools" / "harness"))
import hreaderd_harness  # noqa: E402
from hreaderd_harness import PUBLIC_DIR, REPO as ROOT, FHIRSandbox, Sandbox, free_port  # noqa: E402,F401

PASSWORD = "correct horse battery staple"


class Daemon(hreaderd_harness.Daemon):
    """`hreaderd serve` on a free loopback port, locked, over a store made for the run: Henry and Nancy
    Smith's sample records and a generated family of 10,000 entries a person. It takes backups into a
    folder of the run (`backup_dir`), one a day. A backup taken by hand before it starts is there already,
    so that the schedule's first is due a day later: none comes on its own during the run (with an empty
    folder the first would come a minute after the start), Back up now makes one."""

    BACKUP_EVERY_HOURS = 24

    def __init__(self, bin_dir, samples, work):
        super().__init__(bin_dir, work, password=PASSWORD)
        self.samples = Path(samples)
        self.patients = {}
        self.backup_dir = self.work / "backups"
        self.publisher = None  # the library's publisher (LibraryPublisher), once prepare() made one

    def prepare(self):
        self.init()
        self.import_file(self.samples / "hreader_hs_henry_smith.json")
        self.import_file(self.samples / "hreader_ns_nancy_smith.json")
        # A family whose members have 10,000 entries each, for the dense-window test.
        self.import_file(self.generate(self.work / "dense.ndjson", entries=10000, seed=7))
        self.create_token("browser-tests")
        self.patients = self.patients_by_name()
        self.backup_dir.mkdir(parents=True, exist_ok=True)
        self.cli("backup", "--output", self.backup_dir / time.strftime("hreaderd-%Y%m%d-%H%M%S.hrdbak", time.gmtime()))
        # The health library: a pack of the project's content and strings (this tree's, so that the web app's
        # keys are in it) installed before the start, and a publisher on loopback that offers the same
        # version, so nothing is offered until a test publishes a newer one (LibraryPublisher.publish).
        self.publisher = LibraryPublisher(self.tool("hreaderd-library-pack"), self.work / "publisher")
        installed = self.publisher.build(LibraryPublisher.INSTALLED_VERSION)
        self.publisher.publish(installed)
        self.publisher.install(installed, self.state / "library")

    def patients_by_name(self):
        """{name: id} from `hreaderd patients`, a table whose columns start where its header's words do
        (ID, NAME, then BIRTHDATE and the rest; a name may hold spaces)."""
        lines = self.cli("patients").splitlines()
        if not lines:
            return {}
        columns = [(m.group(), m.start()) for m in re.finditer(r"\S+", lines[0])]
        names = [word for word, _ in columns]
        at = names.index("NAME")
        name_at = columns[at][1]
        next_at = columns[at + 1][1] if at + 1 < len(columns) else None
        patients = {}
        for line in lines[1:]:
            if not line.strip():
                continue
            patients[line[name_at:next_at].strip()] = line.split()[0]
        return patients

    def start(self, port=None):
        self.backup_dir.mkdir(parents=True, exist_ok=True)
        library = []
        if self.publisher and self.serves_library():
            # Only the pack the harness installed (this tree's strings), never one found beside the binary.
            library = ["--library-url", self.publisher.url, "--library-public-key", self.publisher.public_key,
                       "--bundled-library", "none"]
        return super().start("--public-dir", PUBLIC_DIR, "--locked",
                             "--backup-dir", self.backup_dir, "--backup-every", self.BACKUP_EVERY_HOURS, *library,
                             port=port, timeout=30)

    def serves_library(self):
        """Whether this hreaderd takes a library publisher (serve --library-url)."""
        if not hasattr(self, "_serves_library"):
            self._serves_library = "--library-url" in self.run("serve", "--help", check=False, timeout=60).stdout
        return self._serves_library

    def restart(self):
        """Stops the daemon and starts it again on the same port (locked, as at first): what it checks at start
        (the library's publisher) is checked again. Sessions end with the process."""
        self.stop()
        return self.start(port=self.port)

    def request(self, method, path, body=None, auth=True):
        """(status, parsed JSON or None) for a request made with the API token."""
        data = json.dumps(body).encode() if body is not None else None
        status, raw = self.http(method, path, data, content_type="application/json" if data is not None else None,
                                auth=auth, timeout=15)
        try:
            return status, (json.loads(raw) if raw else None)
        except ValueError:
            if status >= 400:
                return status, None
            raise

    def api(self, path):
        status, data = self.request("GET", path)
        if status != 200:
            raise AssertionError(f"GET {path} answered {status}: {data}")
        return data


class Browser:
    """Headless Chromium from Debian, driven by chromedriver through Selenium."""

    def __init__(self, work):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900", "--lang=en-US", "--no-first-run", "--no-default-browser-check",
                    "--disable-extensions", "--disable-background-networking", "--disable-sync",
                    "--disable-features=Translate,OptimizationHints,MediaRouter",
                    f"--user-data-dir={Path(work) / 'chromium-profile'}"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", log_path=str(Path(work) / "chromedriver.log"),
                          env=dict(os.environ, TZ="UTC"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(30)
        # The daemon runs in UTC; so does the page, whatever the machine's zone.
        self.driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "UTC"})
        # Record Content-Security-Policy violations from the first moment of every page.
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__cspViolations = [];
            document.addEventListener('securitypolicyviolation', (e) => {
              window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':' + (e.lineNumber || ''));
            });
        """})
        self.console = []

    def quit(self):
        self.driver.quit()

    def drain_console(self):
        """Console entries since the last call (the browser's log is read once)."""
        entries = self.driver.get_log("browser")
        self.console.extend(entries)
        return entries

    def csp_violations(self):
        try:
            return self.driver.execute_script("return window.__cspViolations || []") or []
        except Exception:
            return []

    def viewport(self, width, height, dark=False):
        mobile = width < 600
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    def full_page_screenshot(self, path):
        import base64
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
        Path(path).write_bytes(base64.b64decode(shot["data"]))


class AttackerSite:
    """A static web server on another port: another origin of the same site (127.0.0.1) and, under
    the name localhost, another site as well. It serves pages that try to use the daemon."""

    def __init__(self, work, daemon_origin):
        self.root = Path(work) / "attacker"
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.write_pages(daemon_origin)
        handler = partial(QuietHandler, directory=str(self.root))
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, host, page):
        return f"http://{host}:{self.port}/{page}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def write_pages(self, target):
        (self.root / "read.html").write_text(READ_PAGE.replace("TARGET", target))
        (self.root / "post.html").write_text(POST_PAGE.replace("TARGET", target))
        (self.root / "frame.html").write_text(FRAME_PAGE.replace("TARGET", target))


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class LibraryPublisher:
    """A publisher of health library packs on loopback, as a real one serves its folder over HTTPS: a key of
    its own (the daemon trusts its public half, --library-public-key), packs built by the project's
    hreaderd-library-pack from Resources/library (content, code tables and this tree's string tables), and a
    static server of one folder. The pack's file is sent slowly (`rate` bytes a second), and a test can hold
    it after `hold_at` bytes until it lets it go (release()), so that a download's progress is seen.

    A pack may carry one more topic than the project's content (`extra_topic`): a made-up topic whose title
    and summary hold markup, which the app must show as text."""

    INSTALLED_VERSION = "2025.10.1"
    NEWER_VERSION = "2025.10.2"
    EXTRA_TOPIC = {
        "id": "990001", "title": "Zzyzx <b>test</b> topic", "url": "https://medlineplus.gov/zzyzx-test.html", "language": "en",
        "also_called": ["Zzyzx syndrome <i>"],
        "summary_text": "Zzyzx is a made-up topic of the browser tests. <img src=x onerror=\"document.title='xss'\">"
                        "<script>window.__xss = 1</script> Its markup is shown as text, never run.",
        "credit": "hreaderd browser tests <em>", "groups": ["Health System"], "mesh": [],
        "related": [{"id": "199", "title": "Heart Failure"}],
    }

    def __init__(self, tool, root, rate=600_000):
        self.tool = Path(tool)
        if not self.tool.exists():
            raise RuntimeError(f"{self.tool} is missing: build it beside hreaderd (swift build --product hreaderd-library-pack)")
        self.root = Path(root)
        self.site = self.root / "site"  # what the server serves
        self.site.mkdir(parents=True, exist_ok=True)
        self.key = self.root / "publisher.pem"
        self.public_key = Path(f"{self.key}.pub")
        self.run("keygen", "--output", self.key)
        self.rate = rate
        self.hold_at = None
        self.released = threading.Event()
        self.requests = []  # (method, path, Range header) of each request, in order
        handler = partial(PublisherHandler, self, directory=str(self.site))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def run(self, *args):
        result = subprocess.run([str(self.tool), *map(str, args)], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"hreaderd-library-pack {' '.join(map(str, args[:1]))} failed: {result.stderr.strip()}")
        return result.stdout

    def build(self, version, extra_topic=False):
        """A pack of this version from Resources/library (and the made-up topic when extra_topic); its folder."""
        resources = ROOT / "Resources" / "library"
        content = resources / "content"
        if extra_topic:
            content = self.root / f"content-{version}"
            shutil.rmtree(content, ignore_errors=True)
            content.mkdir(parents=True)
            for source in (resources / "content").iterdir():
                if source.name.startswith("medlineplus-topics.jsonl"):
                    continue
                shutil.copy(source, content / source.name)
            with gzip.open(resources / "content" / "medlineplus-topics.jsonl.gz", "rt", encoding="utf-8") as f:
                topics = f.read()
            (content / "medlineplus-topics.jsonl").write_text(topics.rstrip("\n") + "\n" + json.dumps(self.EXTRA_TOPIC) + "\n")
        output = self.root / f"pack-{version}"
        shutil.rmtree(output, ignore_errors=True)
        self.run("build", "--content", content, "--codes", resources / "codes", "--strings", resources / "strings",
                 "--key", self.key, "--version", version, "--created", "2025-10-31T00:00:00Z", "--output", output)
        return output

    def install(self, pack, library_dir):
        """Installs a pack into a state directory's library folder, as `hreaderd library install` would."""
        self.run("install", pack, "--library", library_dir, "--public-key", self.public_key)

    def publish(self, pack):
        """Serves this pack from now on: its database first, the manifest and its signature last."""
        manifest = json.loads((Path(pack) / "manifest.json").read_text())
        shutil.copy(Path(pack) / manifest["database"]["file"], self.site / manifest["database"]["file"])
        for name in ("manifest.json.sig", "manifest.json"):
            shutil.copy(Path(pack) / name, self.site / f".{name}.tmp")
            os.replace(self.site / f".{name}.tmp", self.site / name)
        return manifest

    def hold(self, at_bytes):
        """The next downloads of a pack stop after at_bytes until release()."""
        self.released.clear()
        self.hold_at = at_bytes

    def release(self):
        self.hold_at = None
        self.released.set()

    def stop(self):
        self.release()
        self.server.shutdown()
        self.server.server_close()


class PublisherHandler(QuietHandler):
    """The publisher's static files; a pack's .gz slowly (and held when the publisher says so), with Range."""

    def __init__(self, publisher, *args, **kwargs):
        self.publisher = publisher
        super().__init__(*args, **kwargs)

    def send_head(self):
        self.publisher.requests.append((self.command, self.path, self.headers.get("Range")))
        self.range_start = 0
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if not match or not self.path.endswith(".gz"):
            return super().send_head()
        path = self.translate_path(self.path)
        try:
            f = open(path, "rb")
        except OSError:
            self.send_error(404)
            return None
        size = os.fstat(f.fileno()).st_size
        start = int(match.group(1))
        if start >= size:
            f.close()
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        f.seek(start)
        self.range_start = start
        self.send_response(206)
        self.send_header("Content-Type", "application/gzip")
        self.send_header("Content-Length", str(size - start))
        self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.end_headers()
        return f

    def copyfile(self, source, outputfile):
        if not self.path.endswith(".gz"):
            return super().copyfile(source, outputfile)
        sent = self.range_start
        chunk = 32 * 1024
        while True:
            hold_at = self.publisher.hold_at
            if hold_at is not None and sent >= hold_at:
                self.publisher.released.wait(60)
            data = source.read(chunk if hold_at is None or sent >= hold_at else min(chunk, hold_at - sent))
            if not data:
                return
            outputfile.write(data)
            outputfile.flush()
            sent += len(data)
            time.sleep(len(data) / self.publisher.rate)


# Tries to read the timeline with the browser's cookies, and to post with fetch; writes what it saw
# into the page for the test to read back.
READ_PAGE = """<!doctype html><meta charset="utf-8"><title>running</title>
<pre id="out">running</pre>
<script>
const target = 'TARGET';
(async () => {
  const out = {};
  try {
    const r = await fetch(target + '/timeline.json?page=all', { credentials: 'include' });
    out.cors_read = 'READ status=' + r.status + ' body=' + (await r.text()).slice(0, 300);
  } catch (e) { out.cors_read = 'blocked: ' + e.name; }
  try {
    const r = await fetch(target + '/timeline.json?page=all', { credentials: 'include', mode: 'no-cors' });
    const text = await r.text();
    out.opaque_read = 'type=' + r.type + ' status=' + r.status + ' length=' + text.length;
  } catch (e) { out.opaque_read = 'blocked: ' + e.name; }
  try {
    const r = await fetch(target + '/timeline.json?key=levels', {
      method: 'POST', credentials: 'include', mode: 'no-cors',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'pain=9&attack=fetch' });
    out.fetch_post = 'sent type=' + r.type;
  } catch (e) { out.fetch_post = 'blocked: ' + e.name; }
  try {
    const r = await fetch(target + '/timeline.json?key=levels', {
      method: 'POST', credentials: 'include',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pain: '9', attack: 'json' }) });
    out.json_post = 'READ status=' + r.status;
  } catch (e) { out.json_post = 'blocked: ' + e.name; }
  document.getElementById('out').textContent = JSON.stringify(out);
  document.title = 'done';
})();
</script>
"""

# A classic cross-site request forgery: a form that posts itself to the daemon.
POST_PAGE = """<!doctype html><meta charset="utf-8"><title>form</title>
<form method="post" action="TARGET/timeline.json?key=levels">
  <input name="pain" value="10"><input name="attack" value="form">
</form>
<script>document.forms[0].submit();</script>
"""

# Framing the app (clickjacking) must not show it.
FRAME_PAGE = """<!doctype html><meta charset="utf-8"><title>frame</title>
<iframe id="f" src="TARGET/timeline/" width="600" height="400"></iframe>
"""


class Skip(Exception):
    """A test that cannot check what it is for, with the reason (counted as skipped)."""


def wait_until(predicate, timeout=10, interval=0.05, message="condition", describe=None):
    """predicate()'s first true value, asked every `interval` s for up to `timeout` s; else an AssertionError
    that says what was waited for, and what describe() says of the state then (when given)."""
    deadline = time.time() + timeout
    last_error = None
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # a stale element while the page redraws, say
            last_error = error
        time.sleep(interval)
    state = ""
    if describe:
        try:
            state = f"; {describe()}"
        except Exception as error:  # noqa: BLE001 - the message must not hide the timeout
            state = f"; (could not say the state: {error})"
    raise AssertionError(f"timed out after {timeout} s waiting for {message}" + (f" (last error: {last_error})" if last_error else "") + state)


def make_workdir():
    return Path(tempfile.mkdtemp(prefix="hreaderd-browser-"))
