"""The web app as a person uses it: sign in, the views, details, what they record, the family,
a dense record, record files added in the app, the import panel, keyboard and names, and screenshots at phone and desktop widths in
light and dark. Every test also checks that the console has no errors and no CSP violations."""

import base64
import http.client
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from harness import PASSWORD, ROOT, FHIRSandbox, Sandbox, Skip, free_port, wait_until

# The third-party FHIR samples live beside the repository (../shared/fhir-samples), like the RHEx ones;
# HREADERD_FHIR_SAMPLES points elsewhere (the Swift tests read the same variable).
FHIR_SAMPLES = Path(os.environ.get("HREADERD_FHIR_SAMPLES") or ROOT.parent / "shared" / "fhir-samples")
DAISEY = "synthea_child_daisey_johns.json"
# What Daisey Johns's bundle holds for the timeline, by lane (the All view holds all of it).
DAISEY_LANES = {"allergy": 8, "condition": 7, "immunization": 33, "encounter": 32, "procedure": 15,
                "medication": 6, "result": 54, "care_goal": 3}

HENRY_CONDITIONS = ["Hypertension", "Prostate Cancer", "Primary Open Angle Glaucoma (POAG)", "Heart Failure"]


class Context:
    def __init__(self, daemon, browser, attacker, shots):
        self.daemon = daemon
        self.browser = browser
        self.driver = browser.driver
        self.attacker = attacker
        self.shots = shots
        self.base = daemon.origin + "/timeline/"
        self.allowed_console = []  # substrings of console lines a test expects (a 401 on a wrong password)
        self.henry = daemon.patients["Henry Smith"]
        self.nancy = daemon.patients["Nancy Smith"]

    # ---- finding and waiting ----

    def find(self, css, root=None):
        return (root or self.driver).find_element(By.CSS_SELECTOR, css)

    def find_all(self, css, root=None):
        return (root or self.driver).find_elements(By.CSS_SELECTOR, css)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def text(self, css):
        return self.find(css).text

    def click(self, element):
        self.js("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    # The shipped app carries no test hooks: the tests watch what a person's assistive technology sees.
    # `#main` is aria-busy while a window loads; when the attribute goes, the window (the address's
    # hash) is drawn for the person named in the heading. This observer, installed by the test, counts
    # those ends, notes what each one drew, and times the last load from start to drawn.
    WATCH_DRAWS = """
        const main = document.getElementById('main');
        const drawn = () => location.hash + '|' + document.getElementById('person-name').textContent;
        if (!window.__draws) {
          const busy = main.hasAttribute('aria-busy');
          const draws = window.__draws = {count: busy ? 0 : 1, last: busy ? '' : drawn(), ms: null, started: null};
          new MutationObserver((records) => {
            for (const record of records) {
              if (record.oldValue === null) { draws.started = performance.now(); continue; }
              if (main.hasAttribute('aria-busy')) continue;
              draws.count += 1;
              draws.last = drawn();
              if (draws.started !== null) draws.ms = performance.now() - draws.started;
            }
          }).observe(main, {attributes: true, attributeFilter: ['aria-busy'], attributeOldValue: true});
        }
        return Object.assign({busy: main.hasAttribute('aria-busy')}, window.__draws);
    """

    def draws(self):
        return self.js(self.WATCH_DRAWS)

    def renders(self):
        return int(self.draws()["count"])

    def rendered(self):
        """`#/view/end|Person Name` of the window drawn last, or '' while one loads."""
        draws = self.draws()
        return "" if draws["busy"] else draws["last"]

    def wait_rendered(self, hash_, patient=None, after=None, timeout=10):
        names = {pid: name for name, pid in self.daemon.patients.items()}
        want = f"{hash_}|{names.get(patient, patient)}" if patient else hash_

        def ready():
            current = self.rendered()
            ok = current == want if patient else current.split("|")[0] == want
            return ok and (after is None or self.renders() > after)
        wait_until(ready, timeout=timeout, message=f"the window {want} to be drawn (now {self.rendered()!r})")

    def open(self, hash_, patient=None):
        """A fresh load of the app at this window (a new document, not only a new hash)."""
        self.driver.get("about:blank")
        self.driver.get(self.base + hash_)
        wait_until(lambda: self.on_app() or self.find("#signin").is_displayed(), message="the app or the sign-in screen")
        if not self.on_app():
            self.sign_in()
        self.wait_rendered(hash_, patient)

    def on_app(self):
        try:
            return self.find("#app").is_displayed()
        except Exception:  # noqa: BLE001
            return False

    def sign_in(self, password=PASSWORD):
        field = self.find("#signin-password")
        field.clear()
        field.send_keys(password)
        field.send_keys(Keys.ENTER)
        wait_until(self.on_app, message="the app after signing in")

    def lane_labels(self, lane_type):
        return [m.get_attribute("aria-label") for m in self.find_all(f'.lane[data-type="{lane_type}"] .mark')]

    def lane_counts(self):
        return {lane.get_attribute("data-type"): int(lane.get_attribute("data-count")) for lane in self.find_all(".lane")}

    # ---- console and CSP ----

    def check_console(self, name):
        entries = self.browser.drain_console()
        violations = self.browser.csp_violations()
        problems = []
        allowed = self.allowed_console
        for entry in entries:
            message = entry.get("message", "")
            if any(expected in message for expected in allowed):
                continue
            if "Content Security Policy" in message or "Content-Security-Policy" in message or entry.get("level") == "SEVERE":
                problems.append(message)
        self.allowed_console = []
        if violations:
            problems.extend(f"CSP violation: {v}" for v in violations)
        if problems:
            raise AssertionError(f"{name}: console errors or CSP violations:\n  " + "\n  ".join(problems))

    def recover(self):
        """After a failed test: back to a known state (signed in, Henry, the decade view)."""
        self.allowed_console = []
        if self.daemon.publisher:
            self.daemon.publisher.release()  # a pack held by the failed test would stall the next download
        try:
            self.driver.switch_to.default_content()
            self.browser.viewport(1280, 900, dark=False)
            self.driver.get("about:blank")
            self.driver.get(self.base)
            wait_until(lambda: self.on_app() or self.find("#signin").is_displayed(), message="app or sign-in")
            if not self.on_app():
                self.sign_in()
            self.daemon.request("POST", "/patients/current", {"id": self.henry})
        except Exception as error:  # noqa: BLE001
            print(f"  (recovery failed: {error})")
        self.browser.drain_console()
        self.js("window.__cspViolations = []") if self.on_app() else None

    def screenshot(self, name, full=True):
        path = self.shots / f"{name}.png"
        if full:
            self.browser.full_page_screenshot(path)
        else:
            self.driver.save_screenshot(str(path))
        return path


# ---- the tests, in order ----

def test_wrong_password_shows_error(t):
    t.allowed_console = ["/session - Failed to load resource: the server responded with a status of 401"]
    t.driver.get(t.base)
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
    assert "locked" in t.text("#signin-reason").lower(), t.text("#signin-reason")
    assert t.driver.switch_to.active_element.get_attribute("id") == "signin-password", "the password field has focus"
    field = t.find("#signin-password")
    field.send_keys("not the password", Keys.ENTER)
    wait_until(lambda: "does not unlock" in t.text("#signin-error"), message="the wrong-password message")
    assert field.get_attribute("aria-invalid") == "true"
    assert not t.on_app()
    t.screenshot("signin-wrong-password-desktop-light", full=False)


def test_root_address_leads_to_the_app(t):
    """What a person types, http://127.0.0.1:PORT/, with no session yet: the app's sign-in, and no error
    in the console (the app's first GET /session answers 200 with signed_in false, not 401)."""
    # The page of the test before is left first: its requests still on their way would meet no cookie.
    t.driver.get("about:blank")
    t.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    t.browser.drain_console()
    t.driver.get(t.daemon.origin + "/")
    assert t.driver.current_url == t.base, f"/ led to {t.driver.current_url}: {t.find('body').text[:200]}"
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
    status, state = t.daemon.request("GET", "/session", auth=False)
    assert status == 200 and state.get("signed_in") is False, (status, state)
    t.check_console("first visit, signed out")
    t.sign_in()


def test_sign_in_unlocks_the_store(t):
    status, health = t.daemon.request("GET", "/healthz", auth=False)
    assert health["locked"] is True, health
    t.driver.get(t.base)
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
    t.sign_in()
    status, health = t.daemon.request("GET", "/healthz", auth=False)
    assert health["locked"] is False, "signing in unlocked the store"
    assert t.js("return document.cookie") == "", "the session cookie is HttpOnly: scripts cannot see it"
    # The rest of the tests start on Henry Smith.
    status, _ = t.daemon.request("POST", "/patients/current", {"id": t.henry})
    assert status == 200


def test_decade_view_shows_conditions_and_vitals(t):
    t.open("#/decade/2011-01-01", t.henry)
    assert t.text("#person-name") == "Henry Smith"
    label = t.text("#window-label")
    assert "2001" in label and "2011" in label, label
    assert t.find('.view-button[data-view="decade"]').get_attribute("aria-pressed") == "true"
    conditions = t.lane_labels("condition")
    for name in HENRY_CONDITIONS:
        assert any(l.startswith(name + ",") for l in conditions), f"{name} on the conditions lane: {conditions}"
    # The same conditions in words, under "In this window".
    listed = t.text('.entry-group[data-type="condition"]')
    for name in HENRY_CONDITIONS:
        assert name in listed, f"{name} listed"
    # Vital sign charts: one per vital, blood pressure as one chart of two lines, latest value written.
    titles = [c.get_attribute("data-title") for c in t.find_all("#vitals .chart")]
    for title in ["Heart Rate", "BMI", "Blood pressure"]:
        assert title in titles, f"a {title} chart in {titles}"
    bp = t.find('#vitals .chart[data-title="Blood pressure"]')
    assert len(t.find_all("polyline", bp)) == 2, "systolic and diastolic lines"
    assert "/" in t.find(".latest .value", bp).text and "mmHg" in bp.text, bp.text
    heart = t.find('#vitals .chart[data-title="Heart Rate"]')
    assert t.find(".latest .value", heart).text == "72", heart.text
    assert "Heart Rate" in t.find("svg", heart).get_attribute("aria-label")
    assert "Total Cholesterol" in [c.get_attribute("data-title") for c in t.find_all("#labs .chart")]


def test_switching_views_changes_what_is_shown(t):
    t.open("#/decade/2011-01-01", t.henry)
    decade = t.lane_counts()
    decade_label = t.text("#window-label")
    t.click(t.find('.view-button[data-view="year"]'))
    t.wait_rendered("#/year/2011-01-01", t.henry)
    year = t.lane_counts()
    assert t.text("#window-label") != decade_label
    assert "2010" in t.text("#window-label")
    assert year["result"] < decade["result"], (decade, year)
    assert t.find('.view-button[data-view="year"]').get_attribute("aria-pressed") == "true"
    # Hypertension began in 2009: in the 2010 year view it is ongoing, drawn across the window.
    hypertension = [l for l in t.lane_labels("condition") if l.startswith("Hypertension")]
    assert hypertension and "ongoing since" in hypertension[0], hypertension
    t.click(t.find('.view-button[data-view="month"]'))
    t.wait_rendered("#/month/2011-01-01", t.henry)
    month = t.lane_counts()
    assert month != year, (year, month)
    t.click(t.find('.view-button[data-view="all"]'))
    t.wait_rendered("#/all", t.henry)
    assert t.find('.view-button[data-view="all"]').get_attribute("aria-pressed") == "true"
    assert t.text("#window-label").startswith("Jan 5, 2008"), t.text("#window-label")  # Henry's first entry
    assert t.lane_counts()["result"] >= decade["result"]
    assert t.find("#step-back").get_attribute("disabled") is not None, "no stepping in the All view"


def test_stepping_back_and_forward(t):
    t.open("#/year/2011-01-01", t.henry)
    first = t.text("#window-label")
    t.click(t.find("#step-back"))
    t.wait_rendered("#/year/2010-01-01", t.henry)
    assert "2009" in t.text("#window-label"), t.text("#window-label")
    t.click(t.find("#step-forward"))
    t.wait_rendered("#/year/2011-01-01", t.henry)
    assert t.text("#window-label") == first
    # The browser's back button returns to the earlier window: the address keeps the state.
    t.driver.back()
    t.wait_rendered("#/year/2010-01-01", t.henry)
    t.driver.forward()
    t.wait_rendered("#/year/2011-01-01", t.henry)
    # "Ends on" picks any day.
    field = t.find("#end-date")
    t.js("arguments[0].value = '2010-08-31'; arguments[0].dispatchEvent(new Event('change'))", field)
    t.wait_rendered("#/year/2010-08-31", t.henry)


def test_entry_details_open_by_click_and_keyboard(t):
    t.open("#/decade/2011-01-01", t.henry)
    mark = [m for m in t.find_all('.lane[data-type="condition"] .mark') if m.get_attribute("aria-label").startswith("Hypertension,")][0]
    t.click(mark)
    dialog = t.find("#details")
    wait_until(lambda: dialog.is_displayed(), message="the details dialog")
    assert t.text("#details-title") == "Hypertension"
    body = t.text("#details-body")
    for expected in ["Condition", "Started", "Aug 25, 2009", "No end recorded", "Status", "SNOMED-CT", "59621000", "ICD-9-CM", "401.9"]:
        assert expected in body, f"{expected!r} in the details: {body}"
    t.screenshot("details-desktop-light", full=False)
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), message="Escape to close the dialog")
    assert t.driver.switch_to.active_element == mark, "focus returns to the mark"

    # Keyboard only: the lane is one Tab stop, arrows move along it, Enter opens.
    first = t.find('.lane[data-type="condition"] .mark[tabindex="0"]')
    first.send_keys(Keys.END)
    focused = t.driver.switch_to.active_element
    assert "mark" in focused.get_attribute("class")
    focused.send_keys(Keys.ENTER)
    wait_until(lambda: dialog.is_displayed(), message="Enter to open the details")
    assert t.text("#details-title") in HENRY_CONDITIONS
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), message="the dialog to close")

    # A result with a value: from the list under the timeline.
    t.click(t.find('.entry-group[data-type="result"] > summary'))
    row = wait_until(lambda: [r for r in t.find_all('.entry-group[data-type="result"] .entry-row') if "Total Cholesterol" in r.text], message="the results list")[0]
    value = row.find_element(By.CSS_SELECTOR, ".value").text
    t.click(row)
    wait_until(lambda: dialog.is_displayed(), message="details of a result")
    assert t.text("#details-title") == "Total Cholesterol"
    assert value in t.text("#details-body") and "LOINC" in t.text("#details-body")
    t.click(t.find("#details [data-close]"))
    wait_until(lambda: not dialog.is_displayed(), message="the close button")


def test_cluster_lists_its_entries(t):
    t.open("#/decade/2011-01-01", t.henry)
    clusters = t.find_all('.lane[data-type="result"] .mark.cluster')
    assert clusters, "results that fall together are grouped"
    cluster = clusters[-1]
    count = int(cluster.text)
    t.click(cluster)
    dialog = t.find("#details")
    wait_until(lambda: dialog.is_displayed(), message="the cluster's list")
    rows = t.find_all("#details .entry-row")
    assert len(rows) == count, (len(rows), count)
    t.click(rows[0])
    wait_until(lambda: t.find_all("#details [data-back]"), message="an entry from the cluster")
    t.click(t.find("#details [data-back]"))
    wait_until(lambda: len(t.find_all("#details .entry-row")) == count, message="back to the list")
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), message="the dialog to close")


def test_empty_window_offers_the_latest_entry(t):
    # Henry's record ends in 2012: the year up to now holds only his open conditions and
    # medications (drawn as bands), and the app says where the latest entry is.
    t.open("#/year", t.henry)
    empty = wait_until(lambda: t.find(".timeline-card .empty"), message="the empty state")
    assert "Nothing new in Henry Smith" in empty.text, empty.text
    assert t.lane_counts().get("condition") == 4, "the ongoing conditions are still drawn"
    jump = wait_until(lambda: [b for b in t.find_all(".timeline-card .empty button") if b.text.startswith("Jump to")], message="the jump button")[0]
    assert "2012" in jump.text, jump.text
    t.screenshot("empty-window-desktop-light", full=False)
    t.click(jump)
    t.wait_rendered("#/year/2012-01-15", t.henry)
    assert t.lane_counts().get("result", 0) > 0
    assert not t.find_all(".timeline-card .empty")
    # A window before the record begins is empty altogether.
    t.open("#/day/1990-06-01", t.henry)
    empty = wait_until(lambda: t.find("#timeline .empty"), message="the empty state of an empty window")
    assert "Nothing in Henry Smith" in empty.text, empty.text
    wait_until(lambda: [b for b in t.find_all("#timeline .empty button") if b.text == "Show the whole record"], message="the whole-record button")


def test_levels_posted_with_sliders_appear_on_day_view(t):
    t.open("#/day", t.henry)
    before = t.renders()
    pain = t.find("#level-pain")
    t.click(pain)
    pain.send_keys(Keys.HOME)
    for _ in range(7):
        pain.send_keys(Keys.ARROW_RIGHT)
    mood = t.find("#level-mood")
    mood.send_keys(Keys.HOME)
    for _ in range(3):
        mood.send_keys(Keys.ARROW_RIGHT)
    energy = t.find("#level-energy")
    energy.send_keys(Keys.END)
    energy.send_keys(Keys.ARROW_LEFT)
    assert t.text("#level-pain-out") == "7" and t.text("#level-mood-out") == "3" and t.text("#level-energy-out") == "9"
    t.click(t.find('#levels-form button[type="submit"]'))
    t.wait_rendered("#/day", t.henry, after=before)
    wait_until(lambda: "Saved at" in t.text("#levels-form .form-note"), message="the saved note")
    posts = t.lane_labels("post")
    assert any("Levels: pain 7, mood 3, energy 9" in p for p in posts), posts
    assert "Levels: pain 7, mood 3, energy 9" in t.text("#posts")
    stored = t.daemon.api(f"/timeline.json?page=day&patient={t.henry}")
    assert stored["levels"] == {"pain": ["7"], "mood": ["3"], "energy": ["9"]}, stored["levels"]
    # A second entry makes a chart of the levels, written out as well as drawn.
    before = t.renders()
    t.click(t.find('#levels-form button[type="submit"]'))
    t.wait_rendered("#/day", t.henry, after=before)
    chart = wait_until(lambda: t.find('#levels-chart .chart'), message="the levels chart")
    assert "pain 7 · mood 3 · energy 9" in chart.text, chart.text
    assert len(t.find_all("polyline", chart)) == 3, "pain, mood and energy"
    latest = t.daemon.api(f"/timeline.json?page=day&patient={t.henry}")["timeline_entries"][-1]
    t.daemon.request("DELETE", f"/timeline/entries/{latest['id']}")
    t.open("#/day", t.henry)
    # Its details, from the timeline.
    t.click(t.find('.lane[data-type="post"] .mark'))
    wait_until(lambda: t.find("#details").is_displayed(), message="the note's details")
    assert t.text("#details-title") == "Levels", t.text("#details-title")
    body = t.text("#details-body")
    assert "Recorded by you" in body and "Pain" in body and "Delete this note" in body, body
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not t.find("#details").is_displayed(), message="the dialog to close")


def test_post_from_a_past_window_says_where_it_went(t):
    t.open("#/decade/2011-01-01", t.henry)
    t.click(t.find('#levels-form button[type="submit"]'))
    status = wait_until(lambda: t.find("#status button"), message="the note about today's timeline")
    assert "It is on today" in t.text("#status"), t.text("#status")
    before = t.renders()
    t.click(status)
    t.wait_rendered("#/day", t.henry, after=before)
    latest = t.daemon.api(f"/timeline.json?page=day&patient={t.henry}")["timeline_entries"][-1]
    assert latest["type"] == "levels"
    status, _ = t.daemon.request("DELETE", f"/timeline/entries/{latest['id']}")
    assert status == 204


def test_medication_added_then_deleted(t):
    t.open("#/day", t.henry)
    t.click(t.find("#new-med > summary"))
    name = t.find("#med-name")
    wait_until(lambda: name.is_displayed(), message="the medication form")
    # An empty name is refused with a message, not posted.
    t.click(t.find('#med-form button[type="submit"]'))
    assert "Enter the medication" in t.text("#med-form .form-error"), t.text("#med-form .form-error")
    before = t.renders()
    notes_before = t.lane_counts().get("post", 0)
    name.send_keys("Ibuprofen 200 mg")
    t.find("#med-dose").send_keys("1 tablet")
    Select(t.find("#med-freq")).select_by_value("BID")
    t.click(t.find('#med-form button[type="submit"]'))
    t.wait_rendered("#/day", t.henry, after=before)
    wait_until(lambda: "Ibuprofen 200 mg" in t.text("#posts"), message="the medication in the notes")
    assert "Medication added: Ibuprofen 200 mg (1 tablet, twice a day)" in t.text("#posts"), t.text("#posts")
    # On the timeline: its own mark, or grouped with the levels posted a moment ago.
    assert t.lane_counts()["post"] == notes_before + 1, t.lane_counts()
    t.click(t.find_all('.lane[data-type="post"] .mark')[-1])
    wait_until(lambda: "Ibuprofen 200 mg" in t.text("#details"), message="the medication behind the last mark")
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not t.find("#details").is_displayed(), message="the dialog to close")
    # It is now one of the medications to check off.
    fieldset = wait_until(lambda: [f for f in t.find_all("#regimen-list fieldset") if "Ibuprofen 200 mg" in f.text], message="the regimen entry")[0]
    assert "added by you" in fieldset.text, fieldset.text
    choice = [c for c in fieldset.find_elements(By.CSS_SELECTOR, ".choice") if c.text == "As directed"][0]
    t.click(choice)
    before = t.renders()
    t.click(t.find('#regimen-form button[type="submit"]'))
    t.wait_rendered("#/day", t.henry, after=before)
    wait_until(lambda: "Ibuprofen 200 mg: as directed" in t.text("#posts"), message="the regimen note")
    stored = t.daemon.api(f"/timeline.json?page=day&patient={t.henry}")
    assert {"description": "Ibuprofen 200 mg", "dose": "1 tablet", "select-choice-freq": "BID"} in stored["timeline_medications"], stored["timeline_medications"]
    assert stored["regimens"] and stored["regimens"][-1]["select-choice-by"] in (["AD"], "AD"), stored["regimens"]

    # Delete the medication.
    row = [li for li in t.find_all("#posts li") if "Medication added: Ibuprofen" in li.text][0]
    before = t.renders()
    t.click(row.find_element(By.CSS_SELECTOR, "button"))
    t.wait_rendered("#/day", t.henry, after=before)
    wait_until(lambda: "Medication added: Ibuprofen" not in t.text("#posts"), message="the medication to go")
    stored = t.daemon.api(f"/timeline.json?page=day&patient={t.henry}")
    assert not stored["timeline_medications"], stored["timeline_medications"]


