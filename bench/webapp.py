"""The web app on a full record (bench/run.py's figure 9, `--only webapp`): how long the Summary, the Year view and
the Decade view take to draw once their JSON has arrived, in real headless Chromium (Debian's chromium and
chromium-driver through Selenium, as the browser tests drive it), for the demo's 1,500-entry person and for a
10,000-entry one.

Each person is a store of its own, made as scripts/demo.sh makes the demo's: generate-records' FHIR family
(--seed 7, --end today, so that the windows ending now are full), imported with import-file; the 10,000-entry
person is the family's first member alone. The release daemon serves this tree's web app (--public-dir).
The page's own User Timing measures (Public/timeline/js/draw-timing.js) are read through WebDriver
(performance.getEntriesByType('measure')): `drawn`, from the JSON parsed to the first frame painted after the
DOM was updated (style, layout and paint included), against the targets; `script`, the app's drawing alone.
Each view is drawn RUNS times, in turn (Summary, Year, Decade, Summary, …, each a click on its button), after
WARM_UP rounds that are not counted.
"""

import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "browser"))

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLIC_DIR = os.path.join(REPO, "Public", "timeline")
VIEWS = ["summary", "year", "decade"]
# (label, entries a person, members of the family imported, target ms of `drawn` p50 for every view)
PEOPLE = [("demo", 1_500, None, 100), ("large", 10_000, 1, 300)]
RUNS = 10
WARM_UP = 2
PASSWORD = "bench password"

# The measures of a view since the load numbered above `after`: [{name, duration, load}].
READ_MEASURES = """
    return performance.getEntriesByType('measure')
      .filter((m) => m.name.endsWith('.' + arguments[0]) && m.detail && m.detail.load > arguments[1])
      .map((m) => ({name: m.name, duration: m.duration, load: m.detail.load}));
"""


