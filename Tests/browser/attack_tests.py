"""Issue 6, in a real browser: pages served from other origins try to use the signed-in browser's
session against the daemon. A page on 127.0.0.1 at another port is another origin of the same site,
so the SameSite=Strict cookie does go along with its requests: the daemon's Origin check is what
stops them. A page on localhost is another site as well. Neither may read the timeline nor store a
post; the pages write what their scripts saw into the DOM, and the store is checked through the API
with a token."""

import json

from selenium.webdriver.common.by import By

from harness import wait_until


def ensure_signed_in(t):
    t.open("#/decade/2011-01-01", t.henry)
    status, session = t.daemon.request("GET", "/session", auth=False)
    assert status == 200
    # The browser holds a valid session for the daemon: its own pages can read the timeline.
    own = t.js("return fetch('/timeline.json?page=all').then((r) => r.status)")
    assert own == 200, own


def attacker_posts(t):
    """Every post of every person whose data came from an attacker page."""
    found = []
    for pid in t.daemon.patients.values():
        data = t.daemon.api(f"/timeline.json?page=all&patient={pid}")
        for entry in data.get("timeline_entries", []):
            if "attack" in json.dumps(entry.get("data", {})) or entry.get("data", {}).get("pain") in ("9", "10"):
                found.append(entry)
    return found


def attack_from(t, host):
    before = attacker_posts(t)
    assert not before, f"no attacker posts before the attack: {before}"
    # Chromium reports the refused cross-origin reads and the 403s in the console: expected here.
    t.allowed_console = ["Access-Control-Allow-Origin", "Failed to load resource", "CORS policy", "blocked by CORS", "ERR_BLOCKED_BY_RESPONSE"]

    t.driver.get(t.attacker.url(host, "read.html"))
    wait_until(lambda: t.driver.title == "done", timeout=15, message="the attacker's script to finish")
    seen = json.loads(t.driver.find_element(By.ID, "out").text)
    print(f"  {host}: the attacker page saw {seen}")
    assert seen["cors_read"].startswith("blocked"), f"the page read the timeline: {seen['cors_read']}"
    # Without CORS a page gets at most an opaque answer; Cross-Origin-Resource-Policy blocks even that.
    assert seen["opaque_read"].startswith("blocked") or "length=0" in seen["opaque_read"], f"nothing readable: {seen['opaque_read']}"
    assert seen["json_post"].startswith("blocked"), f"a JSON post went through CORS: {seen['json_post']}"

    # The auto-submitting form: the browser lands on the daemon's answer, a refusal.
    t.driver.get(t.attacker.url(host, "post.html"))
    wait_until(lambda: t.driver.current_url.startswith(t.daemon.origin), timeout=15, message="the form post to land")
    landed = t.driver.find_element(By.TAG_NAME, "body").text
    print(f"  {host}: the form post was answered {landed[:120]!r}")
    assert "bad_origin" in landed or "unauthenticated" in landed, landed
    assert "timeline_entries" not in landed

    after = attacker_posts(t)
    assert not after, f"the attack stored posts: {after}"
    # The daemon still works for its own page, and the session survived.
    ensure_signed_in(t)


def test_other_origin_same_site_cannot_read_or_post(t):
    ensure_signed_in(t)
    attack_from(t, "127.0.0.1")


def test_other_site_cannot_read_or_post(t):
    ensure_signed_in(t)
    attack_from(t, "localhost")


def test_app_cannot_be_framed(t):
    ensure_signed_in(t)
    t.allowed_console = ["frame-ancestors 'none'", "Refused to display", "X-Frame-Options"]
    t.driver.get(t.attacker.url("127.0.0.1", "frame.html"))
    frame = t.driver.find_element(By.ID, "f")
    t.driver.switch_to.frame(frame)
    try:
        # A refused frame shows the browser's error page, never the app.
        wait_until(lambda: t.driver.execute_script("return document.readyState") == "complete", message="the frame to settle")
        shown = t.driver.execute_script("return document.getElementById('app') !== null")
        assert not shown, "the app rendered inside another site's frame"
    finally:
        t.driver.switch_to.default_content()
    logged = " ".join(e.get("message", "") for e in t.browser.drain_console())
    assert "frame-ancestors 'none'" in logged, f"the browser refused the frame by the CSP: {logged}"
    ensure_signed_in(t)


TESTS = [
    test_other_origin_same_site_cannot_read_or_post,
    test_other_site_cannot_read_or_post,
    test_app_cannot_be_framed,
]