def test_second_patient_can_be_selected(t):
    t.open("#/decade/2011-01-01", t.henry)
    options = [o.text for o in Select(t.find("#patient-select")).options]
    assert any(o.startswith("Henry Smith, ") and o.endswith(" years") for o in options), options
    assert any(o.startswith("Nancy Smith, ") for o in options), options
    Select(t.find("#patient-select")).select_by_value(t.nancy)
    t.wait_rendered("#/decade/2011-01-01", t.nancy)
    assert t.text("#person-name") == "Nancy Smith"
    assert "Female" in t.text("#person-meta")
    # The daemon remembers the choice: a reload opens on Nancy.
    t.driver.refresh()
    t.wait_rendered("#/decade/2011-01-01", t.nancy)
    assert Select(t.find("#patient-select")).first_selected_option.get_attribute("value") == t.nancy
    status, data = t.daemon.request("GET", "/patients.json")
    assert data["current"] == t.nancy
    Select(t.find("#patient-select")).select_by_value(t.henry)
    t.wait_rendered("#/decade/2011-01-01", t.henry)


def test_dense_window_stays_responsive(t):
    """A person with 10,000 entries, all of them in the window: the lanes group them."""
    dense = [pid for name, pid in t.daemon.patients.items() if name not in ("Henry Smith", "Nancy Smith")][0]
    t.open("#/decade/2011-01-01", t.henry)
    start = time.time()
    t.driver.get(t.base + "#/all")
    t.wait_rendered("#/all", t.henry)
    Select(t.find("#patient-select")).select_by_value(dense)
    t.wait_rendered("#/all", dense, timeout=20)
    elapsed = time.time() - start
    counts = t.lane_counts()
    total = sum(counts.values())
    marks = len(t.find_all(".timeline .mark"))
    _, people = t.daemon.request("GET", "/patients.json")
    entries = [p["entries"] for p in people["patients"] if p["id"] == dense][0]
    assert entries == 10000, entries
    assert total >= 5000, counts  # the rest are vital signs, charted below
    assert marks < 1500, f"{marks} marks drawn for {total} entries"
    # Switching views stays quick once loaded.
    t0 = time.time()
    t.click(t.find('.view-button[data-view="year"]'))
    t.wait_rendered("#/year", dense)
    t.click(t.find('.view-button[data-view="all"]'))
    t.wait_rendered("#/all", dense, timeout=20)
    switch = time.time() - t0
    # The last window's load and drawing (lanes, charts, lists), from aria-busy set to cleared. Printed,
    # not asserted: timings are the benchmarks' business.
    render_ms = round(t.draws()["ms"] or 0)
    print(f"  dense: {entries} entries, {total} on the lanes, {marks} marks, load {elapsed:.2f} s, all→year→all {switch:.2f} s, last load and draw {render_ms} ms")
    t.screenshot("dense-all-desktop-light", full=False)
    Select(t.find("#patient-select")).select_by_value(t.henry)
    t.wait_rendered("#/all", t.henry)


# ---- Add records: files uploaded in the app ----

def fhir_sample(name):
    path = FHIR_SAMPLES / name
    if not (FHIR_SAMPLES / "README.md").exists() or not path.exists():
        raise Skip(f"the FHIR sample {name} is not in {FHIR_SAMPLES} (it lives in shared/fhir-samples beside the repository; "
                   "set HREADERD_FHIR_SAMPLES to another folder)")
    return path