def browser_missing():
    """Why the figure cannot run here (no chromium, chromedriver or selenium), or None."""
    import shutil
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "python3-selenium is missing (scripts/install-browser-deps.sh installs it)"
    for tool in ("chromium", "chromedriver"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/bin/{tool}"):
            return f"{tool} is missing (scripts/install-browser-deps.sh installs it)"
    return None


def person_store(bin_dir, workdir, label, entries, members):
    """A started daemon over a store of the generated FHIR family (or its first `members`), the whole record's
    entry count of the person the app opens on."""
    from hreaderd_harness import Daemon
    own = os.path.join(workdir, f"webapp-{label}")
    os.makedirs(own, exist_ok=True)
    d = Daemon(bin_dir, own, password=PASSWORD, state=os.path.join(own, "state"))
    d.init()
    bundle = os.path.join(own, "family.fhir.json")
    args = [str(d.tool("generate-records")), "--seed", "7", "--entries", str(entries), "--format", "fhir", "--end", "today",
            "--output", bundle]
    if members:
        args += ["--members", str(members)]
    subprocess.run(args, check=True, capture_output=True, env=d.env, timeout=600)
    d.import_file(bundle)
    d.create_token("bench")
    d.start("--idle-lock", "0", "--public-dir", PUBLIC_DIR, "--bundled-library", "none", timeout=30)
    return d


def draw_times(browser, daemon, runs=RUNS, warm_up=WARM_UP):
    """{view: {"drawn": [ms…], "script": [ms…]}} over `runs` rounds after `warm_up` ones, and the person's name."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from harness import wait_until
    driver = browser.driver
    driver.get("about:blank")
    driver.get(daemon.origin + "/timeline/#/summary")
    wait_until(lambda: driver.find_element(By.CSS_SELECTOR, "#signin-password").is_displayed()
               or driver.find_element(By.CSS_SELECTOR, "#app").is_displayed(), timeout=30, message="the sign-in screen")
    if not driver.find_element(By.CSS_SELECTOR, "#app").is_displayed():
        field = driver.find_element(By.CSS_SELECTOR, "#signin-password")
        field.send_keys(PASSWORD)
        field.send_keys(Keys.ENTER)
    last_load = [0]

    def drawn_once(view):
        """Clicks the view's button and waits for its drawn measure; (drawn ms, script ms)."""
        button = driver.find_element(By.CSS_SELECTOR, f'.view-button[data-view="{view}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()

        def measured():
            measures = driver.execute_script(READ_MEASURES, view, last_load[0])
            return measures if any(m["name"] == f"hreaderd.drawn.{view}" for m in measures) else None

        measures = wait_until(measured, timeout=60, interval=0.02, message=f"the {view} view's drawn measure")
        load = max(m["load"] for m in measures if m["name"] == f"hreaderd.drawn.{view}")
        last_load[0] = load
        by_name = {m["name"]: m["duration"] for m in measures if m["load"] == load}
        return by_name[f"hreaderd.drawn.{view}"], by_name[f"hreaderd.script.{view}"]

    # The Summary the app opens on is drawn once signed in.
    wait_until(lambda: driver.execute_script(READ_MEASURES, "summary", 0), timeout=60, message="the first Summary drawn")
    times = {view: {"drawn": [], "script": []} for view in VIEWS}
    for round_ in range(warm_up + runs):
        for view in VIEWS:
            drawn, script = drawn_once(view)
            if round_ >= warm_up:
                times[view]["drawn"].append(drawn)
                times[view]["script"].append(script)
        driver.execute_script("performance.clearMeasures()")
    name = driver.find_element(By.CSS_SELECTOR, "#person-name").text
    return times, name


def webapp_figure(bin_dir, workdir, runs=RUNS):
    """Figure 9: {"people": [{label, entries, name, target_ms, views: {view: {drawn_p50_ms, drawn_max_ms, script_p50_ms, …}}}]}."""
    missing = browser_missing()
    if missing:
        raise RuntimeError(f"the web app benchmark needs a browser: {missing}")
    from harness import Browser
    result = {"runs": runs, "people": []}
    browser = Browser(workdir)
    try:
        for label, entries, members, target in PEOPLE:
            d = person_store(bin_dir, workdir, label, entries, members)
            try:
                people = json.loads(d.get("/patients.json"))
                in_record = next(p["entries"] for p in people["patients"] if p["id"] == people["current"])
                times, name = draw_times(browser, d, runs)
            finally:
                d.stop()
            views = {}
            for view, t in times.items():
                views[view] = {"drawn_p50_ms": round(statistics.median(t["drawn"]), 1), "drawn_max_ms": round(max(t["drawn"]), 1),
                               "script_p50_ms": round(statistics.median(t["script"]), 1), "script_max_ms": round(max(t["script"]), 1)}
            result["people"].append({"label": label, "entries": entries, "in_record": in_record, "name": name, "target_ms": target,
                                     "views": views})
    finally:
        browser.quit()
    result["load_average"] = round(os.getloadavg()[0], 2)
    return result


def webapp_lines(r):
    lines = [f"The web app, from a view's JSON parsed to its first frame painted (headless Chromium, {r['runs']} draws a view;"
             f" load average {r['load_average']}):"]
    for p in r["people"]:
        lines.append(f"  {p['name']} ({p['entries']:,} entries a person generated, {p['in_record']:,} in the record)")
        lines.append(f"    {'view':<10}{'p50 ms':>8}{'max ms':>8}{'target':>8}{'script p50':>12}{'max':>7}")
        for view in VIEWS:
            v = p["views"][view]
            met = "met" if v["drawn_p50_ms"] < p["target_ms"] else "MISSED"
            lines.append(f"    {view:<10}{v['drawn_p50_ms']:>8.1f}{v['drawn_max_ms']:>8.1f}{'< ' + str(p['target_ms']):>8}"
                         f"{v['script_p50_ms']:>12.1f}{v['script_max_ms']:>7.1f}  {met}")
    return lines