def open_add_records(t):
    """Opens the Add records panel from the header with the keyboard; returns the dialog."""
    button = t.find("#add-records")
    t.js("arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    dialog = t.find("#upload")
    wait_until(lambda: dialog.is_displayed(), message="the Add records panel")
    assert t.driver.switch_to.active_element.get_attribute("id") == "upload-input", "the file picker has the focus"
    assert t.find("#upload-input").get_attribute("multiple") is not None, "several files at once"
    label = t.find('label[for="upload-input"]').text
    assert label, "the file input is labelled"
    return dialog


def uploads(t):
    """{file name: (state, text)} of the files in the panel."""
    return {t.find(".upload-name", item).text: (item.get_attribute("data-state"), item.text) for item in t.find_all("#upload-list .upload")}


def count_table(block):
    """{row name: {column: number}} of a person's table of entries in an import report."""
    heads = [th.text.lower() for th in block.find_elements(By.CSS_SELECTOR, "table.counts thead th")][1:]
    table = {}
    for row in block.find_elements(By.CSS_SELECTOR, "table.counts tbody tr, table.counts tfoot tr"):
        name = row.find_element(By.CSS_SELECTOR, "th").text
        table[name] = dict(zip(heads, (int(td.text.replace(",", "")) for td in row.find_elements(By.CSS_SELECTOR, "td"))))
    return table


def test_add_records_imports_a_fhir_bundle(t):
    """A FHIR R4 bundle picked in Add records: uploaded, imported, reported per person and type, and
    the new person is one click from the timeline, with lanes for the new entry types."""
    path = fhir_sample(DAISEY)
    _, before = t.daemon.request("GET", "/patients.json")
    t.open("#/decade/2011-01-01", t.henry)
    options = len(t.find_all("#patient-select option"))
    dialog = open_add_records(t)
    assert t.find("#upload-into-field").is_displayed() and "Henry Smith" in t.text("#upload-into-field"), "import into the person shown"
    t.find("#upload-input").send_keys(str(path))
    wait_until(lambda: uploads(t).get(DAISEY, ("",))[0] not in ("", "waiting", "uploading", "importing"), timeout=60, interval=0.2,
               message="the import's report")
    state, text = uploads(t)[DAISEY]
    assert state == "done", text
    assert "Imported" in text and "1 new person · 252 entries added." in text, text
    assert "FHIR R4 bundle · 312 resources" in text, text
    block = t.find("#upload-list .upload-patient")
    assert block.get_attribute("open") is not None, "one person's report is open"
    summary = t.find("summary", block).text
    assert "Daisey Johns" in summary and "New person" in summary and "252 entries added" in summary, summary
    table = count_table(block)
    for row, added in {"Allergies": 8, "Conditions": 7, "Immunizations": 33, "Encounters": 32, "Procedures": 15, "Medications": 6,
                       "Results": 54, "Vital signs": 94, "Care goals": 3, "All": 252}.items():
        assert table.get(row) == {"added": added, "updated": 0, "unchanged": 0}, f"{row}: {table.get(row)} in {table}"
    assert "Kept, not shown: 38 Claim, 32 ExplanationOfBenefit, 2 DiagnosticReport." in block.text, block.text
    assert "Kept, not about one person: 2 Organization, 2 Practitioner." in text, text
    assert "Nothing was imported" not in text
    # The store has her, and the picker lists her without a reload; Henry is still shown.
    _, after = t.daemon.request("GET", "/patients.json")
    added = [p for p in after["patients"] if p["id"] not in {q["id"] for q in before["patients"]}]
    assert [(p["name"], p["entries"]) for p in added] == [("Daisey Johns", 252)], added
    daisey = added[0]["id"]
    wait_until(lambda: len(t.find_all("#patient-select option")) == options + 1, message="Daisey in the picker")
    assert t.text("#person-name") == "Henry Smith"
    assert "Imported: 1 new person" not in t.text("#imports"), "uploads are reported in the panel, not under Imports"
    # What it looks like, on a desktop and on a phone.
    t.screenshot("add-records-report-desktop-light", full=False)
    try:
        t.browser.viewport(390, 844)
        time.sleep(0.3)
        width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", dialog)
        assert width[0] <= width[1] + 1, f"the panel scrolls sideways on a phone: {width}"
        table = t.js("const w = document.querySelector('#upload .table-wrap'); return [w.scrollWidth, w.clientWidth]")
        assert table[0] <= table[1] + 1, f"the table of entries fits a phone: {table}"
        t.screenshot("add-records-report-phone-light", full=False)
        t.browser.viewport(390, 844, dark=True)
        t.screenshot("add-records-report-phone-dark", full=False)
    finally:
        t.browser.viewport(1280, 900)

    # The same file again changes nothing, and says so.
    t.find("#upload-input").send_keys(str(path))
    wait_until(lambda: len(t.find_all("#upload-list .upload")) == 2 and t.find_all('#upload-list .upload')[1].get_attribute("data-state") == "done",
               timeout=60, interval=0.2, message="the second import's report")
    again = t.find_all("#upload-list .upload")[1]
    assert "1 person unchanged · 252 entries unchanged." in again.text, again.text
    assert count_table(t.find(".upload-patient", again))["All"] == {"added": 0, "updated": 0, "unchanged": 252}
    _, later = t.daemon.request("GET", "/patients.json")
    assert len(later["patients"]) == len(after["patients"]), "no second Daisey"

    # Show her on the timeline: the panel closes on her whole record.
    t.click(t.find(f'#upload-list .upload-patient[data-patient="{daisey}"] button.show-patient'))
    wait_until(lambda: not dialog.is_displayed(), message="the panel to close")
    t.wait_rendered("#/all", "Daisey Johns", timeout=15)
    assert t.text("#person-name") == "Daisey Johns"
    assert Select(t.find("#patient-select")).first_selected_option.get_attribute("value") == daisey
    counts = t.lane_counts()
    for lane, count in DAISEY_LANES.items():
        assert counts.get(lane) == count, f"the {lane} lane: {counts.get(lane)} of {count} ({counts})"
    goals = t.find('.lane[data-type="care_goal"]')
    assert t.find(".lane-label", goals).text.startswith("Care goals"), t.find(".lane-label", goals).text
    assert any(label.startswith("Asthma self management, care goal,") for label in t.lane_labels("care_goal")), t.lane_labels("care_goal")
    swatch = t.js("return getComputedStyle(arguments[0]).backgroundColor", t.find(".swatch", goals))
    assert swatch not in ("", "rgba(0, 0, 0, 0)", "transparent"), f"the care goals lane has a colour: {swatch}"
    assert "Care goals" in t.text('.entry-group[data-type="care_goal"] > summary')
    t.screenshot("add-records-daisey-all-desktop-light", full=True)
    _, current = t.daemon.request("GET", "/patients.json")
    assert current["current"] == daisey, "Show on the timeline chose her for the daemon too"
    t.daemon.request("POST", "/patients/current", {"id": t.henry})


def test_add_records_refuses_bad_files(t):
    """Files that hold nothing to import are refused one by one, each with the daemon's reason, and
    nothing changes; a file over the limit is not even sent."""
    work = t.daemon.work
    empty = work / "empty-bundle.json"
    empty.write_text('{"resourceType": "Bundle", "type": "collection", "entry": []}')
    garbage = work / "not-json.json"
    garbage.write_text("not json")
    page = work / "page.html"
    page.write_text("<p>not a record</p>")
    huge = work / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: no disk used
    t.allowed_console = [f"/imports/files?name={name} - Failed to load resource" for name in ("empty-bundle.json", "not-json.json", "page.html")]
    _, before = t.daemon.request("GET", "/patients.json")
    try:
        t.open("#/decade/2011-01-01", t.henry)
        open_add_records(t)
        if t.find_all("#upload-clear") and t.find("#upload-clear").is_displayed():
            t.click(t.find("#upload-clear"))
        # Several files at once: each its own request, one after another.
        t.find("#upload-input").send_keys("\n".join(str(p) for p in (empty, garbage, page, huge)))
        names = [empty.name, garbage.name, page.name, huge.name]
        wait_until(lambda: all(uploads(t).get(n, ("waiting",))[0] not in ("waiting", "uploading", "importing") for n in names),
                   timeout=30, interval=0.2, message="the four files to be answered")
        shown = uploads(t)
        assert [t.find(".upload-name", i).text for i in t.find_all("#upload-list .upload")] == names, "in the order given"
        for name in names:
            state, text = shown[name]
            assert state == "refused", f"{name}: {state}: {text}"
            assert "Not imported" in text and "Nothing was imported from this file." in text, text
        assert "Nothing could be imported" in shown[empty.name][1] and "empty" in shown[empty.name][1], shown[empty.name][1]
        assert "Nothing could be imported" in shown[garbage.name][1] and "not JSON" in shown[garbage.name][1], shown[garbage.name][1]
        assert "text/html" in shown[page.name][1], shown[page.name][1]
        assert "the limit is 64 MB a file" in shown[huge.name][1], shown[huge.name][1]
        assert "Nothing could be imported" in t.find("#upload-status").get_attribute("textContent") or \
            "huge.json" in t.find("#upload-status").get_attribute("textContent"), "the last answer is announced"
        t.screenshot("add-records-refused-desktop-light", full=False)
        _, after = t.daemon.request("GET", "/patients.json")
        assert [(p["id"], p["entries"]) for p in after["patients"]] == [(p["id"], p["entries"]) for p in before["patients"]], "nothing changed"
        # Clear the list; Escape closes the panel and the focus goes back to the button.
        t.click(t.find("#upload-clear"))
        assert not t.find_all("#upload-list .upload")
        assert t.driver.switch_to.active_element.get_attribute("id") == "upload-input", "focus goes back to the file picker"
        ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()  # (send_keys on a file input would name a file)
        wait_until(lambda: not t.find("#upload").is_displayed(), message="Escape to close the panel")
        assert t.driver.switch_to.active_element.get_attribute("id") == "add-records", "focus returns to Add records"
    finally:
        huge.unlink(missing_ok=True)


# ---- A C-CDA document added in the app: its entries on the timeline, its text under Documents ----

# The C-CDA and C32 samples live beside the repository too (../shared/ccda-samples); HREADERD_CCDA_SAMPLES
# points elsewhere (the Swift tests read the same variable).
CCDA_SAMPLES = Path(os.environ.get("HREADERD_CCDA_SAMPLES") or ROOT.parent / "shared" / "ccda-samples")
CCD = "hl7_ccda21_ccd1_full.xml"  # HL7's C-CDA R2.1 CCD: Eve Betterhalf, entries from 1998 to 2013

# A small document for Eve, made for the test, whose narrative holds markup as text (escaped in the XML):
# shown as HTML, the image would be an element and its handler would run.
MARKUP_DOCUMENT = """<?xml version="1.0" encoding="UTF-8"?>
<ClinicalDocument xmlns="urn:hl7-org:v3">
  <templateId root="2.16.840.1.113883.10.20.22.1.1"/>
  <id root="2.25.1234" extension="markup-in-narrative"/>
  <code code="11506-3" codeSystem="2.16.840.1.113883.6.1" displayName="Progress note"/>
  <title>Clinic note with markup in its text</title>
  <effectiveTime value="20100301"/>
  <recordTarget><patientRole><id root="2.16.840.1.113883.4.1" extension="444222222"/>
    <patient><name><given>Eve</given><family>Betterhalf</family></name><administrativeGenderCode code="F"/><birthTime value="19750501"/></patient>
  </patientRole></recordTarget>
  <component><structuredBody><component><section>
    <code code="51848-0" codeSystem="2.16.840.1.113883.6.1" displayName="Assessment"/>
    <title>ASSESSMENT</title>
    <text><paragraph>Glucose &lt;100 mg/dL and A1c &lt; 6%: <content styleCode="Bold">no</content> diabetes.</paragraph>
      <paragraph>&lt;img src=x onerror="window.__pwned = 1"&gt; &lt;b&gt;not bold&lt;/b&gt; &lt;script&gt;window.__pwned = 2&lt;/script&gt;</paragraph>
      <table><thead><tr><th>Test</th><th>Value</th></tr></thead><tbody><tr><td>LDL</td><td>&lt;130 mg/dL</td></tr></tbody></table>
    </text>
  </section></component></structuredBody></component>
</ClinicalDocument>
"""


def ccda_sample(name):
    if not CCDA_SAMPLES.is_dir():
        raise Skip(f"the C-CDA samples are not in {CCDA_SAMPLES} (they live in shared/ccda-samples beside the repository; "
                   "set HREADERD_CCDA_SAMPLES to another folder)")
    path = CCDA_SAMPLES / name
    assert path.exists(), f"{name} is missing from {CCDA_SAMPLES}"
    return path


def upload_in_panel(t, path, into=False):
    """Uploads one file in the Add records panel (open), into the person shown when asked; its (state, text)."""
    box = t.find("#upload-into")
    if box.is_displayed() and box.is_selected() != into:
        t.click(box)
    t.find("#upload-input").send_keys(str(path))
    wait_until(lambda: uploads(t).get(path.name, ("",))[0] not in ("", "waiting", "uploading", "importing"), timeout=60, interval=0.2,
               message=f"the report of {path.name}")
    return uploads(t)[path.name]


def open_documents(t):
    """Opens Documents from the header with the keyboard; returns the dialog."""
    button = wait_until(lambda: t.find("#documents-button").is_displayed() and t.find("#documents-button"), message="the Documents button")
    t.js("arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    dialog = t.find("#documents")
    wait_until(dialog.is_displayed, message="the Documents panel")
    assert t.driver.switch_to.active_element.get_attribute("aria-label") == "Close Documents", "the focus is in the panel"
    return dialog


def close_documents(t):
    ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()
    wait_until(lambda: not t.find("#documents").is_displayed(), message="Escape to close Documents")


def document_cards(t):
    return t.find_all("#documents-list .document-card")


def document_section(t, card, title):
    found = [s for s in t.find_all(".document-section", card) if t.find(".section-title", s).text == title]
    assert len(found) == 1, f"one section {title!r}: {[t.find('.section-title', s).text for s in t.find_all('.document-section', card)]}"
    return found[0]


def test_imported_ccd_on_the_timeline_and_its_documents(t):
    """HL7's C-CDA R2.1 CCD added in the app: Eve Betterhalf is a new person with her allergies, results
    and vital signs on the timeline, and Documents (shown only for someone with a document) lists the
    document with each section as text, those with nothing on the timeline marked narrative only. A
    second, older document whose narrative holds markup joins the list after its upload, and its markup
    stays text."""
    path = ccda_sample(CCD)
    t.open("#/decade/2011-01-01")  # signed in: the store is unlocked
    known = {p["id"] for p in t.daemon.api("/patients.json")["patients"]}
    try:
        t.daemon.request("POST", "/patients/current", {"id": t.henry})
        t.open("#/decade/2011-01-01", t.henry)
        assert not t.find("#documents-button").is_displayed(), "Henry has no document: no Documents button"
        dialog = open_add_records(t)
        state, text = upload_in_panel(t, path)
        assert state == "done", text
        assert "1 new person · 42 entries added." in text and "C-CDA or C32 document" in text, text
        assert "All 45 entries accounted for: 42 imported, 3 left out" in text, text
        block = t.find("#upload-list .upload-patient")
        assert "Eve Betterhalf" in t.find("summary", block).text, t.find("summary", block).text
        table = count_table(block)
        for row, added in {"Allergies": 2, "Results": 8, "Vital signs": 8, "Immunizations": 5, "All": 42}.items():
            assert table.get(row, {}).get("added") == added, f"{row}: {table.get(row)} in {table}"
        eve = block.get_attribute("data-patient")

        # Eve on the timeline, in the decade her document ends in: Decade, then Ends on 2013-12-31.
        t.click(t.find(f'#upload-list .upload-patient[data-patient="{eve}"] button.show-patient'))
        wait_until(lambda: not dialog.is_displayed(), message="the panel to close")
        t.wait_rendered("#/all", "Eve Betterhalf", timeout=15)
        t.click(t.find('.view-button[data-view="decade"]'))
        t.wait_rendered("#/decade", "Eve Betterhalf")
        t.js("arguments[0].value = '2013-12-31'; arguments[0].dispatchEvent(new Event('change'))", t.find("#end-date"))
        t.wait_rendered("#/decade/2013-12-31", "Eve Betterhalf")
        assert "Dec 31, 2013" in t.text("#window-label"), t.text("#window-label")
        # The penicillin allergy (1998, still active) is drawn across the window and listed as ongoing.
        allergies = t.lane_labels("allergy")
        assert any(label.startswith("Penicillin,") for label in allergies), allergies
        assert "Penicillin" in t.text('.entry-group[data-type="ongoing"]'), t.text('.entry-group[data-type="ongoing"]')
        # Hemoglobin 13.2 g/dL (2008) among the results, in words.
        results = t.find('.entry-group[data-type="result"]')
        if results.get_attribute("open") is None:
            t.click(t.find("summary", results))
        rows = wait_until(lambda: [r for r in t.find_all(".entry-row", results) if t.find(".desc-text", r).text == "Hemoglobin"], message="the Hemoglobin row")
        assert t.find(".value", rows[0]).text == "13.2 g/dL" and "Mar 19, 2008" in rows[0].text, rows[0].text
        # Vital signs: a chart for body height (177 cm in 2011 and 2012) and blood pressure as one.
        height = t.find('#vitals .chart[data-title="Body height"]')
        assert t.find(".latest .value", height).text == "177" and "cm" in height.text, height.text
        assert "Blood pressure" in [c.get_attribute("data-title") for c in t.find_all("#vitals .chart")]

        # Documents: the CCD, each section as text, closed until opened.
        api = t.daemon.api(f"/patients/{eve}/documents.json")["documents"]
        dialog = open_documents(t)
        assert t.text("#documents-title") == "Documents"
        assert "imported for Eve Betterhalf" in t.text("#documents-intro"), t.text("#documents-intro")
        cards = document_cards(t)
        assert len(cards) == 1, [c.text for c in cards]
        card = cards[0]
        assert t.find("h3", card).text == "Patient Chart Summary"
        head = t.find(".document-head", card).text
        assert "Dated Aug 15, 2013" in head and "C-CDA" in head and "15 sections" in head, head
        titles = [t.find(".section-title", s).text for s in t.find_all(".document-section", card)]
        assert titles == [s["title"] for s in api[0]["sections"]], titles
        assert all(s.get_attribute("open") is None for s in t.find_all(".document-section", card)), "sections start closed"
        family = document_section(t, card, "FAMILY HISTORY")
        assert "narrative only" in t.find("summary", family).text, t.find("summary", family).text
        for title in ("ADVANCE DIRECTIVES", "INSURANCE PROVIDERS"):
            assert "narrative only" in t.find("summary", document_section(t, card, title)).text, title
        functional = t.find("summary", document_section(t, card, "FUNCTIONAL STATUS")).text
        assert "narrative only" not in functional and "2 entries on the timeline" in functional, functional
        allergy = t.find("summary", document_section(t, card, "ALLERGIES AND ADVERSE REACTIONS")).text
        assert "narrative only" not in allergy and "2 entries on the timeline" in allergy, allergy
        # Opened from the keyboard: the text, line by line, as text.
        summary = t.find("summary", family)
        t.js("arguments[0].focus()", summary)
        summary.send_keys(Keys.ENTER)
        wait_until(lambda: family.get_attribute("open") is not None, message="FAMILY HISTORY to open")
        text = t.find(".section-text", family)
        assert "Myocardial Infarction (cause of death) | 57" in text.text, text.text
        assert "LOINC 10157-6" in t.find(".document-section-body", family).text
        assert t.js("return arguments[0].childElementCount", text) == 0, "the text container holds text only"
        assert t.js("return getComputedStyle(arguments[0]).whiteSpace", text) == "pre-wrap"

        def shoot_documents(look):
            if not t.find("#documents").is_displayed():
                open_documents(t)
            if look.startswith("phone"):
                width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", t.find("#documents"))
                assert width[0] <= width[1] + 1, f"Documents scrolls sideways on a phone: {width}"
            t.js("arguments[0].scrollTop = 0", t.find("#documents"))
            t.screenshot(f"documents-{look}", full=False)
            t.js("arguments[0].scrollIntoView({block: 'start'})", family)
            t.screenshot(f"documents-family-history-{look}", full=False)
        each_look(t, shoot_documents)
        close_documents(t)
        assert t.driver.switch_to.active_element.get_attribute("id") == "documents-button", "focus returns to Documents"
        try:  # the button beside People, on a phone
            t.browser.viewport(390, 844)
            t.js("window.scrollTo(0, 0)")
            time.sleep(0.3)
            t.screenshot("documents-button-phone-light", full=False)
        finally:
            t.browser.viewport(1280, 900)

        # A second document for Eve, older, whose narrative holds markup: Documents has it after the upload.
        markup = t.daemon.work / "markup-in-narrative.xml"
        markup.write_text(MARKUP_DOCUMENT)
        open_add_records(t)
        assert "Eve Betterhalf" in t.text("#upload-into-field"), t.text("#upload-into-field")
        state, text = upload_in_panel(t, markup, into=True)
        assert state == "done" and "1 person updated" in text, text
        ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()
        wait_until(lambda: not t.find("#upload").is_displayed(), message="the panel to close")
        api = t.daemon.api(f"/patients/{eve}/documents.json")["documents"]
        assert [d["title"] for d in api] == ["Patient Chart Summary", "Clinic note with markup in its text"], [d["title"] for d in api]
        open_documents(t)
        wait_until(lambda: len(document_cards(t)) == 2, message="both documents, without a reload")
        assert [t.find("h3", c).text for c in document_cards(t)] == ["Patient Chart Summary", "Clinic note with markup in its text"], "newest first"
        note = document_cards(t)[1]
        assert "Dated Mar 1, 2010" in t.find(".document-head", note).text, t.find(".document-head", note).text
        assessment = document_section(t, note, "ASSESSMENT")
        t.click(t.find("summary", assessment))
        text = t.find(".section-text", assessment)
        shown = text.get_attribute("textContent")
        assert shown == api[1]["sections"][0]["text"], f"{shown!r} is not the daemon's {api[1]['sections'][0]['text']!r}"
        for words in ["Glucose <100 mg/dL and A1c < 6%: no diabetes.", '<img src=x onerror="window.__pwned = 1">', "<b>not bold</b>",
                      "<script>window.__pwned = 2</script>", "LDL | <130 mg/dL"]:
            assert words in shown and words in text.text, f"{words!r} shown as text: {text.text!r}"
        assert t.js("return arguments[0].childElementCount", text) == 0, t.js("return arguments[0].innerHTML", text)
        assert not t.find_all("#documents-list img, #documents-list script, #documents-list b"), "no element of the document"
        assert t.js("return window.__pwned === undefined"), "nothing of the document ran"
        t.js("arguments[0].scrollIntoView({block: 'start'})", assessment)
        t.screenshot("documents-markup-desktop-light", full=False)
        close_documents(t)

        # Another person without documents: the button goes.
        Select(t.find("#patient-select")).select_by_value(t.henry)
        t.wait_rendered("#/decade/2013-12-31", t.henry)
        wait_until(lambda: not t.find("#documents-button").is_displayed(), message="no Documents button for Henry")
    finally:
        _, after = t.daemon.request("GET", "/patients.json")
        for patient in after["patients"]:
            if patient["id"] not in known and patient["name"] == "Eve Betterhalf":
                t.daemon.request("DELETE", f"/patients/{patient['id']}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})


# ---- Search: the header's field, the results panel, a result followed to where the app shows it ----

# Henry's record holds one Troponin result (Aug 18, 2010); the search finds it by its name, by a prefix,
# and nothing else in his record has the word.
TROPONIN_DAY = "2010-08-18"


def search_for(t, text):
    """Types `text` into the header's search field and presses Enter; returns the results panel once the
    daemon's answer is shown (a count, "No results…" or an error)."""
    field = t.find("#search-input")
    t.js("arguments[0].focus(); arguments[0].select()", field)
    field.send_keys(Keys.BACKSPACE)
    field.send_keys(text, Keys.ENTER)
    panel = t.find("#search-panel")
    wait_until(lambda: panel.is_displayed() and panel.get_attribute("aria-busy") is None
               and t.text("#search-status") and not t.text("#search-status").startswith("Searching"),
               message=f"the results for {text!r}")
    return panel


def search_results(t):
    return t.find_all("#search-results .search-result")


def close_search(t):
    ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()
    wait_until(lambda: not t.find("#search-panel").is_displayed(), message="Escape to close the results")


def window_holds(t, hash_, date, entry_id=None, key=None):
    """Whether the window of this address (#/view/end) holds the date (and the entry, in its array)."""
    parts = hash_.lstrip("#/").split("/")
    query = f"page={parts[0]}" + (f"&end={parts[1]}" if len(parts) > 1 else "") + f"&patient={t.henry}"
    payload = t.daemon.api(f"/timeline.json?{query}")
    inside = payload["start_date"] <= date <= payload["end_date"]
    if entry_id and key:
        inside = inside and entry_id in [e["id"] for e in payload.get(key) or []]
    return inside


def test_search_typed_and_followed_to_the_entry(t):
    """A word typed in the header's search field and Enter: the panel counts the results and marks the
    word in each snippet; the first result, followed with the keyboard, moves the window to the entry's
    date and opens its details. A prefix finds the same entry; a stray quote and an operator break
    nothing; a query with nothing to search for is answered with the daemon's reason, in the panel."""
    api = t.daemon.api(f"/search.json?q=troponin&patient={t.henry}")
    assert api["total"] == 1 and api["results"][0]["title"] == "Troponin", api
    troponin = api["results"][0]
    t.open("#/year/2012-06-01", t.henry)  # a window without the result: following it moves the window
    assert not window_holds(t, "#/year/2012-06-01", troponin["date"])
    field = t.find("#search-input")
    assert field.get_attribute("type") == "search" and field.get_attribute("placeholder") == "Search this record"
    assert t.find('label[for="search-input"]').get_attribute("textContent") == "Search this record"
    assert t.find("#search-form").get_attribute("role") == "search"

    panel = search_for(t, "Troponin")
    assert t.text("#search-status") == "1 result for Troponin", t.text("#search-status")
    results = search_results(t)
    assert len(results) == 1, [r.text for r in results]
    result = results[0]
    assert result.tag_name == "button" and result.get_attribute("data-id") == troponin["id"]
    assert t.find(".search-title", result).text == "Troponin"
    assert t.find(".search-type", result).text == "result"
    assert t.find(".search-date", result).text == "Aug 18, 2010", t.find(".search-date", result).text
    assert result.get_attribute("aria-label") == "Troponin, result, Aug 18, 2010", result.get_attribute("aria-label")
    marks = [m.text for m in t.find_all(".search-snippet mark", result)]
    assert marks and all(m.lower() == "troponin" for m in marks), marks
    assert result.get_attribute("aria-describedby") == t.find(".search-snippet", result).get_attribute("id")
    assert t.driver.switch_to.active_element.get_attribute("aria-label") == "Close Search", "the focus is in the panel"

    # The keyboard: Tab from the panel's close button to the result, Enter to follow it.
    t.driver.switch_to.active_element.send_keys(Keys.TAB)
    assert t.driver.switch_to.active_element == result, "Tab reaches the first result"
    t.screenshot("search-troponin-desktop-light", full=False)
    result.send_keys(Keys.ENTER)
    wait_until(lambda: not panel.is_displayed(), message="the panel to close")
    t.wait_rendered(f"#/year/{TROPONIN_DAY}", t.henry)
    assert window_holds(t, f"#/year/{TROPONIN_DAY}", troponin["date"], troponin["id"], "results"), "the window holds the entry"
    assert t.find("#end-date").get_attribute("value") == TROPONIN_DAY, "Ends on says so"
    dialog = t.find("#details")
    wait_until(lambda: dialog.is_displayed() and t.text("#details-title") == "Troponin", message="the entry's details")
    body = t.text("#details-body")
    for expected in ["Result", "Date", "Aug 18, 2010", "SNOMED-CT", "261650005", "Your note"]:
        assert expected in body, f"{expected!r} in the details: {body}"
    t.screenshot("search-followed-details-desktop-light", full=False)
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), message="Escape to close the details")
    focused = t.driver.switch_to.active_element
    assert focused.tag_name != "body" and t.js("return document.getElementById('main').contains(arguments[0])", focused), \
        "the focus lands on the timeline, not lost"

    # A prefix (4 and 5 letters) finds the same entry.
    for prefix in ("trop", "tropo"):
        search_for(t, prefix)
        assert t.text("#search-status") == f"1 result for {prefix}", t.text("#search-status")
        found = search_results(t)
        assert [r.get_attribute("data-id") for r in found] == [troponin["id"]], [r.text for r in found]
        assert t.find(".search-snippet mark", found[0]).text.lower().startswith(prefix)
        close_search(t)
        assert t.driver.switch_to.active_element.get_attribute("id") == "search-input", "Escape returns to the search field"

    # A stray quote and an operator: results or a clear message, never a broken panel. (A lone quote has
    # no words: the daemon's 400, in the panel.)
    t.allowed_console = ["the server responded with a status of 400"]
    for query in ['"troponin OR', 'troponin AND (', '"', 'NEAR/2 "heart']:
        search_for(t, query)
        status = t.text("#search-status")
        count = len(search_results(t))
        assert (count and status.endswith(f"for {query}")) or status.startswith("No results for") or \
            "error" in t.find("#search-status").get_attribute("class"), f"{query!r}: {status!r} with {count} results"
        close_search(t)

    # Nothing to search for: the daemon's 400 said in the panel (no alert), and the app goes on.
    search_for(t, "!!! ???")
    status = t.find("#search-status")
    assert "error" in status.get_attribute("class") and "no words to search for" in status.text, status.text
    assert not search_results(t)
    close_search(t)
    # An empty field searches nothing and leaves the focus there.
    t.find("#search-input").clear()
    t.find("#search-input").send_keys(Keys.ENTER)
    assert not t.find("#search-panel").is_displayed()
    assert t.driver.switch_to.active_element.get_attribute("id") == "search-input"


def test_search_pages_vital_signs_notes_and_document_sections(t):
    """More results loads the next page; a vital sign reading opens its reading (its chart marked behind);
    a note of yours moves the window to its day and opens it; a document's section opens in Documents."""
    post = None
    eve = None
    known = {p["id"] for p in t.daemon.api("/patients.json")["patients"]}
    try:
        # Paging: Henry has 21 triglyceride results, 20 a page.
        t.open("#/year/2012-06-01", t.henry)
        search_for(t, "triglycerides")
        assert t.text("#search-status") == "21 results for triglycerides", t.text("#search-status")
        assert len(search_results(t)) == 20
        assert t.text("#search-shown") == "Showing 20 of 21."
        t.js("arguments[0].scrollTop = arguments[0].scrollHeight", t.find("#search-panel"))
        t.screenshot("search-first-page-desktop-light", full=False)
        more = t.find("#search-more")
        assert more.is_displayed() and more.text == "More results"
        t.js("arguments[0].focus()", more)
        more.send_keys(Keys.ENTER)
        wait_until(lambda: len(search_results(t)) == 21, message="the second page")
        assert t.driver.switch_to.active_element == search_results(t)[20], "the focus goes to the first new result"
        assert not t.find("#search-more").is_displayed() and not t.find("#search-foot").is_displayed()
        ids = [r.get_attribute("data-id") for r in search_results(t)]
        assert len(set(ids)) == 21, "no result twice"
        close_search(t)

        # A vital sign: its reading, with the chart it is drawn in (from a window after Henry's record).
        t.open("#/year/2020-01-01", t.henry)
        oxygen = t.daemon.api(f"/search.json?q=oxygen&patient={t.henry}")["results"][0]
        assert oxygen["type"] == "vital_sign", oxygen
        search_for(t, "oxygen")
        first = search_results(t)[0]
        assert first.get_attribute("data-id") == oxygen["id"] and t.find(".search-type", first).text == "vital sign"
        t.js("arguments[0].focus()", first)
        first.send_keys(Keys.ENTER)
        day = time.strftime("%Y-%m-%d", time.gmtime(oxygen["date"]))
        t.wait_rendered(f"#/year/{day}", t.henry)
        wait_until(lambda: t.find("#details").is_displayed() and t.text("#details-title") == "Oxygen Saturation", message="the reading's details")
        body = t.text("#details-body")
        assert "Vital sign" in body and "Value" in body and "Oxygen Saturation" in body and "Your note" not in body, body
        chart = t.find('#vitals .chart[data-title="Oxygen Saturation"]')
        assert "found" in chart.get_attribute("class"), "the chart is marked"
        t.screenshot("search-vital-sign-desktop-light", full=False)
        t.click([b for b in t.find_all("#details button") if b.text == "Show the chart"][0])
        wait_until(lambda: not t.find("#details").is_displayed(), message="the details to close")
        assert t.driver.switch_to.active_element == chart, "the focus goes to the chart"

        # A note of yours (posted now): the window moves to today's and the note opens.
        status, post = t.daemon.request("POST", "/timeline.json?key=medication", {"description": "Quillwort tincture 5 ml", "dose": "5 ml"})
        assert status == 201, post
        search_for(t, "quillwort")
        found = search_results(t)
        assert len(found) == 1 and found[0].get_attribute("data-kind") == "post", [r.text for r in found]
        assert t.find(".search-type", found[0]).text == "your medication"
        t.click(found[0])
        t.wait_rendered("#/year", t.henry)
        wait_until(lambda: t.find("#details").is_displayed() and t.text("#details-title") == "Medication added", message="the note's details")
        assert "Recorded by you" in t.text("#details-body") and "Quillwort tincture 5 ml" in t.text("#details-body")
        assert "found" in t.find(f'#posts .post[data-id="{post["id"]}"]').get_attribute("class"), "the note is marked in Your notes"
        close_details(t)

        # A document's section: Documents opens on it. Eve's small clinic note, imported for the test.
        path = t.daemon.work / "search-note.xml"
        path.write_text(MARKUP_DOCUMENT)
        status, raw = t.daemon.http("POST", f"/imports/files?name={path.name}", path.read_bytes(), content_type="application/xml")
        assert status == 202, (status, raw[:300])
        job = json.loads(raw)["job"]["id"]
        report = wait_until(lambda: (lambda d: d["job"]["state"] == "done" and d)(t.daemon.api(f"/imports/jobs/{job}")),
                            interval=0.1, message="the document's import")["report"]
        eve = report["patients"][0]["id"]
        t.daemon.request("POST", "/patients/current", {"id": eve})
        t.open("#/year", "Eve Betterhalf")
        panel = search_for(t, "glucose")
        found = search_results(t)
        assert len(found) == 1 and found[0].get_attribute("data-kind") == "section", [r.text for r in found]
        assert t.find(".search-type", found[0]).text == "document section"
        assert t.find(".search-title", found[0]).text.startswith("ASSESSMENT"), t.find(".search-title", found[0]).text
        assert t.find(".search-date", found[0]).text == "Mar 1, 2010"
        t.js("arguments[0].focus()", found[0])
        found[0].send_keys(Keys.ENTER)
        wait_until(lambda: not panel.is_displayed() and t.find("#documents").is_displayed(), message="Documents")
        section = document_section(t, document_cards(t)[0], "ASSESSMENT")
        assert section.get_attribute("open") is not None, "the section is open"
        assert "found" in section.get_attribute("class")
        assert t.driver.switch_to.active_element == t.find("summary", section), "the section has the focus"
        assert "Glucose <100 mg/dL" in t.find(".section-text", section).text
        visible = t.js("""const r = arguments[0].getBoundingClientRect(), d = arguments[1].getBoundingClientRect();
                          return r.top >= d.top && r.top < d.bottom;""", section, t.find("#documents"))
        assert visible, "the section is scrolled into view"
        t.screenshot("search-document-section-desktop-light", full=False)
        close_documents(t)
        assert t.driver.switch_to.active_element.get_attribute("id") == "search-input", "back to the search field"
    finally:
        if post and post.get("id"):
            t.daemon.request("DELETE", f"/timeline/entries/{post['id']}")
        for patient in t.daemon.api("/patients.json")["patients"]:
            if patient["id"] not in known:
                t.daemon.request("DELETE", f"/patients/{patient['id']}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})


def test_search_marks_are_text(t):
    """A note holding markup, found by a search: the snippet shows the markup as text, the matched word
    in a <mark>, and no element of the note reaches the page. Screenshots of the results at a desktop
    and a phone width, light and dark."""
    note = "Called the lab: <img src=x onerror=alert(1)> was in the report, quillback"
    troponin = t.daemon.api(f"/search.json?q=troponin&patient={t.henry}")["results"][0]["id"]
    status, _ = t.daemon.request("PUT", f"/patients/{t.henry}/entries/{troponin}/annotation", {"note": note})
    assert status == 200, status
    try:
        t.open("#/year/2012-06-01", t.henry)
        search_for(t, "onerror")
        found = search_results(t)
        assert len(found) == 1 and found[0].get_attribute("data-id") == troponin, [r.text for r in found]
        snippet = t.find(".search-snippet", found[0])
        assert "<img src=x onerror=alert(1)>" in snippet.text, snippet.text
        assert [m.text for m in t.find_all("mark", snippet)] == ["onerror"], snippet.get_attribute("innerHTML")
        assert not t.find_all("#search-panel img, #search-panel script"), "no element of the note"
        assert t.js("return [...arguments[0].children].every((e) => e.tagName === 'MARK' && e.childElementCount === 0)", snippet), \
            snippet.get_attribute("innerHTML")

        def shoot(look):
            if not t.find("#search-panel").is_displayed():
                search_for(t, "onerror")
            if look.startswith("phone"):
                width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", t.find("#search-panel"))
                assert width[0] <= width[1] + 1, f"the results scroll sideways on a phone: {width}"
            t.screenshot(f"search-markup-{look}", full=False)
        each_look(t, shoot)
        close_search(t)

        # The header and a page of results at each look; on a phone the field has a row of its own, shared only
        # with the health library's button (an icon) when a library is installed.
        def shoot_results(look):
            t.js("window.scrollTo(0, 0)")
            if look.startswith("phone"):
                form = t.find("#search-form").rect
                header = t.find(".topbar").rect
                library = t.find("#library-button")
                beside = library.rect["width"] + 8 if library.is_displayed() else 0
                if beside:
                    assert abs(library.rect["y"] - form["y"]) < 8, f"the Library button is on the search's row: {library.rect} {form}"
                assert form["width"] + beside >= header["width"] - 40, f"the search field spans the phone's width: {form} in {header}"
            t.screenshot(f"search-header-{look}", full=False)
            search_for(t, "heart")
            t.screenshot(f"search-results-{look}", full=False)
            close_search(t)
        each_look(t, shoot_results)
        # Followed, the note is in the entry's details as the person wrote it, as text.
        search_for(t, "quillback")
        t.click(search_results(t)[0])
        wait_until(lambda: t.find("#details").is_displayed() and t.text("#details-title") == "Troponin", message="the details")
        wait_until(lambda: t.find("#annotation-note").get_attribute("value") == note, message="the note in the form")
        assert not t.find_all("#details img")
        close_details(t)
    finally:
        t.daemon.request("DELETE", f"/patients/{t.henry}/entries/{troponin}/annotation")


def test_import_panel_is_calm_without_sources(t):
    t.open("#/decade/2011-01-01", t.henry)
    panel = wait_until(lambda: t.find("#imports").text, message="the import panel")
    status, data = t.daemon.request("GET", "/imports.json")
    rhex = [source for source in (data or {}).get("sources", []) if source.get("kind") != "file"]
    if status == 404 or not rhex:
        assert "No record servers are connected" in panel, panel
        assert "Connect a server" in panel and "hreaderd source add NAME --url" in panel, panel
        assert not t.find("#sync-now").is_displayed(), "no Sync now without a source"
    else:
        for source in rhex:
            assert source["name"] in panel


def test_import_panel_with_a_real_source_that_fails(t):
    """A real RHEx source whose server is down: Sync now starts a job, and its error is shown."""
    status, _ = t.daemon.request("GET", "/imports.json")
    if status == 404 or not t.daemon.supports("source", "add"):
        raise Skip("this build has no RHEx sources yet (no GET /imports.json or hreaderd source add)")
    secret = t.daemon.work / "client-secret"
    secret.write_text("secret\n")
    down = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    t.daemon.cli("source", "add", "clinic", "--url", down, "--client-id", "hreader", "--client-secret-file", str(secret),
                 "--username", "henry", "--user-password-file", str(secret), "--patients", "all")
    try:
        t.open("#/decade/2011-01-01", t.henry)
        source = wait_until(lambda: t.find_all('#imports .source[data-source="clinic"]'), message="the source in the panel")[0]
        assert "Not synced yet" in source.text or "refused" in source.text, source.text
        assert not t.find_all('#imports .source[data-source="files"]')
        sync = t.find("#sync-now")
        assert sync.is_displayed()
        t.click(sync)
        wait_until(lambda: sync.text == "Sync now" and sync.is_enabled(), message="the sync request to be answered")
        assert "Could not start" not in t.find("#imports").text, t.find("#imports").text

        def job_error():
            _, data = t.daemon.request("GET", "/imports.json")
            jobs = [j for j in data["jobs"] if j["source"] == "clinic"]
            return jobs and jobs[0]["last_error"] and jobs[0]
        job = wait_until(job_error, timeout=30, interval=0.5, message="the job to fail against a server that is down")
        wait_until(lambda: job["last_error"][:40] in t.find('#imports .source[data-source="clinic"]').text, timeout=15,
                   message=f"the panel to show {job['last_error']!r}")
        t.js("document.getElementById('imports').scrollIntoView()")
        t.screenshot("imports-real-source-desktop-light", full=False)
    finally:
        t.daemon.cli("source", "remove", "clinic")


def test_sync_now_imports_from_a_real_rhex_server(t):
    """End to end: two RHEx servers (the project's sandbox), one that works and one that refuses the
    sign-in. Sync now imports a family from the first (the picker gains them) and marks the second."""
    sandbox_bin = t.daemon.tool("rhex-sandbox")
    status, _ = t.daemon.request("GET", "/imports.json")
    if status == 404 or not sandbox_bin.exists() or not t.daemon.supports("source", "add"):
        raise Skip(f"no RHEx sandbox in this build ({sandbox_bin}) or no import routes")
    secret = t.daemon.work / "sandbox-secret"
    secret.write_text("sandbox-client-secret\n")
    password = t.daemon.work / "sandbox-user-password"
    password.write_text("pw\n")
    good = Sandbox(sandbox_bin, "--synthetic", "99", "--entries", "40", "--user", "henry:pw", "--fault", "delay=0.3@recordsx10")
    refusing = Sandbox(sandbox_bin, "--synthetic", "98", "--entries", "10", "--user", "henry:pw", "--fault", "invalid-grant@token,always")
    _, people = t.daemon.request("GET", "/patients.json")
    count_before = len(people["patients"])
    try:
        for name, server in (("family-clinic", good), ("old-portal", refusing)):
            t.daemon.cli("source", "add", name, "--url", server.url, "--client-id", "hreaderd", "--client-secret-file", str(secret),
                         "--username", "henry", "--user-password-file", str(password), "--sync-interval", "0", "--patients", "all")
        t.open("#/decade/2011-01-01", t.henry)
        wait_until(lambda: len(t.find_all("#imports .source")) == 2, message="both sources in the panel")
        before = len(t.find_all("#patient-select option"))
        t.click(t.find("#sync-now"))

        def finished():
            _, data = t.daemon.request("GET", "/imports.json")
            states = {j["source"]: j["state"] for j in reversed(data["jobs"])}  # the newest last
            return states.get("family-clinic") == "done" and states.get("old-portal") in ("needs_sign_in", "failed") and states
        states = wait_until(finished, timeout=45, interval=0.5, message="both syncs to finish")
        clinic = lambda: t.find('#imports .source[data-source="family-clinic"]').text  # noqa: E731
        wait_until(lambda: "Last import finished" in clinic() and "new people" in clinic(), timeout=15, message="the finished import in the panel")
        assert "Up to date" in clinic(), clinic()
        portal = t.find('#imports .source[data-source="old-portal"]').text
        if states["old-portal"] == "needs_sign_in":
            assert "Needs sign-in" in portal and "--update" in portal, portal
        # The family arrived: the picker lists them without a reload.
        wait_until(lambda: len(t.find_all("#patient-select option")) > before, timeout=15, message="the new people in the picker")
        t.js("document.getElementById('imports-heading').scrollIntoView()")
        t.screenshot("imports-synced-desktop-light", full=False)
        print(f"  sync: {states}; picker {before} -> {len(t.find_all('#patient-select option'))} people")
    finally:
        good.stop()
        refusing.stop()
        for name in ("family-clinic", "old-portal"):
            t.daemon.cli("source", "remove", name, "--delete-patients")
    _, people = t.daemon.request("GET", "/patients.json")
    assert len(people["patients"]) == count_before, "removing the sources with --delete-patients took their people away"
    t.daemon.request("POST", "/patients/current", {"id": t.henry})


# ---- A FHIR server connected from the app (SMART App Launch) ----

# The timeline's lanes and the arrays of GET /timeline.json that hold them.
LANE_KEYS = {"condition": "conditions", "medication": "medications", "encounter": "encounters", "procedure": "procedures",
             "result": "results", "immunization": "immunizations", "allergy": "allergies", "social_history": "social_history",
             "care_goal": "care_goals", "medical_equipment": "medical_equipment"}


def retype(field, text):
    """Replaces a field's text the way a person does (select all, type), so that the page hears each change."""
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.DELETE)
    if text:
        field.send_keys(text)


def open_fhir_form(t):
    """Connect a server (in the Imports card): Add records opens at the FHIR form, the address field focused."""
    t.click(t.find("#connect-server"))
    dialog = t.find("#upload")
    wait_until(lambda: dialog.is_displayed() and t.find("#fhir-url").is_displayed(), message="the FHIR form in Add records")
    assert t.find("#fhir-connect").get_attribute("open") is not None
    assert t.find("#fhir-connect summary").text == "Connect a health record server (FHIR)"
    assert t.driver.switch_to.active_element.get_attribute("id") == "fhir-url", "the address field has the focus"
    return dialog


def fhir_source_item(t, root, name):
    found = t.find_all(f'{root} .source[data-source="{name}"]')
    return found[0] if found else None


def sandbox_sign_in(t, fhir, patient_label, password="sandbox-password"):
    """On the sandbox's own sign-in page: the patient chosen, the password typed, "Sign in and allow" pressed."""
    wait_until(lambda: t.driver.current_url.startswith(fhir.origin + "/authorize?"), timeout=15,
               message=f"the sandbox's sign-in page (now {t.driver.current_url})")
    wait_until(lambda: t.find_all("button"), message="the sign-in form")
    assert t.driver.title == "Sign in – FHIR sandbox", t.driver.title
    assert t.text("h1") == "FHIR sandbox" and "An app asks to read a patient's record." in t.text("main"), t.text("main")
    assert t.find('input[name="username"]').get_attribute("value") == "family"
    Select(t.find('select[name="patient"]')).select_by_visible_text(patient_label)
    t.find('input[name="password"]').send_keys(password)
    allow = [b for b in t.find_all("button") if b.text == "Sign in and allow"]
    assert len(allow) == 1, [b.text for b in t.find_all("button")]
    return allow[0]


def test_fhir_source_connected_in_the_browser(t):
    """End to end with a real FHIR server (the project's fhir-sandbox serving Daisey Johns's bundle): the form in
    Add records begins the sign-in (POST /sources), the browser goes to the sandbox's own sign-in page, where the
    person chooses the patient, types the password and allows; the sandbox sends the browser back through the
    daemon's /sources/callback to the app, which opens at the servers and follows the first import to its end;
    Daisey's whole record then shows what the daemon holds. Also: an address where no server answers is said
    under the form; a client id the server does not know gives the server's own page, not a blank one; an unknown
    sign-in is refused with the daemon's words; a refused refresh is mended with Sign in again."""
    bundle = fhir_sample(DAISEY)
    sandbox_bin = t.daemon.tool("fhir-sandbox")
    if not sandbox_bin.exists():
        raise Skip(f"no FHIR sandbox in this build ({sandbox_bin}; swift build --product fhir-sandbox)")
    status, _ = t.daemon.request("POST", "/sources", {})
    if status in (404, 405):
        raise Skip("this build has no POST /sources (FHIR sources from the web app)")
    t.allowed_console = [
        "/sources - Failed to load resource: the server responded with a status of 502",  # no server at that address
        "/authorize?",  # the sandbox's page for a client it does not know (400)
        "/sources/callback?",  # an unknown sign-in (400)
        "/favicon.ico - Failed to load resource",  # the browser's own ask, beside the callback's JSON answer
        "Failed to load resource: the server responded with a status of 401",  # back with no session
    ]
    _, before = t.daemon.request("GET", "/patients.json")
    before_ids = {p["id"] for p in before["patients"]}
    daisey_before = [p["id"] for p in before["patients"] if p["name"] == "Daisey Johns"]
    fhir = FHIRSandbox(sandbox_bin, "--data", bundle, log_path=t.daemon.work / "fhir-sandbox.log")
    name = f"fhir-{fhir.port}"
    app_window = t.base + "#/decade/2011-01-01"
    try:
        t.open("#/decade/2011-01-01", t.henry)
        dialog = open_fhir_form(t)
        url, name_field, client = t.find("#fhir-url"), t.find("#fhir-name"), t.find("#fhir-client-id")
        assert "registers hreaderd" in t.text("#fhir-client-id-hint"), t.text("#fhir-client-id-hint")
        # The name follows the address until the person types one: the part of the host that says whose it is.
        url.send_keys("https://fhir.springfield-clinic.example/r4")
        assert name_field.get_attribute("value") == "springfield-clinic", name_field.get_attribute("value")

        # Nothing answers at this address: the daemon's words, under the form; the window stays here.
        down = free_port()
        retype(url, f"http://127.0.0.1:{down}/fhir")
        assert name_field.get_attribute("value") == f"fhir-{down}", name_field.get_attribute("value")
        client.send_keys("hreaderd-fhir")
        client.send_keys(Keys.ENTER)
        error = wait_until(lambda: t.text("#fhir-form .form-error"), timeout=20, message="the error under the form")
        assert error.startswith("Could not connect: ") and "cannot reach" in error and str(down) in error, error
        assert t.driver.current_url == app_window and dialog.is_displayed()
        t.screenshot("fhir-connect-error-desktop-light", full=False)

        # A client id the server does not know: the browser is on the server's page, which says so.
        retype(url, fhir.base_url)
        assert name_field.get_attribute("value") == name, name_field.get_attribute("value")
        retype(client, "not-registered")
        t.click(t.find("#fhir-form button[type=submit]"))
        wait_until(lambda: t.driver.current_url.startswith(fhir.origin + "/authorize?"), timeout=15, message="the sandbox's page")
        wait_until(lambda: t.find_all("h1"), message="the sandbox's page to be drawn")
        assert t.driver.title == "Unknown client – FHIR sandbox", t.driver.title
        assert "This server knows no client not-registered." in t.text("main"), t.text("main")
        t.screenshot("fhir-sandbox-unknown-client", full=False)
        t.driver.back()
        wait_until(lambda: t.driver.current_url == app_window and t.on_app(), timeout=15, message="the app again after Back")
        t.wait_rendered("#/decade/2011-01-01", t.henry)

        # The real sign-in, from the form as Back left it (the page kept in the browser's back-forward cache:
        # still open, usable again) or opened anew.
        if dialog_shown(t) and t.find("#fhir-url").is_displayed():
            assert t.find("#fhir-form button[type=submit]").is_enabled(), "the form is usable again after Back"
            assert not t.text("#fhir-form .form-note"), t.text("#fhir-form .form-note")
        else:
            open_fhir_form(t)
        url, name_field, client = t.find("#fhir-url"), t.find("#fhir-name"), t.find("#fhir-client-id")
        retype(url, fhir.base_url)
        retype(client, "hreaderd-fhir")
        assert name_field.get_attribute("value") == name
        t.screenshot("fhir-connect-form-desktop-light", full=False)
        # The line said before the window goes: kept where the test can read it after the trip.
        t.js("""window.addEventListener('beforeunload', () => sessionStorage.setItem('test.connectNote',
                  document.querySelector('#fhir-form .form-note').textContent));""")
        client.send_keys(Keys.ENTER)
        allow = sandbox_sign_in(t, fhir, "Daisey Johns (born 2015-04-04)")
        query = fhir.stats()["lastAuthorizeQuery"]
        assert query["client_id"] == "hreaderd-fhir" and query["code_challenge_method"] == "S256", query
        assert query["redirect_uri"] == t.daemon.origin + "/sources/callback", query
        assert query["aud"] == fhir.base_url, query
        t.screenshot("fhir-sandbox-sign-in", full=False)
        t.click(allow)

        # Back in the app, in the window the person left, with Add records open at the servers.
        wait_until(lambda: t.driver.current_url == app_window and t.on_app(), timeout=20,
                   message=f"the app after the sign-in (now {t.driver.current_url})")
        wait_until(lambda: dialog_shown(t), message="Add records, open at the servers")
        assert t.driver.switch_to.active_element.get_attribute("id") == "servers-heading", "the servers' heading has the focus"
        assert t.js("return sessionStorage.getItem('test.connectNote')") == "Opening your provider’s sign-in page…"
        wait_until(lambda: fhir_source_item(t, "#servers-list", name), timeout=10, message="the new server in the list")
        assert t.text("#servers-note") == f"You are signed in at {name}. Its first import is followed below.", t.text("#servers-note")

        def job_done():
            _, data = t.daemon.request("GET", "/imports.json")
            jobs = [j for j in data["jobs"] if j["source"] == name]
            return jobs and jobs[0]["state"] not in ("queued", "running") and (jobs[0], data)
        job, imports = wait_until(job_done, timeout=60, interval=0.3, message="the first import from the sandbox")
        assert job["state"] == "done", job
        source = next(s for s in imports["sources"] if s["name"] == name)
        assert source["kind"] == "fhir" and source["state"] == "ok" and source["signed_in"], source
        assert source["url"] == fhir.base_url and source["client_id"] == "hreaderd-fhir", source
        item = lambda: fhir_source_item(t, "#servers-list", name).text  # noqa: E731
        wait_until(lambda: "Last import finished" in item(), timeout=15, message="the finished import in the list")
        text = item()
        assert "FHIR" in text and "Up to date" in text and fhir.base_url in text and "Last synced" in text, text
        if daisey_before:  # Daisey came from a file earlier in the run: the server's record updates her
            assert job["patients"]["updated"] == 1 and "1 updated" in text, (job, text)
        else:
            assert job["patients"]["added"] == 1 and "1 new person" in text and "252 new entries" in text, (job, text)
        assert "arrived" in fhir_source_item(t, "#servers-list", name).get_attribute("class")
        t.js("document.getElementById('servers').scrollIntoView()")
        t.screenshot("fhir-servers-after-sync-desktop-light", full=False)
        try:
            t.browser.viewport(390, 844, dark=True)
            time.sleep(0.3)
            width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", t.find("#upload"))
            assert width[0] <= width[1] + 1, f"Add records scrolls sideways on a phone: {width}"
            t.find("#fhir-connect summary").click()
            t.js("document.getElementById('servers').scrollIntoView()")
            t.screenshot("fhir-servers-after-sync-phone-dark", full=False)
            t.find("#fhir-connect summary").click()
        finally:
            t.browser.viewport(1280, 900)
        # The Imports card lists it the same way.
        card = fhir_source_item(t, "#imports", name)
        assert card is not None and "FHIR" in card.text and "Up to date" in card.text, card and card.text

        # The sandbox saw the PKCE verifier, and no token ever went into a URL.
        stats = fhir.stats()
        assert stats["pkceVerified"] and stats["pkceFailures"] == 0, stats
        assert stats["tokensInURL"] == 0, stats
        assert stats["grantsIssued"].get("authorization_code") == 1, stats
        assert stats["requests"].get("everything", 0) >= 1 and stats["resourcesServed"] >= 300, stats

        # Daisey from the Person list, her whole record: what GET /timeline.json says.
        t.find('#upload [data-close]').click()
        wait_until(lambda: not t.find("#upload").is_displayed(), message="Add records to close")
        _, after = t.daemon.request("GET", "/patients.json")
        daisies = [p for p in after["patients"] if p["name"] == "Daisey Johns"]
        assert len(daisies) == 1, f"one Daisey Johns: {daisies}"
        daisey = daisies[0]["id"]
        if daisey_before:
            assert daisey == daisey_before[0]
        else:
            assert daisies[0]["source"] == name, daisies[0]
        option = wait_until(lambda: [o for o in t.find_all("#patient-select option") if o.text.startswith("Daisey Johns")],
                            timeout=10, message="Daisey Johns in the Person list")
        assert len(option) == 1, [o.text for o in option]
        Select(t.find("#patient-select")).select_by_visible_text(option[0].text)
        t.wait_rendered("#/decade/2011-01-01", "Daisey Johns", timeout=15)
        t.click(t.find('.view-button[data-view="all"]'))
        t.wait_rendered("#/all", "Daisey Johns", timeout=15)
        payload = t.daemon.api(f"/timeline.json?page=all&patient={daisey}")
        ongoing = payload.get("ongoing") or []
        expected = {lane: len(payload.get(key) or []) + sum(1 for e in ongoing if e.get("type") == lane) for lane, key in LANE_KEYS.items()}
        expected = {lane: n for lane, n in expected.items() if n}
        assert t.lane_counts() == expected, f"the lanes {t.lane_counts()} against GET /timeline.json {expected}"
        assert expected == DAISEY_LANES, expected
        total = sum(expected.values())
        assert f"All view · {total:,} record entries" in t.text("#timeline-summary"), t.text("#timeline-summary")
        shown = sorted(e.text for e in t.find_all('#entry-lists .entry-group[data-type="condition"] .desc-text'))
        assert shown == sorted(c["description"] for c in payload["conditions"]), shown
        assert any(label.startswith("Asthma self management, care goal,") for label in t.lane_labels("care_goal")), t.lane_labels("care_goal")
        t.screenshot("fhir-daisey-all-desktop-light", full=False)

        # An unknown sign-in at the callback: 400 with the daemon's words, and nothing changes.
        answer = t.js("""return fetch('/sources/callback?code=made-up&state=not-a-sign-in', {cache: 'no-store'})
                           .then(async (r) => [r.status, r.headers.get('Content-Type'), await r.json()]);""")
        assert answer[0] == 400 and "application/json" in answer[1] and answer[2]["error"]["code"] == "unknown_sign_in", answer
        t.driver.get(t.daemon.origin + "/sources/callback?code=made-up&state=not-a-sign-in")
        page = wait_until(lambda: t.find("body").text, message="the callback's answer")
        assert "unknown_sign_in" in page and "This sign-in is unknown or has expired" in page, page
        t.driver.get(t.daemon.origin + "/sources/callback?error=access_denied&state=not-a-sign-in")
        page = wait_until(lambda: t.find("body").text, message="the callback's answer")
        assert "sign_in_refused" in page and "access_denied" in page, page
        _, now = t.daemon.request("GET", "/imports.json")
        assert [s["name"] for s in now["sources"]] == [s["name"] for s in imports["sources"]], now["sources"]

        # The server refuses the next refresh: the source needs a new sign-in, which the card offers.
        fhir.fault("expired-token", target="any")
        fhir.fault("refuse-refresh", target="token")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})
        t.open("#/decade/2011-01-01", t.henry)
        t.click(t.find("#sync-now"))
        wait_until(lambda: "Needs sign-in" in (fhir_source_item(t, "#imports", name).text or ""), timeout=30, interval=0.3,
                   message="the source to need a new sign-in")
        card = fhir_source_item(t, "#imports", name)
        assert "sign in again" in card.text and "--update" not in card.text, card.text
        t.js("arguments[0].scrollIntoView({block: 'center'})", card)
        t.screenshot("fhir-needs-sign-in-desktop-light", full=False)
        again = [b for b in t.find_all("button", card) if b.text == "Sign in again"]
        assert len(again) == 1, card.text
        t.click(again[0])
        t.click(sandbox_sign_in(t, fhir, "Daisey Johns (born 2015-04-04)"))
        wait_until(lambda: t.driver.current_url == app_window and t.on_app() and dialog_shown(t), timeout=20,
                   message="the app after signing in again")

        def signed_in_again():
            _, data = t.daemon.request("GET", "/imports.json")
            source = next(s for s in data["sources"] if s["name"] == name)
            jobs = [j for j in data["jobs"] if j["source"] == name]
            return source["state"] == "ok" and source["signed_in"] and jobs[0]["state"] == "done" and jobs[0]
        wait_until(signed_in_again, timeout=60, interval=0.3, message="a sync after signing in again")
        wait_until(lambda: "Up to date" in fhir_source_item(t, "#servers-list", name).text, timeout=15, message="the source up to date")
        assert fhir.stats()["grantsIssued"].get("authorization_code") == 2, fhir.stats()
        assert fhir.stats()["tokensInURL"] == 0

        # Back from a provider with no session left (it lasted longer than the session, or another address):
        # the password first, then the servers, over the Summary.
        t.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        t.driver.get("about:blank")
        t.driver.get(t.base + "#imports")
        wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
        t.sign_in()
        wait_until(lambda: dialog_shown(t) and fhir_source_item(t, "#servers-list", name), message="the servers after signing in")
        assert t.driver.current_url == t.base + "#/summary", t.driver.current_url
        assert not t.text("#servers-note"), "no sign-in of this tab to speak of"
    finally:
        fhir.stop()
        _, sources = t.daemon.request("GET", "/imports.json")
        if any(s["name"] == name for s in (sources or {}).get("sources", [])):
            t.daemon.cli("source", "remove", name, "--delete-patients")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})
    _, people = t.daemon.request("GET", "/patients.json")
    assert {p["id"] for p in people["patients"]} == before_ids, "removing the source took away only what it brought"
    t.open("#/decade/2011-01-01", t.henry)


def dialog_shown(t):
    try:
        return t.find("#upload").is_displayed() and t.find("#servers").is_displayed()
    except Exception:  # noqa: BLE001 - the page is still loading
        return False


FAKE_IMPORTS = """
(() => {
  const data = DATA;
  const realFetch = window.fetch.bind(window);
  window.__syncRequests = [];
  window.fetch = async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (url.origin === location.origin && url.pathname === '/imports.json') {
      return new Response(JSON.stringify(data), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    }
    if (url.origin === location.origin && url.pathname === '/imports' && init.method === 'POST') {
      window.__syncRequests.push(String(init.body || ''));
      return new Response('{"jobs": []}', { status: 202, headers: { 'Content-Type': 'application/json' } });
    }
    return realFetch(input, init);
  };
})();
"""


def test_import_panel_shows_progress_errors_and_sign_in(t):
    """The panel against the shape of GET /imports.json, answered in the page by a stand-in for the
    daemon (sources that sync, fail and need a new sign-in are not set up here)."""
    now = int(time.time())
    data = {
        "sources": [
            {"name": "files", "kind": "file", "state": "ok", "last_error": None, "last_sync_at": now - 3600},
            {"name": "clinic", "kind": "rhex", "state": "ok", "last_error": None, "last_sync_at": now - 7200},
            {"name": "hospital", "kind": "rhex", "state": "needs_sign_in", "last_error": "invalid_grant", "last_sync_at": None},
            {"name": "lab", "kind": "rhex", "state": "ok", "last_error": "connection refused", "last_sync_at": None},
        ],
        "jobs": [
            {"id": 3, "source": "clinic", "state": "running", "progress_done": 12, "progress_total": 40, "attempts": 1, "last_error": None, "next_run_at": None},
            {"id": 2, "source": "hospital", "state": "needs_sign_in", "progress_done": 0, "progress_total": None, "attempts": 1, "last_error": "invalid_grant", "next_run_at": None},
            {"id": 1, "source": "lab", "state": "failed", "progress_done": 0, "progress_total": None, "attempts": 3, "last_error": "connection refused", "next_run_at": now + 600},
        ],
    }
    script = t.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_IMPORTS.replace("DATA", json.dumps(data))})
    try:
        t.open("#/decade/2011-01-01", t.henry)
        wait_until(lambda: t.find_all('#imports .source[data-source="clinic"]'), message="the sources")
        clinic = t.find('#imports .source[data-source="clinic"]')
        assert "Syncing" in clinic.text and "Importing: 12 of 40 records" in clinic.text, clinic.text
        bar = t.find("progress", clinic)
        assert bar.get_attribute("value") == "12" and bar.get_attribute("max") == "40"
        hospital = t.find('#imports .source[data-source="hospital"]').text
        assert "Needs sign-in" in hospital and "sign in again" in hospital, hospital
        lab = t.find('#imports .source[data-source="lab"]').text
        assert "Failed" in lab and "after 3 attempts: connection refused" in lab, lab
        assert not t.find_all('#imports .source[data-source="files"]'), "the files source is not a server to sync"
        sync = t.find("#sync-now")
        assert sync.is_displayed()
        t.click(sync)
        wait_until(lambda: t.js("return window.__syncRequests.length") == 1, message="Sync now to post /imports")
        t.js("document.getElementById('imports').scrollIntoView()")
        t.screenshot("imports-desktop-light", full=False)
    finally:
        t.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    t.open("#/decade/2011-01-01", t.henry)


FLAKY_TIMELINE = """
(() => {
  const realFetch = window.fetch.bind(window);
  let failures = 1;
  window.fetch = async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (url.pathname === '/timeline.json' && url.searchParams.get('page') === 'month' && failures > 0) {
      failures -= 1;
      return new Response('{"error": {"code": "internal_error", "message": "Something went wrong."}}',
        { status: 500, headers: { 'Content-Type': 'application/json' } });
    }
    return realFetch(input, init);
  };
})();
"""


def test_errors_say_what_to_do(t):
    """A failed load says so with a way to try again; a lost session returns to the sign-in."""
    script = t.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FLAKY_TIMELINE})
    try:
        t.open("#/year/2011-01-01", t.henry)
        t.click(t.find('.view-button[data-view="month"]'))
        status = wait_until(lambda: t.find("#status.error"), message="the error message")
        assert "Could not load the timeline: Something went wrong." in status.text, status.text
        t.click(t.find("#status.error button"))
        t.wait_rendered("#/month/2011-01-01", t.henry)
        assert not t.find("#status").text, t.find("#status").text
    finally:
        t.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    # The session ends behind the app's back (here: the cookie goes): the next request returns to
    # the sign-in screen, which says why; signing in again comes back to the same window.
    t.allowed_console = ["/timeline.json?page=year", "/imports.json - Failed to load resource: the server responded with a status of 401"]
    t.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    t.click(t.find('.view-button[data-view="year"]'))
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
    assert "session ended" in t.text("#signin-reason"), t.text("#signin-reason")
    t.sign_in()
    t.wait_rendered("#/year/2011-01-01", t.henry)


def unnamed_controls(t):
    """The visible controls of the app without an accessible name (their markup's start)."""
    return t.js("""
        const named = (el) => {
          if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return true;
          if (el.labels && el.labels.length) return true;
          if (el.closest('label')) return true;
          return (el.textContent || '').trim().length > 0 || el.title;
        };
        return [...document.querySelectorAll('#app button, #app input, #app select, #app a[href], #app summary')]
          .filter((el) => el.offsetParent !== null && el.type !== 'hidden' && !named(el))
          .map((el) => el.outerHTML.slice(0, 120));""")


def test_controls_have_names_and_keyboard_reach(t):
    t.open("#/decade/2011-01-01", t.henry)
    unnamed = unnamed_controls(t)
    assert not unnamed, f"controls without a name: {unnamed}"
    # Tab from the top reaches the picker, the views, the stepper, a timeline lane and the forms.
    # From the top of the page: the skip link comes first.
    t.js("window.scrollTo(0, 0); document.querySelector('.skip-link').focus()")
    seen = []
    for _ in range(120):
        el = t.driver.switch_to.active_element
        if el.tag_name == "body":
            break  # past the last control
        seen.append(el.get_attribute("id") or el.get_attribute("class") or el.tag_name)
        visible = t.js("""const e = arguments[0]; const s = getComputedStyle(e);
            return s.outlineStyle !== 'none' || s.boxShadow !== 'none' || e.matches('.choice input');""", el)
        assert visible, f"focus is visible on {seen[-1]}"
        el.send_keys(Keys.TAB)
    joined = " ".join(seen)
    for wanted in ["skip-link", "patient-select", "search-input", "search-submit", "sign-out", "lock", "view-button", "step-back", "end-date",
                   "mark", "summary", "level-pain"]:
        assert wanted in joined, f"Tab reaches {wanted}: {seen}"


def test_screenshots_phone_and_desktop_light_and_dark(t):
    """Writes what a person sees; the run's screenshots are looked at by people."""
    t.open("#/decade/2011-01-01", t.henry)
    sizes = [("phone", 390, 844), ("desktop", 1280, 900)]
    try:
        for scheme in ("light", "dark"):
            for name, width, height in sizes:
                t.browser.viewport(width, height, dark=scheme == "dark")
                t.open("#/decade/2011-01-01", t.henry)
                time.sleep(0.3)  # let late resize observers settle
                overflow = t.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 1, f"{name} {scheme}: the page scrolls sideways by {overflow}px"
                t.screenshot(f"timeline-{name}-{scheme}", full=False)
                t.screenshot(f"timeline-{name}-{scheme}-full", full=True)
                mark = wait_until(lambda: [m for m in t.find_all('.lane[data-type="condition"] .mark') if m.get_attribute("aria-label").startswith("Heart Failure,")], message="the Heart Failure mark")[0]
                t.click(mark)
                wait_until(lambda: t.find("#details").is_displayed(), message="details")
                t.screenshot(f"details-{name}-{scheme}", full=False)
                t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        # The sign-in screen, on a fresh page without a session (the session stays valid).
        for scheme in ("light", "dark"):
            for name, width, height in sizes:
                t.browser.viewport(width, height, dark=scheme == "dark")
                t.js("document.getElementById('app').hidden = true; document.getElementById('signin').hidden = false;")
                t.screenshot(f"signin-{name}-{scheme}", full=False)
                t.driver.refresh()
                t.wait_rendered("#/decade/2011-01-01", t.henry)
    finally:
        t.browser.viewport(1280, 900, dark=False)


def test_sign_out_and_lock(t):
    t.open("#/decade/2011-01-01", t.henry)
    t.click(t.find("#sign-out"))
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen after signing out")
    assert "signed out" in t.text("#signin-reason")
    session = t.js("return fetch('/session').then((r) => r.json())")
    assert session == {"signed_in": False, "locked": False}, session
    t.sign_in()
    t.wait_rendered("#/decade/2011-01-01", t.henry)
    t.click(t.find("#lock"))
    wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen after locking")
    assert "locked" in t.text("#signin-reason")
    _, health = t.daemon.request("GET", "/healthz", auth=False)
    assert health["locked"] is True
    # Reloading while locked shows the sign-in screen, and signing in unlocks again.
    t.driver.refresh()
    wait_until(lambda: t.find("#signin").is_displayed(), message="sign-in after a reload")
    t.sign_in()
    t.wait_rendered("#/decade/2011-01-01", t.henry)
    _, health = t.daemon.request("GET", "/healthz", auth=False)
    assert health["locked"] is False


# ---- Your notes on entries, and the people ----

SIZES = [("desktop", 1280, 900), ("phone", 390, 844)]


def each_look(t, shoot):
    """shoot(name) at a desktop and a phone width, light and dark; back to a light desktop after."""
    try:
        for scheme in ("light", "dark"):
            for size, width, height in SIZES:
                t.browser.viewport(width, height, dark=scheme == "dark")
                time.sleep(0.3)  # let the resize observer draw the lanes again
                overflow = t.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 1, f"{size} {scheme}: the page scrolls sideways by {overflow}px"
                shoot(f"{size}-{scheme}")
    finally:
        t.browser.viewport(1280, 900, dark=False)
        time.sleep(0.3)


def clear_annotations(t, patient):
    _, data = t.daemon.request("GET", f"/patients/{patient}/annotations.json")
    for annotation in (data or {}).get("annotations", []):
        t.daemon.request("DELETE", f"/patients/{patient}/entries/{annotation['entry_id']}/annotation")


def mark_of(t, lane, name):
    """The mark on a lane whose accessible name starts with this description."""
    return wait_until(lambda: [m for m in t.find_all(f'.lane[data-type="{lane}"] .mark')
                               if m.get_attribute("aria-label").startswith(name + ",")], message=f"the {name} mark")[0]


def list_row(t, lane, name):
    rows = [r for r in t.find_all(f'.entry-group[data-type="{lane}"] .entry-row') if t.find(".desc-text", r).text == name]
    return rows[0] if rows else None


def open_details(t, lane, name):
    mark = mark_of(t, lane, name)
    t.click(mark)
    wait_until(lambda: t.find("#details").is_displayed() and t.text("#details-title") == name, message=f"the details of {name}")
    wait_until(lambda: t.find_all("#details .annotation"), message="the Your note section")
    return mark


def close_details(t):
    t.click(t.find("#details [data-close]"))
    wait_until(lambda: not t.find("#details").is_displayed(), message="the details to close")


def save_annotation(t):
    before = t.renders()
    t.click(t.find('#details .annotation button[type="submit"]'))
    wait_until(lambda: t.find("#details .annotation .form-note").text.startswith("Saved at"), message="the saved note")
    wait_until(lambda: t.renders() > before and not t.draws()["busy"], message="the timeline to be drawn again")


def test_note_on_an_entry_and_marked_wrong(t):
    """A note on Hypertension stays after a reload and marks the entry; Prostate Cancer marked wrong is
    struck through and, when asked, hidden (and stays hidden after a reload); a medication takes its
    details; a note over the daemon's limit is refused with its reason."""
    clear_annotations(t, t.henry)
    t.allowed_console = ["/annotation - Failed to load resource: the server responded with a status of 413"]
    try:
        t.open("#/decade/2011-01-01", t.henry)
        t.js("localStorage.removeItem('hreaderd.hideStruck')")
        open_details(t, "condition", "Hypertension")
        section = t.find("#details .annotation")
        assert t.find("h3", section).text == "Your note"
        assert "Only you see this" in section.text, section.text
        assert not t.find('#details [data-close]').get_attribute("disabled")
        remove = [b for b in t.find_all("button", section) if b.get_attribute("textContent") == "Remove note"][0]
        assert not remove.is_displayed(), "nothing to remove yet"
        assert not t.find_all("#annotation-med-quantity"), "medication details only on a medication"
        # Saving nothing says what to do first.
        t.click(t.find('button[type="submit"]', section))
        assert "Write a note or mark the entry wrong first." in t.text("#details .annotation .form-error")
        note = "Diagnosed at the county clinic. Check the blood pressure at home <b>weekly</b>."
        t.find("#annotation-note").send_keys(note)
        save_annotation(t)
        assert remove.is_displayed(), "a saved note can be removed"
        assert "Saved " in t.find("#annotation-help").text, t.find("#annotation-help").text
        t.screenshot("note-saved-desktop-light", full=False)
        # Escape: back to the entry's mark, drawn again with a note mark.
        t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait_until(lambda: not t.find("#details").is_displayed(), message="Escape to close")
        focused = t.driver.switch_to.active_element
        assert (focused.get_attribute("aria-label") or "").startswith("Hypertension,"), "focus is back on the Hypertension mark"
        mark = mark_of(t, "condition", "Hypertension")
        assert "has-note" in mark.get_attribute("class") and mark.get_attribute("aria-label").endswith("(has your note)"), mark.get_attribute("aria-label")

        # After a reload: still there, in the form, on the mark and in the list.
        t.open("#/decade/2011-01-01", t.henry)
        mark = mark_of(t, "condition", "Hypertension")
        assert "has-note" in mark.get_attribute("class"), mark.get_attribute("class")
        badge = t.find(".note-mark", mark)
        assert badge.is_displayed() and badge.text == "✎", "the band's label starts with a note mark"
        colour = t.js("return getComputedStyle(arguments[0]).color", badge)
        assert colour != t.js("return getComputedStyle(arguments[0]).color", t.find(".band-text", mark)), "in the colour of your notes"
        row = list_row(t, "condition", "Hypertension")
        assert row is not None and t.find_all(".note-tag", row), "the list shows the note mark"
        assert "(has your note)" in row.get_attribute("textContent"), row.get_attribute("textContent")
        open_details(t, "condition", "Hypertension")
        assert t.find("#annotation-note").get_attribute("value") == note, "the note is shown as written, as text"
        assert not t.find_all("#details .annotation b"), "text, never markup"

        # Too long for the daemon: its answer is shown, and nothing changes.
        t.js("const f = document.getElementById('annotation-note'); f.value = 'x'.repeat(17000);")
        t.click(t.find('#details .annotation button[type="submit"]'))
        error = wait_until(lambda: t.text("#details .annotation .form-error"), message="the daemon's refusal")
        assert error.startswith("Not saved:") and "16384" in error, error
        stored = t.daemon.api(f"/patients/{t.henry}/entries/{mark.get_attribute('data-id')}/annotation")["annotation"]
        assert stored["note"] == note, stored
        t.screenshot("note-too-long-desktop-light", full=False)
        close_details(t)

        # Not mine / wrong, with a reason: struck through on the timeline and in the list.
        open_details(t, "condition", "Prostate Cancer")
        assert not t.find("#annotation-reason").is_displayed(), "the reason appears with the checkbox"
        t.click(t.find("#annotation-struck"))
        reason = "Another Henry Smith's diagnosis"
        wait_until(lambda: t.find("#annotation-reason").is_displayed(), message="the reason field")
        t.find("#annotation-reason").send_keys(reason)
        save_annotation(t)
        banner = t.find("#details .struck-banner")
        assert banner.is_displayed() and banner.text == f"You marked this entry as not yours or wrong: {reason}", banner.text
        close_details(t)
        struck = mark_of(t, "condition", "Prostate Cancer")
        assert "struck" in struck.get_attribute("class"), struck.get_attribute("class")
        assert "(marked wrong)" in struck.get_attribute("aria-label"), struck.get_attribute("aria-label")
        line = t.js("return getComputedStyle(arguments[0].querySelector('.band-text')).textDecorationLine", struck)
        assert "line-through" in line, f"struck through on the lane: {line}"
        row = list_row(t, "condition", "Prostate Cancer")
        assert "marked wrong" in row.text and "(marked wrong)" in row.get_attribute("textContent"), row.text
        assert "line-through" in t.js("return getComputedStyle(arguments[0]).textDecorationLine", t.find(".desc-text", row))
        t.js("document.querySelector('.timeline-card').scrollIntoView()")
        t.screenshot("struck-entry-desktop-light", full=False)

        def shoot_struck(look):
            t.open("#/decade/2011-01-01", t.henry)
            t.js("document.querySelector('.timeline-card').scrollIntoView()")
            t.screenshot(f"struck-timeline-{look}", full=False)
            t.js("document.querySelector('.entry-group[data-type=\"condition\"]').scrollIntoView()")
            t.screenshot(f"struck-list-{look}", full=False)
            open_details(t, "condition", "Hypertension")
            t.screenshot(f"note-details-{look}", full=False)
            close_details(t)
            open_details(t, "condition", "Prostate Cancer")
            t.screenshot(f"struck-details-{look}", full=False)
            close_details(t)
        each_look(t, shoot_struck)

        # Hide entries marked wrong: gone from the lane and its count, and remembered after a reload.
        t.open("#/decade/2011-01-01", t.henry)
        assert t.lane_counts()["condition"] == 4
        toggle = t.find("#hide-struck")
        assert t.find('label[for="hide-struck"]').text == "Hide entries marked wrong"
        assert not toggle.is_selected()
        t.click(toggle)
        wait_until(lambda: t.lane_counts()["condition"] == 3, message="the condition lane without the struck entry")
        assert not [m for m in t.lane_labels("condition") if m.startswith("Prostate Cancer,")]
        assert list_row(t, "condition", "Prostate Cancer") is None, "not in the list either"
        assert "(3)" in t.text('.entry-group[data-type="condition"] > summary')
        assert "1 marked wrong, hidden" in t.text("#timeline-summary"), t.text("#timeline-summary")
        t.open("#/decade/2011-01-01", t.henry)
        assert t.find("#hide-struck").is_selected(), "the choice is remembered"
        assert t.lane_counts()["condition"] == 3, t.lane_counts()
        t.click(t.find("#hide-struck"))
        wait_until(lambda: t.lane_counts()["condition"] == 4, message="the struck entry back")
        assert "struck" in mark_of(t, "condition", "Prostate Cancer").get_attribute("class")
        assert "hidden" not in t.text("#timeline-summary")

        # A medication: how it is taken, then the note removed.
        open_details(t, "medication", "Lisinopril")
        values = {"quantity": "30 tablets", "dose": "10 mg", "directions": "once a day, in the morning", "prescriber": "Dr. Lee"}
        for key, value in values.items():
            t.find(f"#annotation-med-{key}").send_keys(value)
        save_annotation(t)
        lisinopril = mark_of(t, "medication", "Lisinopril").get_attribute("data-id")
        stored = t.daemon.api(f"/patients/{t.henry}/entries/{lisinopril}/annotation")["annotation"]
        assert stored["medication"] == values and stored["note"] is None and stored["struck"] is False, stored
        assert "has-note" in mark_of(t, "medication", "Lisinopril").get_attribute("class")
        t.click([b for b in t.find_all("#details .annotation button") if b.text == "Remove note"][0])
        wait_until(lambda: t.find("#details .annotation .form-note").text == "Removed.", message="the note removed")
        assert t.find("#annotation-med-quantity").get_attribute("value") == ""
        close_details(t)
        wait_until(lambda: "has-note" not in mark_of(t, "medication", "Lisinopril").get_attribute("class"), message="the note mark to go")
        status, _ = t.daemon.request("GET", f"/patients/{t.henry}/entries/{lisinopril}/annotation")
        assert status == 404, status
    finally:
        t.js("localStorage.removeItem('hreaderd.hideStruck')")
        clear_annotations(t, t.henry)


def open_people(t):
    button = t.find("#people-button")
    t.click(button)
    dialog = t.find("#people")
    wait_until(lambda: dialog.is_displayed(), message="the People panel")
    return dialog


def close_people(t):
    t.click(t.find("#people [data-close]"))
    wait_until(lambda: not t.find("#people").is_displayed(), message="the People panel to close")


def person_card(t, pid):
    return wait_until(lambda: t.find(f'#people-list .person-card[data-person="{pid}"]'), message=f"the card of {pid}")


def picker_options(t):
    return [(o.get_attribute("value"), o.text) for o in Select(t.find("#patient-select")).options]


def reset_people(t):
    """Names, relationships and order as the records give them (null), for the tests after."""
    _, data = t.daemon.request("GET", "/patients.json")
    for patient in data["patients"]:
        if patient["display_name"] is not None or patient["relationship"] is not None or patient["order"] is not None:
            t.daemon.request("PATCH", f"/patients/{patient['id']}", {"display_name": None, "relationship": None, "order": None})
    t.daemon.request("POST", "/patients/current", {"id": t.henry})


def test_people_names_relationships_and_order(t):
    """People: a display name and a relationship for Henry (the picker and the heading use them), and
    Henry moved down one place (the picker follows, after a reload too)."""
    reset_people(t)
    try:
        t.open("#/decade/2011-01-01", t.henry)
        assert t.find("#people-button").text == "People"
        open_people(t)
        cards = t.find_all("#people-list .person-card")
        assert [c.get_attribute("data-person") for c in cards] == [v for v, _ in picker_options(t)], "the picker's people, in its order"
        card = person_card(t, t.henry)
        assert t.find("h3", card).text == "Henry Smith"
        assert "In the record: “Henry Smith”" in card.text and "138 record entries" in card.text and "Shown now" in card.text, card.text
        name = t.find('input[name="display_name"]', card)
        assert t.find(f'label[for="{name.get_attribute("id")}"]', card).text == "Display name"
        assert name.get_attribute("placeholder") == "Henry Smith"
        name.send_keys("Grandpa Henry")
        Select(t.find('select[name="relationship"]', card)).select_by_value("parent")
        before = t.renders()
        t.click(t.find('[data-action="save"]', card))
        wait_until(lambda: t.renders() > before and t.text("#person-name") == "Grandpa Henry", message="the heading to use the display name")
        card = person_card(t, t.henry)
        wait_until(lambda: "Saved. Shown as “Grandpa Henry”, parent." in t.find(".form-note", card).text, message="the saved note in the card")
        assert t.find("h3", card).text == "Grandpa Henry" and "Parent" in t.find(".person-card-head", card).text
        assert t.driver.switch_to.active_element == t.find('[data-action="save"]', card), "focus stays on Save"
        option = dict(picker_options(t))[t.henry]
        assert option.startswith("Grandpa Henry, ") and option.endswith(" years · Parent"), option
        assert "Parent" in t.text("#person-meta"), t.text("#person-meta")
        assert "Grandpa Henry" in t.driver.title
        _, data = t.daemon.request("GET", "/patients.json")
        henry = [p for p in data["patients"] if p["id"] == t.henry][0]
        assert (henry["display_name"], henry["relationship"], henry["source_name"], henry["name"]) == ("Grandpa Henry", "parent", "Henry Smith", "Grandpa Henry"), henry

        # Henry down one place: he and the next person change places in the picker.
        order = [v for v, _ in picker_options(t)]
        at = order.index(t.henry)
        assert at + 1 < len(order), order
        expected = order[:at] + [order[at + 1], order[at]] + order[at + 2:]
        t.click(t.find('[data-action="down"]', person_card(t, t.henry)))
        wait_until(lambda: [v for v, _ in picker_options(t)] == expected, message="the picker's new order")
        wait_until(lambda: [c.get_attribute("data-person") for c in t.find_all("#people-list .person-card")] == expected, message="the panel's new order")
        focused = t.driver.switch_to.active_element
        assert focused.get_attribute("data-action") == "down" and t.js("return arguments[0].closest('.person-card').dataset.person", focused) == t.henry, \
            "focus stays on Henry's Move down"
        assert "number " + str(at + 2) in t.find(".form-note", person_card(t, t.henry)).text

        def shoot_people(look):
            if not t.find("#people").is_displayed():
                open_people(t)
            t.js("document.querySelector('#people .details-body').scrollTop = 0; document.querySelector('#people').scrollTop = 0")
            t.screenshot(f"people-{look}", full=False)
            t.js("arguments[0].scrollIntoView({block: 'start'})", person_card(t, t.henry))
            t.screenshot(f"people-henry-{look}", full=False)
        each_look(t, shoot_people)
        close_people(t)

        # After a reload: the same order, the same name.
        t.open("#/decade/2011-01-01", "Grandpa Henry")
        assert [v for v, _ in picker_options(t)] == expected, "the order sticks"
        _, data = t.daemon.request("GET", "/patients.json")
        assert [p["id"] for p in data["patients"]] == expected, "the daemon lists the family in that order"
        assert all(p["order"] is not None for p in data["patients"]), "everyone has a place"

        # Back to the record's name: an empty display name and no relationship.
        open_people(t)
        card = person_card(t, t.henry)
        t.find('input[name="display_name"]', card).clear()
        Select(t.find('select[name="relationship"]', card)).select_by_value("")
        t.click(t.find('[data-action="save"]', card))
        wait_until(lambda: t.text("#person-name") == "Henry Smith", message="the record's name again")
        option = dict(picker_options(t))[t.henry]
        assert option.startswith("Henry Smith, ") and option.endswith(" years"), option
        close_people(t)
        assert t.find("#people").get_attribute("open") is None
    finally:
        reset_people(t)


SECOND_HENRY = {
    "_id": "5f00000000000000000000aa", "first": "Henry", "last": "Smith", "gender": "M", "birthdate": -972586800,
    "medical_record_number": "CLINIC-2",
    "conditions": [
        {"_id": "5f00000000000000000000a1", "_type": "Entry", "codes": {"SNOMED-CT": ["195967001"]}, "description": "Asthma",
         "start_time": 1275350400, "time": None, "value": {}, "version": 1},
        # The same fact as in Henry's own record: shown once when linked.
        {"_id": "5f00000000000000000000a2", "_type": "Entry", "codes": {"ICD-10-CM": ["I10"], "ICD-9-CM": ["401.9"], "SNOMED-CT": ["59621000"]},
         "description": "Hypertension", "start_time": 1251172800, "time": None, "value": {}, "version": 1},
    ],
}


def test_link_two_records_of_one_person(t):
    """A second record of Henry (another clinic's file, added in the app) is suggested in People; linked,
    the picker shows him once and the timeline shows both records; unlinked, two again."""
    reset_people(t)
    path = t.daemon.work / "henry-from-another-clinic.json"
    path.write_text(json.dumps(SECOND_HENRY))
    _, before = t.daemon.request("GET", "/patients.json")
    second = None
    try:
        t.open("#/decade/2011-01-01", t.henry)
        open_add_records(t)
        t.find("#upload-input").send_keys(str(path))
        wait_until(lambda: uploads(t).get(path.name, ("",))[0] == "done", timeout=30, interval=0.2, message="the second record imported")
        assert "1 new person" in uploads(t)[path.name][1], uploads(t)[path.name][1]
        ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()
        wait_until(lambda: not t.find("#upload").is_displayed(), message="the panel to close")
        _, after = t.daemon.request("GET", "/patients.json")
        second = [p["id"] for p in after["patients"] if p["id"] not in {q["id"] for q in before["patients"]}][0]
        henrys = lambda: [v for v, text in picker_options(t) if text.startswith("Henry Smith, ")]  # noqa: E731
        wait_until(lambda: sorted(henrys()) == sorted([t.henry, second]), message="two Henry Smiths in the picker")

        # People: the suggestion, once, on the card of the person shown.
        open_people(t)
        card = person_card(t, t.henry)
        suggestion = wait_until(lambda: t.find_all(f'.suggestion[data-patient="{second}"]', card), message="the suggestion to link")[0]
        assert "Henry Smith" in suggestion.text and "same name and birth date" in suggestion.text and "2 entries" in suggestion.text, suggestion.text
        assert len(t.find_all("#people .suggestion")) == 1, "the pair is suggested once"
        link = t.find('[data-action="link"]', suggestion)
        assert link.text == "These are the same person — link"
        cards = len(t.find_all("#people-list .person-card"))
        t.click(link)
        wait_until(lambda: t.text("#people-status").startswith("Linked:"), message="the link to be made")
        assert len(t.find_all("#people-list .person-card")) == cards - 1, "one card for the person"
        card = person_card(t, t.henry)
        assert "Linked records" in card.text and "2 linked records" in card.text, card.text
        assert not t.find_all("#people .suggestion")
        unlink = t.find(f'[data-action="unlink"][data-patient="{second}"]', card)
        assert unlink.text.startswith("Unlink")
        t.screenshot("people-linked-desktop-light", full=False)
        close_people(t)

        # One Henry in the picker; the timeline is the union, each fact once.
        wait_until(lambda: henrys() == [t.henry], message="one Henry Smith in the picker")
        wait_until(lambda: "2 linked records" in t.text("#person-meta"), message="the heading to say so")
        t.open("#/decade/2011-01-01", t.henry)
        conditions = t.lane_labels("condition")
        assert t.lane_counts()["condition"] == 5, conditions
        assert any(label.startswith("Asthma,") for label in conditions), conditions
        assert len([label for label in conditions if label.startswith("Hypertension,")]) == 1, conditions
        assert "Asthma" in t.text('.entry-group[data-type="condition"]')
        union = t.daemon.api(f"/timeline.json?page=all&patient={second}")
        assert union["patient"]["id"] == t.henry, "either record's id shows the person"

        # Unlink: two people again, Henry's timeline his own.
        open_people(t)
        card = person_card(t, t.henry)
        t.click(t.find(f'[data-action="unlink"][data-patient="{second}"]', card))
        wait_until(lambda: t.text("#people-status").startswith("Unlinked:"), message="the link to go")
        assert len(t.find_all("#people-list .person-card")) == cards
        wait_until(lambda: t.find_all(f'#people .suggestion[data-patient="{second}"], #people .suggestion[data-patient="{t.henry}"]'),
                   message="the suggestion again")
        close_people(t)
        wait_until(lambda: sorted(henrys()) == sorted([t.henry, second]), message="two Henry Smiths again")
        t.open("#/decade/2011-01-01", t.henry)
        assert t.lane_counts()["condition"] == 4, t.lane_labels("condition")
        assert "Asthma" not in t.text('.entry-group[data-type="condition"]')
    finally:
        if second:
            t.daemon.request("DELETE", f"/patients/{second}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})


def upload_record(t, record, name):
    """Uploads one RHEx record with the API token, as the Add records panel does; its report."""
    status, raw = t.daemon.http("POST", f"/imports/files?name={name}", json.dumps(record), content_type="application/json")
    assert status == 202, (status, raw[:300])
    job = json.loads(raw)["job"]["id"]
    return wait_until(lambda: (lambda d: d["job"]["state"] == "done" and d)(t.daemon.api(f"/imports/jobs/{job}")),
                      interval=0.1, message=f"the import of {name}")["report"]


def test_remove_a_person_after_confirming(t):
    """Robin's record, with a note on an entry its source later removed: the note is shown (under the
    heading and in People); Remove asks first, names Robin and says what goes; Cancel keeps Robin;
    confirmed, Robin is gone with everything of theirs, and the next person is shown."""
    robin = {"_id": "5f00000000000000000000bb", "first": "Robin", "last": "Example", "gender": "F", "birthdate": 315532800,
             "conditions": [
                 {"_id": "5f00000000000000000000b1", "_type": "Entry", "codes": {"SNOMED-CT": ["367498001"]}, "description": "Seasonal allergies",
                  "start_time": 1262304000, "time": None, "value": {}, "version": 1},
                 {"_id": "5f00000000000000000000b2", "_type": "Entry", "codes": {"SNOMED-CT": ["44465007"]}, "description": "Sprained ankle",
                  "start_time": 1270000000, "time": None, "value": {}, "version": 1}]}
    report = upload_record(t, robin, "robin.json")
    rid = report["patients"][0]["id"]
    try:
        ankle = [c for c in t.daemon.api(f"/timeline.json?page=all&patient={rid}")["conditions"] if c["description"] == "Sprained ankle"][0]
        status, _ = t.daemon.request("PUT", f"/patients/{rid}/entries/{ankle['id']}/annotation", {"note": "Healed by spring"})
        assert status == 200
        robin["conditions"] = robin["conditions"][:1]  # the source no longer has the ankle
        upload_record(t, robin, "robin.json")
        orphans = t.daemon.api(f"/patients/{rid}/annotations.json")["annotations"]
        assert [(a["entry_id"], a["orphaned"]) for a in orphans] == [(ankle["id"], True)], orphans

        t.open("#/all", t.henry)
        Select(t.find("#patient-select")).select_by_value(rid)
        t.wait_rendered("#/all", "Robin Example")
        notice = wait_until(lambda: t.find("#orphan-notice").is_displayed() and t.find("#orphan-notice"), message="the note on a removed entry")
        assert "1 note of yours is on an entry the source has removed." in notice.text, notice.text
        t.click(t.find("button", notice))
        wait_until(lambda: t.find("#people").is_displayed(), message="People")
        card = person_card(t, rid)
        assert t.driver.switch_to.active_element == t.find("h3", card), "Robin's card has the focus"
        orphan = wait_until(lambda: t.find_all(f'.orphan[data-entry="{ankle["id"]}"]', card), message="the note in Robin's card")[0]
        assert "Notes on removed entries" in card.text and "“Healed by spring”" in orphan.text, card.text

        # Remove… asks first; Cancel keeps Robin.
        remove = t.find('[data-action="remove"]', card)
        assert remove.text.startswith("Remove…")
        t.click(remove)
        confirm = t.find(".confirm", card)
        wait_until(confirm.is_displayed, message="the confirmation")
        text = confirm.text
        for words in ["Remove Robin Example?", "everything of theirs", "1 record entry", "your notes", "A sync won’t bring them back"]:
            assert words in text, f"{words!r} in {text!r}"
        assert remove.get_attribute("aria-expanded") == "true"
        assert t.driver.switch_to.active_element.text == "Cancel", "Cancel has the focus, not Remove"
        t.screenshot("people-remove-confirm-desktop-light", full=False)
        t.click(t.find('[data-action="cancel"]', confirm))
        assert not confirm.is_displayed() and t.driver.switch_to.active_element == remove
        assert any(p["id"] == rid for p in t.daemon.api("/patients.json")["patients"]), "Cancel removed nothing"

        t.click(remove)
        button = t.find('[data-action="confirm-remove"]', confirm)
        assert button.text == "Remove Robin Example"
        t.click(button)
        wait_until(lambda: t.text("#people-status") == "Removed Robin Example and everything of theirs.", message="the removal")
        assert not t.find_all(f'#people-list .person-card[data-person="{rid}"]')
        close_people(t)
        wait_until(lambda: rid not in [v for v, _ in picker_options(t)], message="Robin gone from the picker")
        wait_until(lambda: t.text("#person-name") not in ("Robin Example", "…", ""), message="the next person shown")
        data = t.daemon.api("/patients.json")
        assert rid not in [p["id"] for p in data["patients"]] and data["current"] != rid
        status, _ = t.daemon.request("GET", f"/patients/{rid}/annotations.json")
        assert status == 404, status
        assert not t.find("#orphan-notice").is_displayed() or "Robin" not in t.text("#person-name")
    finally:
        if any(p["id"] == rid for p in t.daemon.api("/patients.json")["patients"]):
            t.daemon.request("DELETE", f"/patients/{rid}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})



# ---- The Summary: tiles of the daemon's modules, readings added from them, the tiles chosen, the print ----

ESTRELLA = "synthea_adult_chronic_estrella_daugherty.json"  # an adult with blood pressure, weight, glucose, HbA1c, cholesterol

# The words the app gives the daemon's categories (js/summary.js), for the tiles' badges.
CATEGORY_WORDS = {"normal": "Normal", "elevated": "Elevated", "stage_1": "Stage 1 hypertension", "stage_2": "Stage 2 hypertension",
                  "severe": "Severe (above 180/120)", "desirable": "Desirable", "optimal": "Optimal", "high": "High",
                  "borderline_high": "Borderline high", "healthy": "Healthy weight", "overweight": "Overweight", "obesity": "Obesity"}

# A module the app does not know yet (and text that must stay text), added to summary.json by a stand-in in the page.
FUTURE_MODULE = {"id": "sleep-log", "name": "Sleep <b>log</b>", "description": "How long you sleep.", "accepts": [],
                 "message": 'You slept 6.5 hours a night <img src=x onerror="window.__pwned = 4">.',
                 "tile": {"average_hours": 6.5, "goal": {"hours": 8, "set_at": 1700000000}, "nights": [{"hours": 7, "date": 1700000000}, {"hours": 6, "date": 1700086400}]}}
FUTURE_SUMMARY = """
(() => {
  const extra = MODULE;
  const realFetch = window.fetch.bind(window);
  window.fetch = async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const response = await realFetch(input, init);
    if (url.origin !== location.origin || !url.pathname.endsWith('/summary.json') || !response.ok) return response;
    const data = await response.json();
    data.modules.push(extra);
    return new Response(JSON.stringify(data), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  };
})();
"""


def upload_file(t, path):
    """Imports a record file with the API token, as the Add records panel does; its report."""
    kind = "application/xml" if path.suffix == ".xml" else "application/json"
    status, raw = t.daemon.http("POST", f"/imports/files?name={path.name}", path.read_bytes(), content_type=kind)
    assert status == 202, (status, raw[:300])
    job = json.loads(raw)["job"]["id"]
    return wait_until(lambda: (lambda d: d["job"]["state"] == "done" and d)(t.daemon.api(f"/imports/jobs/{job}")),
                      timeout=60, interval=0.1, message=f"the import of {path.name}")["report"]


def summary_api(t, patient):
    return t.daemon.api(f"/patients/{patient}/summary.json")


def module_of(summary, module_id):
    return [m for m in summary["modules"] if m["id"] == module_id][0]


def tile_order(t):
    return [tile.get_attribute("data-module") for tile in t.find_all("#tiles .tile")]


def tile_of(t, module_id):
    return t.find(f'#tiles .tile[data-module="{module_id}"]')


def tile_message(t, module_id):
    return t.find(".tile-message", tile_of(t, module_id)).get_attribute("textContent")


def remove_readings(t, patient):
    for reading in t.daemon.api(f"/patients/{patient}/readings.json")["readings"]:
        t.daemon.request("DELETE", f"/readings/{reading['id']}")


def test_summary_of_a_sample_patient(t):
    """The app opens on the Summary of the current person (a fresh load after signing in): the person's
    name, age and gender, one tile per module in the daemon's order, each with the module's name and its
    message as the API gives them. Estrella Daugherty's FHIR bundle, imported and chosen in the picker:
    the blood-pressure tile's latest value and category are summary.json's, and charts are drawn (blood
    pressure as two lines, weight, glucose); cholesterol's ranges, her problems and vaccines are listed.
    A module the app does not know yet shows its message and its data as text. The timeline's views stay
    one click away."""
    path = fhir_sample(ESTRELLA)
    t.open("#/summary")  # signed in: the store is unlocked
    known = {p["id"] for p in t.daemon.api("/patients.json")["patients"]}
    script = None
    try:
        report = upload_file(t, path)
        estrella = [p["id"] for p in report["patients"] if p.get("id")][0]
        t.daemon.request("POST", "/patients/current", {"id": t.henry})
        # A fresh load of the app without an address: signed in, it opens on the Summary.
        t.driver.get("about:blank")
        t.driver.get(t.base)
        wait_until(lambda: t.on_app() or t.find("#signin").is_displayed(), message="the app or the sign-in screen")
        if not t.on_app():
            t.sign_in()
        t.wait_rendered("", t.henry)
        assert t.find("#summary-view").is_displayed(), "the Summary is shown"
        assert not t.find("#timeline-layout").is_displayed(), "the timeline's cards are not"
        assert not t.find("#stepper").is_displayed() and not t.find("#jump").is_displayed(), "no window to step through"
        summary_button = t.find('.view-button[data-view="summary"]')
        assert summary_button.text == "Summary" and summary_button.get_attribute("aria-pressed") == "true"
        henry = summary_api(t, t.henry)
        assert tile_order(t) == [m["id"] for m in henry["modules"]], (tile_order(t), [m["id"] for m in henry["modules"]])
        assert t.text("#person-name") == "Henry Smith"

        # Estrella, chosen in the picker.
        Select(t.find("#patient-select")).select_by_value(estrella)
        t.wait_rendered("", "Estrella Daugherty")
        api = summary_api(t, estrella)
        assert api["patient"]["name"] == "Estrella Daugherty"
        assert tile_order(t) == [m["id"] for m in api["modules"]], f"tiles in the API's order: {tile_order(t)}"
        for module in api["modules"]:
            tile = tile_of(t, module["id"])
            assert t.find("h3", tile).text == module["name"], (t.find("h3", tile).text, module["name"])
            assert tile_message(t, module["id"]) == module["message"], (module["id"], tile_message(t, module["id"]), module["message"])
            assert bool(t.find_all(".add-reading", tile)) == bool(module["accepts"]), f"{module['id']}: a form only where readings are taken"
        meta = t.text("#person-meta")
        assert "Female" in meta and f"{int(api['patient']['age'])} years old" in meta, meta
        assert t.driver.title.startswith("Estrella Daugherty — Summary"), t.driver.title

        # Blood pressure: the latest reading, its category and the average, as summary.json has them; a chart of both lines.
        bp = module_of(api, "blood-pressure")["tile"]
        tile = tile_of(t, "blood-pressure")
        latest = t.find('.tile-latest[data-field="latest"]', tile)
        assert t.find(".tile-value", latest).text == f"{bp['latest']['systolic']}/{bp['latest']['diastolic']}", latest.text
        badge = t.find(".badge.category", latest)
        assert badge.get_attribute("data-category") == bp["category"] == "stage_2", (badge.get_attribute("data-category"), bp["category"])
        assert badge.text == CATEGORY_WORDS[bp["category"]], badge.text
        assert "stage 2 hypertension" in tile_message(t, "blood-pressure"), tile_message(t, "blood-pressure")
        average = t.find('[data-field="average"]', tile).text
        assert f"{bp['average']['systolic']}/{bp['average']['diastolic']} mmHg" in average and f"last {bp['average']['count']}" in average, average
        chart = t.find(".tile-chart svg", tile)
        assert len(t.find_all("polyline", chart)) == 2, "systolic and diastolic lines"
        label = chart.get_attribute("aria-label")
        assert label.startswith(f"Blood pressure: {len(bp['readings'])} readings") and "your own" not in label, label
        assert len(t.find_all("circle.chart-dot", chart)) == 2 * len(bp["readings"]) and not t.find_all(".chart-dot.mine", chart), "the record's readings, none of hers"
        # Weight and BMI: the latest weight, BMI and its category; the weights charted.
        weight = module_of(api, "weight-bmi")["tile"]
        tile = tile_of(t, "weight-bmi")
        assert t.find('[data-field="weight"] .tile-value', tile).text == f"{weight['latest']['weight']:g} kg"
        assert t.find('[data-field="bmi"] .tile-value', tile).text == f"{weight['latest']['bmi']:g}"
        assert t.find(".badge.category", tile).get_attribute("data-category") == weight["category"]
        assert t.find_all(".tile-chart svg polyline", tile), "the weights charted"
        # Blood sugar: glucose and HbA1c with their ranges, the glucose charted.
        sugar = module_of(api, "blood-sugar")["tile"]
        tile = tile_of(t, "blood-sugar")
        assert t.find('[data-field="hba1c"] .tile-value', tile).text == f"{sugar['hba1c']['value']:g}"
        assert t.find('[data-field="hba1c"] .badge', tile).get_attribute("data-category") == sugar["hba1c"]["range"]
        assert t.find_all(".tile-chart svg polyline", tile), "the glucose readings charted"
        # Cholesterol: each lipid with its range.
        lipids = module_of(api, "cholesterol")["tile"]
        for key in ("total", "ldl", "hdl", "triglycerides"):
            row = t.find(f'tr[data-lipid="{key}"]', tile_of(t, "cholesterol"))
            assert f"{lipids[key]['value']:g} mg/dL" in row.text and t.find(".badge", row).get_attribute("data-category") == lipids[key]["range"], row.text
        # Problems, medications and vaccines listed.
        problems = module_of(api, "problems-allergies")["tile"]["problems"]
        listed = [li.find_element(By.CSS_SELECTOR, ".item-name").text for li in t.find_all('[data-list="problems"] > li')]
        assert listed == [p["description"] for p in problems], listed
        assert "No allergies in the record." in tile_of(t, "problems-allergies").text
        vaccines = module_of(api, "immunizations")["tile"]["vaccines"]
        assert len(t.find_all('[data-list="vaccines"] > li')) == len(vaccines)
        assert "Nothing posted yet" in tile_of(t, "feelings").text
        # Every control has a name, the reading forms' fields too.
        for details in t.find_all("#tiles .add-reading"):
            t.click(t.find("summary", details))
        unnamed = unnamed_controls(t)
        assert not unnamed, f"controls without a name: {unnamed}"
        for details in t.find_all("#tiles .add-reading"):
            t.click(t.find("summary", details))

        def shoot(look):
            t.js("window.scrollTo(0, 0)")
            t.screenshot(f"summary-estrella-{look}", full=False)
            t.screenshot(f"summary-estrella-{look}-full", full=True)
        each_look(t, shoot)

        # The timeline's views are one click away, and the Summary one click back.
        before = t.renders()
        t.click(t.find('.view-button[data-view="year"]'))
        t.wait_rendered("#/year", "Estrella Daugherty", after=before)
        assert t.find("#timeline-layout").is_displayed() and not t.find("#summary-view").is_displayed()
        assert t.find("#stepper").is_displayed()
        t.click(t.find('.view-button[data-view="summary"]'))
        t.wait_rendered("#/summary", "Estrella Daugherty")
        assert t.find("#summary-view").is_displayed() and tile_order(t) == [m["id"] for m in api["modules"]]

        # A module the app does not know: its name, its message and its data, all as text.
        script = t.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FUTURE_SUMMARY.replace("MODULE", json.dumps(FUTURE_MODULE))})
        t.open("#/summary", "Estrella Daugherty")
        assert tile_order(t)[-1] == "sleep-log", tile_order(t)
        future = tile_of(t, "sleep-log")
        assert t.find("h3", future).text == "Sleep <b>log</b>"
        assert tile_message(t, "sleep-log") == FUTURE_MODULE["message"]
        body = t.find(".tile-body", future).text
        for words in ("average hours", "6.5", "goal", "8", "nights", "7", "Nov 14, 2023"):
            assert words in body, f"{words!r} in {body!r}"
        assert not t.find_all("#tiles img, #tiles b"), "no element of the module's text"
        assert t.js("return window.__pwned === undefined")
        t.js("arguments[0].scrollIntoView({block: 'center'})", future)
        t.screenshot("summary-future-module-desktop-light", full=False)
    finally:
        if script:
            t.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        for patient in t.daemon.api("/patients.json")["patients"]:
            if patient["id"] not in known:
                t.daemon.request("DELETE", f"/patients/{patient['id']}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})


def add_reading(t, module_id, values, choose=None):
    """Opens the tile's "Add a reading", fills it (name → value; select fields by value) and submits it."""
    tile = tile_of(t, module_id)
    details = t.find(".add-reading", tile)
    if details.get_attribute("open") is None:
        t.click(t.find("summary", details))
    if choose:
        t.click([label for label in t.find_all(".kind-choice .choice", details) if label.text == choose][0])
    for name, value in values.items():
        field = t.find(f'[name="{name}"]', details)
        assert field.is_displayed(), f"the {name} field is shown"
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    t.click(t.find('button[type="submit"]', details))
    return details


def test_blood_pressure_reading_added_from_its_tile(t):
    """185/100 added in Henry's blood-pressure tile: the tile's latest value, category (severe) and message
    (contact a clinician) change to what summary.json says, marked as his own; a reading with the diastolic
    above the systolic is refused with the daemon's message and changes nothing. The Day view then charts
    the reading as his own (a diamond, said in the chart's text) and lists it; its details change its note
    (PUT) and delete it after a confirmation (DELETE). The weight tile takes a weight or a height."""
    t.open("#/summary")  # signed in: the store is unlocked
    remove_readings(t, t.henry)
    t.daemon.request("POST", "/patients/current", {"id": t.henry})
    t.allowed_console = ["/readings - Failed to load resource: the server responded with a status of 400"]
    try:
        t.open("#/summary", t.henry)
        before = summary_api(t, t.henry)
        old = module_of(before, "blood-pressure")
        assert old["accepts"] == ["blood_pressure"], old["accepts"]
        tile = tile_of(t, "blood-pressure")
        details = t.find(".add-reading", tile)
        assert t.find("summary", details).text.startswith("Add a reading")
        t.click(t.find("summary", details))
        for name in ("systolic", "diastolic", "date", "note"):
            field = t.find(f'[name="{name}"]', details)
            assert field.is_displayed() and t.find(f'label[for="{field.get_attribute("id")}"]', details).text, f"{name} is shown and labelled"
        assert t.find('[name="date"]', details).get_attribute("value") == time.strftime("%Y-%m-%d", time.gmtime()), "the day defaults to today"

        # Refused: the diastolic above the systolic. The daemon's message, and nothing stored.
        renders = t.renders()
        add_reading(t, "blood-pressure", {"systolic": "120", "diastolic": "130"})
        error = wait_until(lambda: t.find(".form-error", tile_of(t, "blood-pressure")).text, message="the daemon's refusal")
        assert error == "Not saved: The diastolic pressure must be below the systolic.", error
        assert t.daemon.api(f"/patients/{t.henry}/readings.json")["readings"] == []
        assert t.renders() == renders and tile_message(t, "blood-pressure") == old["message"], "the tile is unchanged"
        t.js("arguments[0].scrollIntoView({block: 'center'})", tile_of(t, "blood-pressure"))
        t.screenshot("summary-reading-refused-desktop-light", full=False)

        # 185/100: severe, and the message says to contact a clinician.
        add_reading(t, "blood-pressure", {"systolic": "185", "diastolic": "100", "note": "after climbing stairs"})
        t.wait_rendered("#/summary", t.henry, after=renders)
        stored = t.daemon.api(f"/patients/{t.henry}/readings.json")["readings"]
        assert [(r["kind"], r["systolic"], r["diastolic"], r["note"]) for r in stored] == [("blood_pressure", 185, 100, "after climbing stairs")], stored
        api = module_of(summary_api(t, t.henry), "blood-pressure")
        assert api["tile"]["category"] == "severe" and api["tile"]["latest"]["self_reported"] is True, api["tile"]
        tile = tile_of(t, "blood-pressure")
        latest = t.find('.tile-latest[data-field="latest"]', tile)
        assert t.find(".tile-value", latest).text == "185/100", latest.text
        badge = t.find(".badge.category", latest)
        assert badge.get_attribute("data-category") == "severe" and badge.text.startswith("Severe"), badge.text
        assert t.find(".you-tag", latest).get_attribute("textContent") == "you(your own reading, self-reported)", "marked as his own, in words too"
        message = tile_message(t, "blood-pressure")
        assert message == api["message"] and message != old["message"], message
        assert "contact a clinician" in message, message
        saved = t.find(".tile-status", tile)
        assert saved.text == "Saved your reading: blood pressure 185/100 mmHg.", saved.text
        assert t.driver.switch_to.active_element == saved, "the keyboard lands on what was said"
        mine = t.find_all(".tile-chart .chart-dot.mine", tile)
        assert len(mine) == 2, "his reading is a diamond on both lines"
        assert "(your own reading)" in t.find("title", mine[0]).get_attribute("textContent")
        assert "1 of them is your own reading" in t.find(".tile-chart svg", tile).get_attribute("aria-label")
        t.js("arguments[0].scrollIntoView({block: 'center'})", tile)
        t.screenshot("summary-reading-added-desktop-light", full=False)

        # The weight tile takes a weight or a height: the person picks which (here a weight in pounds).
        weight = tile_of(t, "weight-bmi")
        t.click(t.find(".add-reading > summary", weight))
        assert t.find('[name="weight-value"]', weight).is_displayed() and not t.find('[name="height-value"]', weight).is_displayed()
        assert [o.get_attribute("value") for o in Select(t.find('[name="weight-unit"]', weight)).options] == ["kg", "lb"]
        t.click([label for label in t.find_all(".kind-choice .choice", weight) if label.text == "Height"][0])
        assert t.find('[name="height-value"]', weight).is_displayed() and not t.find('[name="weight-value"]', weight).is_displayed()
        assert [o.get_attribute("value") for o in Select(t.find('[name="height-unit"]', weight)).options] == ["cm", "in"]
        renders = t.renders()
        add_reading(t, "weight-bmi", {"weight-value": "176", "weight-unit": "lb"}, choose="Weight")
        t.wait_rendered("#/summary", t.henry, after=renders)
        weights = [r for r in t.daemon.api(f"/patients/{t.henry}/readings.json")["readings"] if r["kind"] == "weight"]
        assert [(r["value"], r["unit"]) for r in weights] == [(176, "lb")], weights
        api = module_of(summary_api(t, t.henry), "weight-bmi")
        assert t.find('[data-field="weight"] .tile-value', tile_of(t, "weight-bmi")).text == f"{api['tile']['latest']['weight']:g} kg"
        assert tile_message(t, "weight-bmi") == api["message"]

        # The Day view: the reading charted as his own and listed under the charts.
        renders = t.renders()
        t.click(t.find('.view-button[data-view="day"]'))
        t.wait_rendered("#/day", t.henry, after=renders)
        chart = t.find('#vitals .chart[data-title="Blood pressure"]')
        assert t.find(".latest .value", chart).text == "185/100"
        diamonds = t.find_all(".chart-dot.mine", chart)
        assert len(diamonds) == 2 and all("(your own reading)" in t.find("title", d).get_attribute("textContent") for d in diamonds)
        assert "It is your own reading." in t.find("svg", chart).get_attribute("aria-label"), t.find("svg", chart).get_attribute("aria-label")
        assert "your own reading" in t.find(".legend", chart).text
        reading_id = stored[0]["id"]
        row = t.find(f'#own-readings .reading-row[data-id="{reading_id}"]')
        assert "Blood pressure" in row.text and "185/100 mmHg" in row.text and t.find_all(".you-tag", row), row.text
        t.js("document.getElementById('vitals-heading').scrollIntoView()")
        t.screenshot("day-own-reading-desktop-light", full=False)

        # Its details: Edit (the note) and Delete (after a confirmation).
        t.click(row)
        wait_until(lambda: t.find("#details").is_displayed() and t.text("#details-title") == "Blood pressure", message="the reading's details")
        body = t.text("#details-body")
        assert "Your own reading (self-reported)" in body and "185/100 mmHg" in body and "after climbing stairs" in body, body
        t.click(t.find('#details [data-action="edit"]'))
        note = t.find("#reading-edit-note")
        assert note.get_attribute("value") == "after climbing stairs" and t.find("#reading-edit-systolic").get_attribute("value") == "185"
        note.clear()
        note.send_keys("after climbing two flights of stairs")
        t.click(t.find('#details .reading-form button[type="submit"]'))
        wait_until(lambda: "Saved at" in t.text("#details-body"), message="the change saved")
        changed = t.daemon.api(f"/readings/{reading_id}")["reading"]
        assert changed["note"] == "after climbing two flights of stairs" and changed["date"] == stored[0]["date"], changed
        assert changed["systolic"] == 185 and changed["diastolic"] == 100, changed
        delete = t.find('#details [data-action="delete"]')
        t.click(delete)
        confirm = t.find("#reading-confirm")
        wait_until(confirm.is_displayed, message="the confirmation")
        assert "Delete your reading of 185/100 mmHg" in confirm.text and "cannot be undone" in confirm.text, confirm.text
        assert t.driver.switch_to.active_element.text == "Cancel", "Cancel has the focus, not Delete"
        t.screenshot("day-own-reading-delete-desktop-light", full=False)
        t.click(t.find('[data-action="cancel"]', confirm))
        assert not confirm.is_displayed() and t.daemon.request("GET", f"/readings/{reading_id}")[0] == 200, "Cancel deleted nothing"
        renders = t.renders()
        t.click(delete)
        t.click(t.find('[data-action="confirm-delete"]', confirm))
        wait_until(lambda: not t.find("#details").is_displayed(), message="the details to close")
        t.wait_rendered("#/day", t.henry, after=renders)
        assert t.daemon.request("GET", f"/readings/{reading_id}")[0] == 404
        assert not t.find_all(f'#own-readings .reading-row[data-id="{reading_id}"]')
        assert t.driver.switch_to.active_element.tag_name != "body", "the keyboard is not lost"

        # Back on the Summary: the latest is the record's again.
        t.click(t.find('.view-button[data-view="summary"]'))
        t.wait_rendered("#/summary", t.henry)
        assert tile_message(t, "blood-pressure") == old["message"]
    finally:
        remove_readings(t, t.henry)


def open_choose_tiles(t):
    button = t.find("#choose-tiles")
    t.js("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    dialog = t.find("#modules")
    wait_until(dialog.is_displayed, message="Choose tiles")
    wait_until(lambda: t.find_all("#modules-list .module-row") and t.find("#modules-list").get_attribute("aria-busy") == "false",
               message="the modules")
    return dialog


def module_rows(t):
    return [(row.get_attribute("data-module"), t.find('input[type="checkbox"]', row).is_selected()) for row in t.find_all("#modules-list .module-row")]


def test_modules_reordered_and_hidden(t):
    """Choose tiles lists every module with a checkbox and Move up / Move down (labelled, reached and pressed
    from the keyboard): one hidden and another moved up, Save shows the summary in the new order (and GET
    /patients/{id}/modules agrees, also after a reload); Back to defaults restores the daemon's order."""
    t.open("#/summary")  # signed in: the store is unlocked
    t.daemon.request("PUT", f"/patients/{t.henry}/modules", {"modules": None})
    t.daemon.request("POST", "/patients/current", {"id": t.henry})
    try:
        t.open("#/summary", t.henry)
        data = t.daemon.api(f"/patients/{t.henry}/modules")
        defaults = data["modules"]
        assert data["chosen"] is False and tile_order(t) == defaults, (tile_order(t), defaults)
        assert {m["id"] for m in data["available"]} == set(defaults), "every module shown by default"
        dialog = open_choose_tiles(t)
        assert t.driver.switch_to.active_element.get_attribute("aria-label") == "Close Choose tiles", "the focus is in the panel"
        assert module_rows(t) == [(m, True) for m in defaults], module_rows(t)
        for module in data["available"]:
            row = t.find(f'#modules-list .module-row[data-module="{module["id"]}"]')
            box = t.find('input[type="checkbox"]', row)
            assert t.find(f'label[for="{box.get_attribute("id")}"]', row).text.startswith(module["name"]), "each checkbox named by its module"
            assert module["description"] in row.text
            for action, words in (("up", "Move up"), ("down", "Move down")):
                button = t.find(f'[data-action="{action}"]', row)
                assert button.get_attribute("textContent").endswith(f"{words} {module['name']}"), button.get_attribute("textContent")
        first = t.find_all("#modules-list .module-row")[0]
        assert t.find('[data-action="up"]', first).get_attribute("disabled") is not None, "the first cannot move up"

        # Hide cholesterol (the keyboard's space on its checkbox); move blood pressure up (Enter on its button).
        hidden, moved = "cholesterol", "blood-pressure"
        box = t.find(f'#modules-list .module-row[data-module="{hidden}"] input[type="checkbox"]')
        t.js("arguments[0].focus()", box)
        box.send_keys(Keys.SPACE)
        assert (hidden, False) in module_rows(t), module_rows(t)
        up = t.find(f'#modules-list .module-row[data-module="{moved}"] [data-action="up"]')
        t.js("arguments[0].focus()", up)
        up.send_keys(Keys.ENTER)
        focused = t.driver.switch_to.active_element
        assert focused.get_attribute("data-action") == "up" and t.js("return arguments[0].closest('.module-row').dataset.module", focused) == moved, \
            "the keyboard stays on the button moved"
        place = defaults.index(moved)
        assert t.text("#modules-status") == f"Blood pressure moved up, to place {place} of {len(defaults)}.", t.text("#modules-status")
        expected = list(defaults)
        expected.insert(place - 1, expected.pop(place))
        assert [m for m, _ in module_rows(t)] == expected, module_rows(t)
        t.screenshot("modules-panel-desktop-light", full=False)
        shown = [m for m in expected if m != hidden]
        renders = t.renders()
        t.click(t.find("#modules-save"))
        wait_until(lambda: not dialog.is_displayed(), message="the panel to close")
        t.wait_rendered("#/summary", t.henry, after=renders)
        assert tile_order(t) == shown, (tile_order(t), shown)
        assert t.text("#status") == f"Saved: the summary shows {len(shown)} tiles in the order chosen.", t.text("#status")
        assert t.driver.switch_to.active_element.get_attribute("id") == "choose-tiles", "the focus returns to Choose tiles"
        data = t.daemon.api(f"/patients/{t.henry}/modules")
        assert data["modules"] == shown and data["chosen"] is True, data
        assert [m["id"] for m in summary_api(t, t.henry)["modules"]] == shown
        t.screenshot("modules-saved-desktop-light", full=False)
        # After a reload too; the panel lists the hidden one last, unticked.
        t.open("#/summary", t.henry)
        assert tile_order(t) == shown
        dialog = open_choose_tiles(t)
        assert module_rows(t) == [(m, True) for m in shown] + [(hidden, False)], module_rows(t)
        try:
            t.browser.viewport(390, 844)
            time.sleep(0.3)
            width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", dialog)
            assert width[0] <= width[1] + 1, f"Choose tiles scrolls sideways on a phone: {width}"
            t.screenshot("modules-panel-phone-light", full=False)
        finally:
            t.browser.viewport(1280, 900)

        # Back to defaults: the daemon's tiles in its order.
        renders = t.renders()
        t.click(t.find("#modules-defaults"))
        wait_until(lambda: not dialog.is_displayed(), message="the panel to close")
        t.wait_rendered("#/summary", t.henry, after=renders)
        assert tile_order(t) == defaults, tile_order(t)
        assert t.text("#status") == "The summary shows the default tiles again."
        data = t.daemon.api(f"/patients/{t.henry}/modules")
        assert data["modules"] == defaults and data["chosen"] is False, data
    finally:
        t.daemon.request("PUT", f"/patients/{t.henry}/modules", {"modules": None})


def poppler_tools(t):
    """pdftoppm and pdftotext (Debian's poppler-utils), installed with apt-get when missing and run as root."""
    if shutil.which("pdftoppm") and shutil.which("pdftotext"):
        return
    if os.geteuid() != 0:
        raise Skip("pdftoppm and pdftotext are missing (Debian's poppler-utils): install them with apt-get install poppler-utils")
    result = subprocess.run(["apt-get", "install", "-y", "-q", "poppler-utils"], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if result.returncode != 0 or not shutil.which("pdftoppm"):
        raise Skip(f"could not install poppler-utils with apt-get: {result.stderr.strip()[-300:]}")


def print_to_pdf(t, name, width, height):
    """The page printed to PDF by Chromium (print media), its pages as PNGs at 60 dpi; (text, [png paths])."""
    pdf = t.driver.execute_cdp_cmd("Page.printToPDF", {"paperWidth": width, "paperHeight": height, "printBackground": False})
    path = t.shots / f"{name}.pdf"
    path.write_bytes(base64.b64decode(pdf["data"]))
    for old in t.shots.glob(f"{name}-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(path), str(t.shots / name)], check=True, timeout=60)
    # In reading order (not -layout, which puts a wrapped cell's lines between the other columns' words).
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True, timeout=60).stdout
    return text, sorted(t.shots.glob(f"{name}-*.png"))


def test_summary_printed_to_pdf(t):
    """Print for a doctor: the button calls window.print(); printed (Chromium's Page.printToPDF, A4 and
    Letter) the summary of Eve Betterhalf (HL7's CCD, with her own dose and directions on a medication)
    is one or two pages holding her name, birth date and age, the day printed, a problem, her medications
    with her own dose and directions, her allergies with reaction and severity, her blood pressure with its
    category and her vaccines, and none of the app's buttons, forms or navigation. On paper it is black
    on white, even in dark mode."""
    poppler_tools(t)
    path = ccda_sample(CCD)
    t.open("#/summary")  # signed in: the store is unlocked
    known = {p["id"] for p in t.daemon.api("/patients.json")["patients"]}
    try:
        eve = [p["id"] for p in upload_file(t, path)["patients"] if p.get("id")][0]
        api = summary_api(t, eve)
        atenolol = [m for m in module_of(api, "medications")["tile"]["active"] if m["description"].startswith("atenolol")][0]
        status, _ = t.daemon.request("PUT", f"/patients/{eve}/entries/{atenolol['id']}/annotation",
                                     {"note": "Takes it with breakfast", "medication": {"dose": "half a tablet", "directions": "every 12 hours, with food"}})
        assert status == 200, status
        api = summary_api(t, eve)
        t.daemon.request("POST", "/patients/current", {"id": eve})
        t.open("#/summary", "Eve Betterhalf")
        tile = tile_of(t, "medications")
        assert "dose half a tablet" in tile.text and "Takes it with breakfast" in tile.text, tile.text

        # The button prints (window.print, counted here in place of the browser's print dialog).
        t.js("window.__printed = 0; window.print = () => { window.__printed += 1; };")
        button = t.find("#print-summary")
        assert button.text == "Print for a doctor"
        t.click(button)
        assert t.js("return window.__printed") == 1, "Print for a doctor calls window.print()"

        # Print media, dark or not: black on white, the sheet shown, the app's controls gone.
        t.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print", "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        looks = t.js("""const c = (sel, p) => { const e = document.querySelector(sel); return e ? getComputedStyle(e)[p] : null; };
            return {ink: c('#print-sheet h1', 'color'), paper: c('body', 'backgroundColor'), sheet: c('#print-sheet', 'display'),
                    tiles: c('#tiles', 'display'), topbar: c('.topbar', 'display'), controls: c('.window-controls', 'display')};""")
        assert looks == {"ink": "rgb(0, 0, 0)", "paper": "rgb(255, 255, 255)", "sheet": "block", "tiles": "none", "topbar": "none", "controls": "none"}, looks
        t.browser.viewport(1280, 900)

        birth = api["patient"]["birthdate"]
        today = time.strftime("%b %-d, %Y", time.localtime())
        expected = ["Eve Betterhalf", f"Born {time.strftime('%b %-d, %Y', time.gmtime(birth))}", f"{int(api['patient']['age'])} years", "Female",
                    f"Printed {today}", "Angina", "Chest pain", "atenolol 25 MG Oral Tablet", "half a tablet", "every 12 hours, with food",
                    "Takes it with breakfast", "albuterol", "Penicillin", "Nausea", "Mild", "codeine", "Wheezing", "Moderate",
                    "132/88 mmHg", "Stage 1 hypertension", "86 kg", "27.5", "Overweight", "hepatitis B vaccine", "Aug 1, 2013"]
        for paper, (width, height) in {"a4": (8.27, 11.69), "letter": (8.5, 11)}.items():
            text, pages = print_to_pdf(t, f"summary-print-eve-{paper}", width, height)
            flat = " ".join(text.split())
            assert 1 <= len(pages) <= 2, f"{paper}: {len(pages)} pages"
            for words in expected:
                assert words in flat, f"{paper}: {words!r} on paper: {flat[:2000]}"
            for words in ["Add a reading", "Print for a doctor", "Choose tiles", "Save reading", "Sign out", "Download record",
                          "Day Week Month", "Search this record", "Add records"]:
                assert words not in flat, f"{paper}: {words!r} (the app's controls) on paper"
            # Each page has more than a header: the last page holds at least one of the sections.
            last = " ".join(subprocess.run(["pdftotext", "-f", str(len(pages)), "-l", str(len(pages)), str(t.shots / f"summary-print-eve-{paper}.pdf"), "-"],
                                           capture_output=True, text=True, check=True).stdout.split())
            assert len(last) > 200, f"{paper}: the last page is almost empty: {last!r}"
        print(f"  printed: A4 and Letter, pages in {t.shots}/summary-print-eve-*.png")
    finally:
        t.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
        t.browser.viewport(1280, 900)
        for patient in t.daemon.api("/patients.json")["patients"]:
            if patient["id"] not in known:
                t.daemon.request("DELETE", f"/patients/{patient['id']}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})


def test_share_downloads_an_ips(t):
    """Share, beside Print for a doctor: the dialog lists the documents' sections (the required three checked
    and fixed), a section unchecked leaves the download's URL; Download IPS saves an International Patient
    Summary whose JSON is a FHIR document Bundle with its Composition's sections in the documents' order,
    without the one left out. The printed sheet names its sections as the documents do, in the same order."""
    t.open("#/summary")
    downloads = t.daemon.work / "share-downloads"
    downloads.mkdir(exist_ok=True)
    t.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    button = t.find("#share-summary")
    assert button.text == "Share"
    t.click(button)
    dialog = t.find("#share")
    wait_until(lambda: dialog.get_attribute("open") is not None, timeout=5, message="the Share dialog to open")
    boxes = t.driver.find_elements(By.CSS_SELECTOR, "#share-sections input[type=checkbox]")
    names = [b.get_attribute("value") for b in boxes]
    assert names == ["problems", "allergies", "medications", "immunizations", "results", "vital-signs", "procedures", "devices",
                     "past-illness", "plan-of-care"], names
    assert [b.get_attribute("value") for b in boxes if not b.is_enabled()] == ["problems", "allergies", "medications"]
    t.screenshot("share-dialog", full=False)
    t.click(boxes[names.index("immunizations")])
    link = t.find("#share-ips")
    assert "sections=" in link.get_attribute("href") and "immunizations" not in link.get_attribute("href"), link.get_attribute("href")
    t.click(link)
    wait_until(lambda: any(p.name.endswith(".ips.json") for p in downloads.iterdir()), timeout=20, message="the downloaded IPS")
    saved = next(p for p in downloads.iterdir() if p.name.endswith(".ips.json"))
    bundle = json.loads(saved.read_text())
    assert bundle["resourceType"] == "Bundle" and bundle["type"] == "document", bundle.get("type")
    composition = bundle["entry"][0]["resource"]
    assert composition["resourceType"] == "Composition"
    titles = [s["title"] for s in composition["section"]]
    order = ["Problems", "Allergies and intolerances", "Medications", "Immunizations", "Results", "Vital signs", "Procedures",
             "Medical devices", "History of past illness", "Plan of care"]
    assert titles[:3] == order[:3] and titles == [o for o in order if o in titles], titles
    assert "Immunizations" not in titles, titles
    urls = {e["fullUrl"] for e in bundle["entry"]}
    entries = [r["reference"] for s in composition["section"] for r in s["entry"]]
    assert entries and all(r in urls for r in entries), "every section entry is in the Bundle"
    print(f"  IPS downloaded: {len(titles)} sections, {len(entries)} section entries, {saved.stat().st_size} bytes")
    t.js("document.querySelector('#share [data-close]').click()")
    # On paper, the same names in the same order.
    printed = t.js("return [...document.querySelectorAll('#print-sheet h2')].map((h) => h.textContent.split(' (')[0])")
    shared = [name for name in printed if name in order]
    assert shared and shared == [o for o in order if o in shared], printed
# ---- What the source said about a result; a person who has died (issue 38) ----

def ruth_elder_bundle():
    """A FHIR bundle of a woman born 1937-03-01 who died 2019-05-14 (aged 82): three glucose results with the
    lab's range 70–99 mg/dL, two of them high (one flagged H by the lab, one only above the range), an active
    medication and condition."""
    subject = {"reference": "Patient/ruth"}
    glucose = {"coding": [{"system": "http://loinc.org", "code": "2345-7", "display": "Glucose"}], "text": "Glucose"}
    high = {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", "code": "H", "display": "High"}]}
    def result(i, day, value, flag=None):
        resource = {"resourceType": "Observation", "id": f"glu{i}", "status": "final", "subject": subject, "code": glucose,
                    "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category", "code": "laboratory"}]}],
                    "effectiveDateTime": day, "valueQuantity": {"value": value, "unit": "mg/dL"},
                    "referenceRange": [{"low": {"value": 70, "unit": "mg/dL"}, "high": {"value": 99, "unit": "mg/dL"}}]}
        if flag:
            resource["interpretation"] = [flag]
        return resource
    resources = [
        {"resourceType": "Patient", "id": "ruth", "identifier": [{"system": "urn:test:issue38", "value": "ruth"}],
         "name": [{"given": ["Ruth"], "family": "Elder"}], "gender": "female", "birthDate": "1937-03-01",
         "deceasedDateTime": "2019-05-14"},
        result(1, "2018-03-01T09:00:00Z", 92),
        result(2, "2018-09-01T09:00:00Z", 118, high),
        result(3, "2019-02-01T09:00:00Z", 104),
        {"resourceType": "MedicationRequest", "id": "med1", "status": "active", "intent": "order", "subject": subject,
         "medicationCodeableConcept": {"text": "Lisinopril 10 MG Oral Tablet"}, "authoredOn": "2016-01-10"},
        {"resourceType": "Condition", "id": "cond1", "subject": subject, "code": {"text": "Type 2 diabetes"},
         "clinicalStatus": {"coding": [{"code": "active"}]}, "onsetDateTime": "2015-06-01"},
    ]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"fullUrl": f"urn:uuid:{r['id']}", "resource": r} for r in resources]}


def test_out_of_range_results_and_a_person_who_died(t):
    """Ruth Elder died on May 14, 2019, aged 82: the header says so (not her age today); her glucose
    results carry the lab's range: the two high ones are flagged High in the list and in their details
    (with the normal range), and the chart shades the normal band and rings the two. Her Summary says she
    died, gives no advice and offers no form to add a reading; the printed sheet says she died. Her timeline
    does not ask how she feels or whether she took her medications; Henry's, after, does."""
    path = t.daemon.work / "ruth-elder.json"
    path.write_text(json.dumps(ruth_elder_bundle()))
    known = {p["id"] for p in t.daemon.api("/patients.json")["patients"]}
    try:
        ruth = [p["id"] for p in upload_file(t, path)["patients"] if p.get("id")][0]
        listed = [p for p in t.daemon.api("/patients.json")["patients"] if p["id"] == ruth][0]
        assert listed["deceased"] is True and listed["deceased_date"] is not None, listed
        t.daemon.request("POST", "/patients/current", {"id": ruth})
        t.open("#/decade/2019-06-01", "Ruth Elder")
        meta = t.text("#person-meta")
        assert "died May 14, 2019, aged 82" in meta, meta
        assert "years old" not in meta, meta
        # No "How do you feel?" and no "Did you take them as directed?" for a person who has died.
        assert not t.find("#levels-form").is_displayed(), "no levels form for a person who has died"
        assert not t.find("#regimen-form").is_displayed(), "no medication questions for a person who has died"

        # The chart: the normal band shaded, the two high results ringed, both said in words.
        chart = t.find('#labs .chart[data-title="Glucose"]')
        assert t.find_all("rect.chart-band", chart), "the normal band is shaded"
        assert len(t.find_all("circle.chart-out", chart)) == 2, "the two high results are ringed"
        label = t.find("svg", chart).get_attribute("aria-label")
        assert "Normal range 70–99 mg/dL" in label and "2 results outside the normal range" in label, label
        assert "normal range 70–99 mg/dL" in t.find(".range-key", chart).text, t.find(".range-key", chart).text
        t.js("arguments[0].scrollIntoView({block: 'center'})", chart)
        t.screenshot("result-range-chart-desktop-light", full=False)

        # The list: the results group, the high ones flagged.
        group = t.find('#entry-lists details[data-type="result"]')
        if group.get_attribute("open") is None:
            t.click(t.find("summary", group))
        # The rows are filled when the group opens (its toggle event).
        rows = wait_until(lambda: (lambda r: len(r) == 3 and r)(t.find_all(".entry-row", group)), message="the results' rows")
        flags = [[f.text for f in t.find_all(".flag-tag", row)] for row in rows]
        assert flags == [[], ["High"], ["High"]], flags
        t.click(rows[2])
        wait_until(lambda: t.find("#details").is_displayed(), message="the result's details")
        body = t.text("#details-body")
        assert "104 mg/dL" in body and "High" in body and "Normal range" in body and "70–99 mg/dL" in body, body
        assert "Above the normal range" in body, body
        t.screenshot("result-range-details-desktop-light", full=False)
        close_details(t)

        # The Summary: she died; no advice, no forms; on paper too.
        t.open("#/summary", "Ruth Elder")
        note = t.text("#tiles .deceased-note")
        assert "Ruth Elder died on May 14, 2019, aged 82" in note, note
        assert not t.find_all("#tiles .add-reading"), "no form to add a reading for a person who has died"
        assert not re.search(r"\bnull\b", t.text("#tiles")), "a tile without a reading prints no null"
        assert not re.search(r"\byet\b", t.text("#tiles")), "nothing is awaited 'yet' of a person who has died"
        for module in summary_api(t, ruth)["modules"]:
            assert "clinician" not in module["message"] and "Add " not in module["message"], module["message"]
        assert "in the record when they died" in tile_message(t, "medications"), tile_message(t, "medications")
        lab = t.text('#tiles .tile[data-module="blood-sugar"] [data-field="glucose-lab"]')
        assert "The lab’s range: 70–99 mg/dL" in lab and "High" in lab, lab
        glucose = t.text('#tiles .tile[data-module="blood-sugar"] [data-field="glucose"]')
        assert "Not classified" not in glucose, "the lab's High is not contradicted by 'Not classified'"
        sheet = t.find("#print-sheet").get_attribute("textContent")
        assert "Died May 14, 2019" in sheet and "aged 82" in sheet and "Ruth Elder died on May 14, 2019" in sheet, sheet[:600]
        t.js("window.scrollTo(0, 0)")
        t.screenshot("summary-deceased-desktop-light", full=False)
    finally:
        for patient in t.daemon.api("/patients.json")["patients"]:
            if patient["id"] not in known:
                t.daemon.request("DELETE", f"/patients/{patient['id']}")
        t.daemon.request("POST", "/patients/current", {"id": t.henry})
    t.open("#/decade/2011-01-01", t.henry)
    assert t.find("#levels-form").is_displayed(), "a living person's timeline asks how they feel"


# ---- Backups & activity: the daemon's backups (the harness gives it a folder) and the audit trail ----

# A token whose name is markup: the trail names it (who created it, who used it), as text.
MARKUP_TOKEN = '<img src=x onerror="window.__pwned = 3">'


def open_backups(t):
    """Opens Backups & activity from the Imports card with the keyboard; returns the dialog once the
    backups and the first page of the activity are drawn."""
    button = t.find("#backups-button")
    t.js("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", button)
    button.send_keys(Keys.ENTER)
    dialog = t.find("#backups")
    wait_until(dialog.is_displayed, message="the Backups & activity panel")
    assert t.driver.switch_to.active_element.get_attribute("aria-label") == "Close Backups & activity", "the focus is in the panel"
    wait_until(lambda: t.find("#backups-info").get_attribute("aria-busy") is None and t.find("#backups-info").text,
               message="the backups")
    wait_activity(t)
    return dialog


def close_backups(t):
    ActionChains(t.driver).send_keys(Keys.ESCAPE).perform()
    wait_until(lambda: not t.find("#backups").is_displayed(), message="Escape to close Backups & activity")


def wait_activity(t):
    wait_until(lambda: t.find("#activity-table").get_attribute("aria-busy") is None
               and t.find("#activity-status").get_attribute("textContent") != "Loading…", message="the activity")


def activity_rows(t):
    """The rows of the Activity table as the page has them (text as text)."""
    return t.js("""return [...document.querySelectorAll('#activity-rows tr')].map((tr) => {
        const cell = (label) => tr.querySelector(`td[data-label="${label}"]`);
        const person = cell('Person').querySelector('[data-patient]');
        return {id: tr.dataset.id, action: tr.dataset.action, when: cell('When').textContent, what: cell('What').textContent,
                who: cell('Who').textContent, actor: cell('Who').querySelector('[data-actor]')?.dataset.actor ?? null,
                person: cell('Person').textContent, patient: person ? person.dataset.patient : null,
                detail: cell('Detail').textContent, elements: tr.querySelectorAll('img, script, b').length};
      });""")


def older_until(t, predicate, pages=20):
    """Presses Older until a row satisfies predicate (or there is no older page); the rows then."""
    for _ in range(pages):
        rows = activity_rows(t)
        if any(predicate(r) for r in rows) or not t.find("#activity-older").is_displayed():
            return rows
        count = len(rows)
        t.click(t.find("#activity-older"))
        wait_until(lambda: len(activity_rows(t)) > count and t.find("#activity-older").get_attribute("disabled") is None,
                   message="an older page")
    return activity_rows(t)


def audit_events(t, action):
    """Every event of this action from GET /audit.json, newest first, page after page."""
    events, cursor = [], None
    while True:
        data = t.daemon.api(f"/audit.json?action={action}&limit=500" + (f"&cursor={cursor}" if cursor else ""))
        events += data["events"]
        cursor = data["next_cursor"]
        if not cursor:
            return events


def token_request(t, token, path):
    conn = http.client.HTTPConnection("127.0.0.1", t.daemon.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


FAKE_BACKUPS = """
(() => {
  const data = DATA;
  const realFetch = window.fetch.bind(window);
  window.fetch = async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.href);
    const json = (body, status) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
    if (url.origin === location.origin && url.pathname === '/backups.json') return json(data.list, 200);
    if (url.origin === location.origin && url.pathname === '/backups' && init.method === 'POST') return json(data.post, data.post_status);
    return realFetch(input, init);
  };
})();
"""


def test_backups_and_activity(t):
    """Backups & activity, opened from the Imports card: the daemon takes backups (the harness starts it
    with --backup-dir), Back up now writes a file that the list shows with its size and the last attempt
    is OK; the Activity table holds that backup and the sign-ins, a record downloaded in the app is an
    export named by the person's name, and filtered by Export (paged with Older) it shows exactly the
    exports of the trail. A token named with markup is shown as text. Without backups the panel says how
    to turn them on; a failed backup says why."""
    folder = t.daemon.backup_dir
    on_disk = lambda: {p.name: p.stat().st_size for p in folder.iterdir() if p.is_file()}  # noqa: E731
    before = on_disk()
    t.open("#/decade/2011-01-01")  # signed in: the store is unlocked
    t.daemon.request("POST", "/patients/current", {"id": t.henry})
    t.open("#/decade/2011-01-01", t.henry)
    summary = wait_until(lambda: t.find("#backups-summary").get_attribute("textContent"), message="the backups line in Imports")
    assert summary.startswith("Last backup") or summary.startswith("Backups are on"), summary
    # The button is under Imports, not in the header (which has no room for another).
    try:
        t.browser.viewport(390, 844, dark=True)
        time.sleep(0.3)
        t.js("document.getElementById('backups-button').scrollIntoView({block: 'center'})")
        t.screenshot("backups-button-phone-dark", full=False)
    finally:
        t.browser.viewport(1280, 900)
    dialog = open_backups(t)
    assert t.text("#backups-title") == "Backups & activity"
    assert t.text("#backups-state") == "On"
    assert t.find('#backups-info [data-field="directory"]').text == str(folder)
    facts = t.text("#backups-info")
    assert "A backup every 24 hours, keeping the newest 7 backups" in facts, facts
    assert "Next backup" in facts, facts

    # Back up now: progress while it runs, then the result; the file is in the folder and in the list.
    now = t.find("#backup-now")
    t.click(now)
    wait_until(lambda: t.text("#backup-result").startswith("Backed up:") and now.is_enabled() and now.text == "Back up now",
               timeout=30, message="the backup to be taken")
    assert not t.find("#backup-progress").is_displayed(), "the progress bar goes once the backup is taken"
    new = {name: size for name, size in on_disk().items() if name not in before}
    assert len(new) == 1, f"one new file in {folder}: {on_disk()} (before {before})"
    name, size = next(iter(new.items()))
    assert name in t.text("#backup-result"), t.text("#backup-result")
    item = wait_until(lambda: t.find_all(f'#backup-files li[data-name="{name}"]'), message=f"{name} in the list")[0]
    listed_names = [li.get_attribute("data-name") for li in t.find_all("#backup-files li")]
    assert listed_names == sorted(on_disk(), reverse=True), f"the files in the folder, newest first: {listed_names} {on_disk()}"
    assert listed_names[0] == name, "the new file first"
    listed = t.daemon.api("/backups.json")
    assert {"name": name, "bytes": size} in listed["backups"], listed["backups"]
    shown_size = t.find(".backup-size", item).text
    assert re.fullmatch(r"[\d.,]+ (KB|MB)", shown_size), shown_size
    kib = size / 1024 if shown_size.endswith("KB") else size / 1024 / 1024
    assert abs(float(shown_size.split()[0].replace(",", "")) - kib) <= max(0.051, kib * 0.01), f"{shown_size} for {size} bytes"
    last = t.find('#backups-info [data-field="last"]')
    assert last.get_attribute("data-ok") == "true" and ": OK, " in last.text and name in last.text, last.text
    assert name in t.find('#backups-info [data-field="last-good"]').text
    assert listed["last"]["ok"] is True and listed["last"]["file"] == name
    assert t.find("#backups-summary").get_attribute("textContent").startswith("Last backup"), "the Imports line says so too"

    # Activity: the backup just taken and the sign-ins, newest first.
    wait_until(lambda: any(r["action"] == "backup" and name in r["detail"] for r in activity_rows(t)), message="the backup in the activity")
    rows = activity_rows(t)
    backup = [r for r in rows if r["action"] == "backup" and name in r["detail"]][0]
    # Asked for from the page: the audit trail names the session that asked.
    assert backup["what"] == "Backup" and backup["who"].startswith("Session ") and backup["person"] == "—", backup
    assert rows.index(backup) == 0, f"the newest first: {rows[:3]}"
    rows = older_until(t, lambda r: r["action"] == "sign_in")
    signed_in = [r for r in rows if r["action"] == "sign_in"]
    assert signed_in, f"a sign-in in the activity: {[r['action'] for r in rows]}"
    assert signed_in[0]["what"] == "Sign-in" and signed_in[0]["who"] == "From 127.0.0.1", signed_in[0]
    assert re.fullmatch(r"[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} (AM|PM)", rows[0]["when"]), rows[0]["when"]
    # A person the app knows is named; an id it does not know is shown as it is.
    names = {p["id"]: p["name"] for p in t.daemon.api("/patients.json")["patients"]}
    for row in rows:
        if row["patient"]:
            assert row["person"] == names.get(row["patient"], row["patient"]), row

    # What a person sees: a light desktop and a dark phone (the rows as blocks), nothing wider than the screen.
    def shoot(look):
        if look not in ("desktop-light", "phone-dark"):
            return
        panel = t.find("#backups")
        width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", panel)
        assert width[0] <= width[1] + 1, f"Backups & activity scrolls sideways at {look}: {width}"
        t.js("arguments[0].scrollTop = 0", panel)
        t.screenshot(f"backups-activity-{look}", full=False)
        t.js("document.getElementById('activity-heading').scrollIntoView({block: 'start'})")
        t.screenshot(f"backups-activity-table-{look}", full=False)
    each_look(t, shoot)
    close_backups(t)
    assert t.driver.switch_to.active_element.get_attribute("id") == "backups-button", "the focus returns to the button"

    # Exports: more than a page of them by a token named with markup, then the record downloaded in the app.
    created = t.daemon.run("token", "create", "--name", MARKUP_TOKEN)  # the token on stdout, its id on stderr
    token = created.stdout.strip().splitlines()[-1].strip()
    token_id = re.search(r"k_[0-9a-f]+", created.stderr + created.stdout).group()
    try:
        for _ in range(52):
            assert token_request(t, token, f"/patients/{t.nancy}/export.json") == 200
        downloads = t.daemon.work / "downloads"
        downloads.mkdir(exist_ok=True)
        t.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        link = t.find("#export-link")
        assert link.text == "Download record"
        exports = len(audit_events(t, "export"))
        t.click(link)
        wait_until(lambda: len(audit_events(t, "export")) == exports + 1, timeout=15, message="the download to be an export in the trail")
        wait_until(lambda: any(p.suffix == ".json" for p in downloads.iterdir()), timeout=15, message="the downloaded record")

        open_backups(t)
        select = Select(t.find("#activity-action"))
        assert select.first_selected_option.text == "Everything"
        labels = [o.text for o in select.options]
        for label in ("Sign-in", "Export", "Backup", "Failed backup", "Change to people"):
            assert label in labels, labels
        t.js("arguments[0].focus()", t.find("#activity-action"))
        select.select_by_value("export")
        wait_activity(t)
        rows = activity_rows(t)
        assert len(rows) == 50 and t.find("#activity-older").is_displayed(), f"a page of 50, then Older: {len(rows)}"
        assert "50 export events shown; older ones follow." in t.text("#activity-shown"), t.text("#activity-shown")
        mine = rows[0]
        assert mine["what"] == "Export" and mine["who"].startswith("Session ") and mine["actor"].startswith("session "), mine
        assert mine["patient"] == t.henry and mine["person"] == "Henry Smith", mine
        by_token = rows[1]
        assert by_token["who"] == f"Token {MARKUP_TOKEN}" and by_token["person"] == "Nancy Smith", by_token
        # Older: the next page, the keyboard on its first row; then no Older.
        older = t.find("#activity-older")
        t.js("arguments[0].focus()", older)
        older.send_keys(Keys.ENTER)
        wait_until(lambda: len(activity_rows(t)) > 50, message="the older exports")
        active = t.driver.switch_to.active_element
        assert active.tag_name == "tr" and active.get_attribute("data-id") == activity_rows(t)[50]["id"], "the first older row has the focus"
        rows = older_until(t, lambda r: False)
        assert not t.find("#activity-older").is_displayed()
        expected = audit_events(t, "export")
        assert [r["id"] for r in rows] == [str(e["id"]) for e in expected], "exactly the export rows, newest first"
        assert {r["action"] for r in rows} == {"export"} and {r["what"] for r in rows} == {"Export"}
        # The token's name in the trail, as text.
        select.select_by_value("token_created")
        wait_activity(t)
        made = [r for r in activity_rows(t) if token_id in r["detail"]]
        assert made and MARKUP_TOKEN in made[0]["detail"] and made[0]["who"] == "Command line", made
        assert all(r["elements"] == 0 for r in activity_rows(t)), "no element of a name or detail"
        assert t.js("return window.__pwned === undefined"), "nothing of a token's name ran"
        select.select_by_value("")
        wait_activity(t)

        close_backups(t)
    finally:
        t.daemon.cli("token", "revoke", token_id)

    # A failed backup says why (the daemon answered by a stand-in in the page: a disk cannot be filled here).
    failed = {"at": int(time.time()), "ok": False, "file": None, "bytes": None, "seconds": 0.2,
              "error": "No space left on device <b>(writing the backup)</b>"}
    good = {"at": int(time.time()) - 86400, "ok": True, "file": name, "bytes": size, "seconds": 0.1, "error": None}
    stand_in = {"list": {"enabled": True, "directory": str(folder), "every_hours": 24, "keep": 7, "next_at": int(time.time()) + 3600,
                         "last": failed, "last_good": good, "backups": [{"name": name, "bytes": size}]},
                "post": {"backup": failed}, "post_status": 500}
    script = t.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_BACKUPS.replace("DATA", json.dumps(stand_in))})
    try:
        t.open("#/decade/2011-01-01", t.henry)
        wait_until(lambda: "The last backup failed" in t.find("#backups-summary").get_attribute("textContent"), message="the failure in Imports")
        open_backups(t)
        assert t.text("#backups-state") == "Last one failed"
        last = t.find('#backups-info [data-field="last"]')
        assert last.get_attribute("data-ok") == "false" and "failed: No space left on device <b>(writing the backup)</b>" in last.text, last.text
        t.click(t.find("#backup-now"))
        wait_until(lambda: t.text("#backup-result").startswith("The backup failed:"), message="the failure")
        assert t.text("#backup-result") == "The backup failed: No space left on device <b>(writing the backup)</b>", t.text("#backup-result")
        assert "error" in t.find("#backup-result").get_attribute("class")
        assert not t.find_all("#backups b"), "the error is text"
        close_backups(t)
        # Without --backup-dir: how to turn them on, and no Back up now.
        stand_in["list"] = {"enabled": False, "backups": []}
        t.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        script = t.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_BACKUPS.replace("DATA", json.dumps(stand_in))})
        t.open("#/decade/2011-01-01", t.henry)
        wait_until(lambda: t.find("#backups-summary").get_attribute("textContent") == "Backups are off.", message="backups off in Imports")
        open_backups(t)
        assert t.text("#backups-state") == "Off"
        info = t.text("#backups-info")
        assert "takes no backups" in info and "--backup-dir DIR" in info and "hreaderd backup --output FILE" in info, info
        assert not t.find("#backup-now").is_displayed() and not t.find("#backup-files-block").is_displayed()
        t.screenshot("backups-off-desktop-light", full=False)
        close_backups(t)
    finally:
        t.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    t.open("#/decade/2011-01-01", t.henry)

TESTS = [
    test_wrong_password_shows_error,
    test_sign_in_unlocks_the_store,
    test_root_address_leads_to_the_app,
    test_decade_view_shows_conditions_and_vitals,
    test_switching_views_changes_what_is_shown,
    test_stepping_back_and_forward,
    test_entry_details_open_by_click_and_keyboard,
    test_cluster_lists_its_entries,
    test_empty_window_offers_the_latest_entry,
    test_levels_posted_with_sliders_appear_on_day_view,
    test_post_from_a_past_window_says_where_it_went,
    test_medication_added_then_deleted,
    test_second_patient_can_be_selected,
    test_dense_window_stays_responsive,
    test_add_records_imports_a_fhir_bundle,
    test_add_records_refuses_bad_files,
    test_imported_ccd_on_the_timeline_and_its_documents,
    test_search_typed_and_followed_to_the_entry,
    test_search_pages_vital_signs_notes_and_document_sections,
    test_search_marks_are_text,
    test_note_on_an_entry_and_marked_wrong,
    test_people_names_relationships_and_order,
    test_link_two_records_of_one_person,
    test_remove_a_person_after_confirming,
    test_summary_of_a_sample_patient,
    test_blood_pressure_reading_added_from_its_tile,
    test_modules_reordered_and_hidden,
    test_summary_printed_to_pdf,
    test_share_downloads_an_ips,
    test_out_of_range_results_and_a_person_who_died,
    test_import_panel_is_calm_without_sources,
    test_import_panel_shows_progress_errors_and_sign_in,
    test_import_panel_with_a_real_source_that_fails,
    test_sync_now_imports_from_a_real_rhex_server,
    test_fhir_source_connected_in_the_browser,
    test_errors_say_what_to_do,
    test_controls_have_names_and_keyboard_reach,
    test_screenshots_phone_and_desktop_light_and_dark,
    test_sign_out_and_lock,
    test_backups_and_activity,
]

_ = json  # kept for ad-hoc debugging of payloads
