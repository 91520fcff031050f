"""Issue 39 in the browser: the offline health library beside the record. "About this" in an entry's details
(a condition matched by its code, one matched by its name only, an immunization through its CVX code, an
entry with no topic), the Library view (search, results narrowed to a group, a topic's page with its related
topics, source lines and the publisher's page), the update banner with the download's progress (the harness's
LibraryPublisher serves a newer pack, slowly, held halfway), and the app in the test language (fr.tsv: a key
it has shows French, one it lacks English). Every test also checks the console and CSP, as the others do."""

import json
import re
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from harness import PASSWORD, LibraryPublisher, Skip, wait_until
from app_tests import DAISEY, close_people, fhir_sample, open_people, person_card, picker_options, upload_file

MEDLINEPLUS_SOURCE = "Source: MedlinePlus, National Library of Medicine"
MEDLINEPLUS_ENDORSEMENT = "MedlinePlus and the National Library of Medicine do not endorse hreaderd."
CDC_SOURCE = "Source: CDC"
CDC_ENDORSEMENT = "Use of CDC's vaccine codes does not imply endorsement of hreaderd by CDC."


# ---- helpers ----

def needs_library(t):
    status, info = t.daemon.request("GET", "/library.json")
    if status == 404:
        raise Skip("this hreaderd has no library routes (GET /library.json answered 404)")
    assert status == 200, (status, info)
    assert info["installed"], f"the harness installed a pack before the start: {info}"
    return info


def topic_api(t, topic_id):
    return t.daemon.api(f"/library/topics/{topic_id}.json")


def about_requests(t):
    """The about.json requests the page made so far (its resource timing)."""
    return t.js("return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('/about.json'))")


def open_details_from_list(t, lane, text):
    """Opens the details of the first entry of a lane's list (under the timeline) whose row holds `text`."""
    group = t.find(f'.entry-group[data-type="{lane}"]')
    if group.get_attribute("open") is None:
        t.click(t.find("summary", group))
    row = wait_until(lambda: [r for r in t.find_all(".entry-row", group) if text in r.text], message=f"a {lane} row with {text!r}")[0]
    t.click(row)
    wait_until(lambda: t.find("#details").is_displayed(), message="the details")
    return row


def about_section(t, timeout=10):
    """The details' About this, once the library's answer is drawn."""
    def ready():
        sections = t.find_all("#details .about")
        return sections[0] if sections and sections[0].get_attribute("aria-busy") is None else None
    return wait_until(ready, timeout=timeout, message="About this in the details")


def close_details(t):
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not t.find("#details").is_displayed(), message="the details to close")


def ensure_daisey(t):
    """Daisey Johns (a FHIR bundle with CVX-coded immunizations), imported when an earlier test has not."""
    _, data = t.daemon.request("GET", "/patients.json")
    found = [p["id"] for p in data["patients"] if p["name"] == "Daisey Johns"]
    if found:
        return found[0]
    report = upload_file(t, fhir_sample(DAISEY))
    return [p["id"] for p in report["patients"] if p.get("id")][0]


def show_person(t, patient, hash_, name=None):
    """That person, made the current one, at this window (a fresh page)."""
    status, _ = t.daemon.request("POST", "/patients/current", {"id": patient})
    assert status == 200, status
    t.open(hash_, name or patient)


def close_library(t):
    if t.find("#library").is_displayed():
        t.click(t.find("#library [data-close]"))
        wait_until(lambda: not t.find("#library").is_displayed(), message="the Library view to close")


def open_library(t):
    button = t.find("#library-button")
    wait_until(button.is_displayed, message="the header's Library button")
    t.click(button)
    dialog = t.find("#library")
    wait_until(dialog.is_displayed, message="the Library view")
    return dialog


def library_search(t, words):
    field = t.find("#library-q")
    field.clear()
    field.send_keys(words, Keys.ENTER)
    wait_until(lambda: t.find("#library-content").get_attribute("aria-busy") is None and t.find_all("#library-content .library-result"),
               message=f"results for {words!r}")
    return t.find_all("#library-content .library-result")


def topic_page(t, title=None):
    def ready():
        pages = t.find_all("#library-content .topic-page")
        if not pages or t.find("#library-content").get_attribute("aria-busy") is not None:
            return None
        shown = pages[0].find_element(By.CSS_SELECTOR, "h3").text
        return pages[0] if title is None or shown == title else None
    return wait_until(ready, message=f"the topic page {title or ''}")


def set_language(t, value):
    """Chooses the app's language in the Library view's foot ('' for the browser's)."""
    open_library(t)
    select = t.find("#library-language")
    t.js("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'))", select, value)


# ---- the tests ----

def test_about_this_on_a_condition(t):
    """Heart Failure (SNOMED CT 84114007 → MedlinePlus 199, a reviewed code): its topic's summary cut short with
    Read more, related topics, the source and endorsement lines; asked for when the details open, not before."""
    needs_library(t)
    topic = topic_api(t, "199")
    show_person(t, t.henry, "#/decade/2011-01-01")
    assert about_requests(t) == [], "nothing is asked of the library before an entry's details open"
    mark = wait_until(lambda: [m for m in t.find_all('.lane[data-type="condition"] .mark') if m.get_attribute("aria-label").startswith("Heart Failure,")],
                      message="the Heart Failure mark")[0]
    t.click(mark)
    section = about_section(t)
    asked = about_requests(t)
    assert len(asked) == 1 and f"/patients/{t.henry}/entries/" in asked[0], asked
    assert t.find("h3", section).text == "About this"
    block = t.find('.about-topic[data-topic="199"]', section)
    assert t.find("h4", block).text == "Heart Failure"
    assert block.get_attribute("data-match") == "code"
    assert not t.find_all(".badge", block), "a topic found by its code is not marked as matched by name"
    # The summary, cut short; Read more shows the whole of it, as the publisher wrote it.
    summary = t.find(".about-summary", block)
    whole = re.sub(r"\s+", " ", topic["summary"]).strip()
    short = summary.text
    assert short and len(short) < len(whole) and short.rstrip("…") in whole, (short, whole[:200])
    more = t.find('button[aria-expanded]', block)
    assert more.text == "Read more" and more.get_attribute("aria-expanded") == "false"
    t.js("arguments[0].scrollIntoView({block: 'start'})", section)
    t.screenshot("about-condition-desktop-light", full=False)
    t.click(more)
    assert more.get_attribute("aria-expanded") == "true" and more.text == "Show less"
    # The whole summary, in paragraphs (each opening question in bold), as the publisher wrote it.
    assert re.sub(r"\s+", " ", summary.text) == whole
    assert len(t.find_all("p", summary)) > 1 and t.find("strong", summary).text == "What is heart failure?"
    # Related topics, in the publisher's order, as links to their pages.
    related = [b.text for b in t.find_all(".related-list .chip", block)]
    assert related and related == [r["title"] for r in topic["related"]][:len(related)], (related, topic["related"])
    # Where it comes from, and that MedlinePlus does not endorse hreaderd.
    assert t.find(".attribution-source", section).text == MEDLINEPLUS_SOURCE
    if topic.get("credit"):
        assert t.find(".attribution-credit", section).text == f"Credit: {topic['credit']}"
    assert t.find(".attribution-endorsement", section).text == MEDLINEPLUS_ENDORSEMENT
    assert "does not replace advice from your doctor" in section.text

    # Open in the library: the topic's page over the details; closing it comes back to the button.
    opener = t.find("button[data-open-topic='199']", block)
    t.click(opener)
    page = topic_page(t, "Heart Failure")
    link = t.find("a.external", page)
    assert link.get_attribute("href") == topic["url"] and link.get_attribute("rel") == "noopener noreferrer", link.get_attribute("outerHTML")
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not t.find("#library").is_displayed(), message="the Library view to close")
    assert t.find("#details").is_displayed(), "the details stay open under it"
    assert t.driver.switch_to.active_element == opener, "the focus is back on Open in the library"
    close_details(t)
    assert t.driver.switch_to.active_element == mark

    # Details opened and closed at once: what was asked is dropped, and nothing is drawn or said in error.
    before = len(about_requests(t))
    t.click(mark)
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not t.find("#details").is_displayed(), message="the details to close")
    time.sleep(0.3)
    assert len(about_requests(t)) <= before + 1
    assert not t.find("#details").is_displayed()


def test_about_this_by_name_and_with_no_topic(t):
    """Nancy Smith's "sore throat" has no code: its topic is found by its name and marked so. Henry's BNP result has a
    code reviewed as having no right topic: one quiet line, no error."""
    needs_library(t)
    show_person(t, t.nancy, "#/all")
    open_details_from_list(t, "condition", "sore throat")
    section = about_section(t)
    blocks = t.find_all(".about-topic", section)
    assert blocks, section.text
    assert blocks[0].get_attribute("data-match") == "name", blocks[0].get_attribute("outerHTML")[:300]
    assert t.find("h4", blocks[0]).text == "Sore Throat"
    assert t.find(".badge", blocks[0]).text == "Matched by its name"
    assert t.find(".attribution-source", section).text == MEDLINEPLUS_SOURCE
    close_details(t)

    show_person(t, t.henry, "#/all")
    about = t.daemon.api(f"/patients/{t.henry}/entries/{bnp_entry(t)}/about.json")
    assert about["topics"] == [] and about["vaccine"] is None, about
    open_details_from_list(t, "result", "BNP")
    section = about_section(t)
    assert "quiet" in section.get_attribute("class").split()
    assert t.find(".about-status", section).text == "The library has nothing on this entry yet."
    assert not t.find_all(".about-topic, .attribution", section)
    assert "error" not in section.text.lower()
    close_details(t)


def bnp_entry(t):
    data = t.daemon.api(f"/timeline.json?page=all&patient={t.henry}")
    return [e["id"] for e in data["results"] if e["description"] == "BNP"][0]


def test_about_this_on_an_immunization(t):
    """Daisey Johns's Hep B vaccine (CVX 08): its topic through CDC's vaccine group (Hepatitis B), and CDC's
    description of the vaccine with "Source: CDC" and CDC's endorsement line."""
    needs_library(t)
    daisey = ensure_daisey(t)
    show_person(t, daisey, "#/all", "Daisey Johns")
    open_details_from_list(t, "immunization", "Hep B")
    section = about_section(t)
    titles = [t.find("h4", b).text for b in t.find_all(".about-topic", section)]
    assert "Hepatitis B" in titles, titles
    assert all(b.get_attribute("data-match") == "code" for b in t.find_all(".about-topic", section))
    vaccine = t.find(".about-vaccine", section)
    assert "CVX 08" in vaccine.text and "hepatitis b vaccine" in vaccine.text.lower(), vaccine.text
    assert t.find(".attribution-source", vaccine).text == CDC_SOURCE
    assert t.find(".attribution-endorsement", vaccine).text == CDC_ENDORSEMENT
    # The vaccine's lines are CDC's, the topics' MedlinePlus's.
    sources = [p.text for p in t.find_all(".attribution-source", section)]
    assert sources == [CDC_SOURCE, MEDLINEPLUS_SOURCE], sources
    t.js("arguments[0].scrollIntoView({block: 'start'})", section)
    t.screenshot("about-immunization-desktop-light", full=False)
    try:
        t.browser.viewport(390, 844, dark=True)
        time.sleep(0.3)
        t.js("arguments[0].scrollIntoView({block: 'start'})", section)
        width = t.js("const d = document.getElementById('details'); return [d.scrollWidth, d.clientWidth]")
        assert width[0] <= width[1] + 1, f"the details scroll sideways on a phone: {width}"
        t.screenshot("about-immunization-phone-dark", full=False)
    finally:
        t.browser.viewport(1280, 900)
    close_details(t)
    t.daemon.request("POST", "/patients/current", {"id": t.henry})


def test_library_search_and_a_topic(t):
    """The Library view from the header: a search with snippets (the matched words in <mark> elements), the
    results narrowed to a group, a topic's page with its related topics as links within the view, the
    publisher's page as an external link, and Back."""
    needs_library(t)
    show_person(t, t.henry, "#/decade/2011-01-01")
    trigger = t.find("#library-button")
    dialog = open_library(t)
    assert t.driver.switch_to.active_element == t.find("#library-q"), "the search field takes the keyboard"
    assert "Library version 2025.10." in t.text("#library-installed"), t.text("#library-installed")
    results = library_search(t, "asthma")
    api = t.daemon.api("/library/search.json?q=asthma&limit=25")
    assert [t.find(".search-title", r).text for r in results] == [r["title"] for r in api["results"]], "the daemon's order"
    assert t.find(".search-title", results[0]).text == "Asthma"
    marks = t.find_all("mark", results[0])
    assert marks and all(m.text.lower() == "asthma" for m in marks), [m.text for m in marks]
    # The snippet's text is the daemon's parts joined, and the marks its matched parts.
    first = api["results"][0]
    assert t.find(".search-snippet", results[0]).text == "".join(p["text"] for p in first["snippet"]).strip()
    assert [m.text for m in marks] == [p["text"].strip() for p in first["snippet"] if p["match"]]
    assert re.search(r"^\d+ topics for asthma$", t.text("#library-status")), t.text("#library-status")
    t.screenshot("library-results-desktop-light", full=False)

    # Narrowed to a group: only its topics, and All again. The groups of most results first, the rest on asking.
    chips = t.find_all(".library-groups .chip")
    assert len(chips) > 2 and chips[0].get_attribute("aria-pressed") == "true", [c.text for c in chips]
    groups = {g for r in api["results"] for g in r["groups"]}
    if len(groups) > len(chips) - 1:
        t.click(t.find(".library-groups [data-more-groups]"))
        wait_until(lambda: len(t.find_all(".library-groups .chip")) == len(groups) + 1, message="every group")
        assert t.driver.switch_to.active_element == t.find_all(".library-groups .chip")[len(chips)], "the first group shown now takes the focus"
        chips = t.find_all(".library-groups .chip")
    group = chips[1].get_attribute("data-group")
    t.click(chips[1])
    wait_until(lambda: t.find(f'.library-groups .chip[data-group="{group}"]').get_attribute("aria-pressed") == "true", message="the group chosen")
    shown = t.find_all("#library-content .library-result")
    assert shown and all(group in r.text for r in shown), (group, [r.text for r in shown])
    assert len(shown) == sum(1 for r in api["results"] if group in r["groups"])
    t.click(t.find('.library-groups .chip[data-group=""]'))
    wait_until(lambda: len(t.find_all("#library-content .library-result")) == len(api["results"]), message="all the results again")

    # A topic's page.
    t.click(t.find_all("#library-content .library-result")[0])
    page = topic_page(t, "Asthma")
    topic = topic_api(t, api["results"][0]["id"])
    assert t.driver.switch_to.active_element == t.find("h3", page), "the page's title takes the focus"
    assert re.sub(r"\s+", " ", t.find(".topic-summary", page).text) == re.sub(r"\s+", " ", topic["summary"]).strip()
    if topic["also_called"]:
        assert t.find(".topic-also", page).text == "Also called: " + ", ".join(topic["also_called"])
    assert t.find(".attribution-source", page).text == MEDLINEPLUS_SOURCE
    assert t.find(".attribution-endorsement", page).text == MEDLINEPLUS_ENDORSEMENT
    link = t.find("a.external", page)
    assert link.get_attribute("href") == topic["url"] and link.get_attribute("href").startswith("https://medlineplus.gov/")
    assert link.get_attribute("rel") == "noopener noreferrer" and link.get_attribute("target") == "_blank"
    related = t.find_all(".related-list .chip", page)
    assert [r.text for r in related] == [r["title"] for r in topic["related"]], ([r.text for r in related], topic["related"])
    assert related, "Asthma has related topics"
    t.screenshot("library-topic-desktop-light", full=False)

    # A related topic opens in the view; Back returns to the first topic, then to the results.
    other = topic["related"][0]
    t.click(related[0])
    topic_page(t, other["title"])
    back = t.find("#library-content [data-back]")
    assert back.text == "‹ Back to Asthma", back.text
    t.click(back)
    topic_page(t, "Asthma")
    t.click(t.find("#library-content [data-back]"))
    wait_until(lambda: t.find_all("#library-content .library-result"), message="the results again")
    try:
        t.browser.viewport(390, 844, dark=True)
        time.sleep(0.3)
        t.click(t.find_all("#library-content .library-result")[0])
        topic_page(t, "Asthma")
        width = t.js("return [arguments[0].scrollWidth, arguments[0].clientWidth]", dialog)
        assert width[0] <= width[1] + 1, f"the Library view scrolls sideways on a phone: {width}"
        t.screenshot("library-topic-phone-dark", full=False)
    finally:
        t.browser.viewport(1280, 900)

    # Words that match nothing say so.
    field = t.find("#library-q")
    field.clear()
    field.send_keys("qwxzv", Keys.ENTER)
    wait_until(lambda: t.text("#library-status").startswith("No topic matches these words."), message="no results")
    # Escape in a search field with words clears them first; the next closes the view.
    field.send_keys(Keys.ESCAPE)
    if dialog.is_displayed():
        t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until(lambda: not dialog.is_displayed(), message="Escape to close the library")
    assert t.driver.switch_to.active_element == trigger


def check_progress_while_held(t, banner, update, size, mb):
    """Update clicked while the publisher holds the pack's file: the <progress> moves, its text says how far, the
    page polls /library.json once a second."""
    t.click(update)
    progress = wait_until(lambda: (lambda p: p[0] if p and float(p[0].get_attribute("value") or 0) > 0 else None)(t.find_all("#library-banner progress")),
                          timeout=15, message="the download's progress")
    wait_until(lambda: float(progress.get_attribute("value")) >= size * 0.3, timeout=15, message="the progress to move")
    assert int(float(progress.get_attribute("max"))) == size, progress.get_attribute("max")
    text = t.find(".library-banner-text", banner).text
    assert re.fullmatch(r"Downloading the library update: \d+% \(.+ of " + re.escape(mb) + r" MB\)", text), text
    assert banner.get_attribute("data-state") == "downloading"
    t.screenshot("library-banner-progress-desktop-light", full=False)
    try:
        t.browser.viewport(390, 844, dark=True)
        time.sleep(0.3)
        t.screenshot("library-banner-progress-phone-dark", full=False)
    finally:
        t.browser.viewport(1280, 900)
    # The page polls /library.json once a second while the update runs, no faster.
    polls = t.js("""const entries = performance.getEntriesByType('resource');
        const posted = entries.find((e) => e.name.endsWith('/library/update')).startTime;
        return entries.filter((e) => e.name.endsWith('/library.json') && e.startTime > posted).map((e) => e.startTime);""")
    gaps = [b - a for a, b in zip(polls, polls[1:])]
    assert gaps and all(900 <= gap <= 2500 for gap in gaps), gaps


def test_library_update_banner_with_progress(t):
    """A newer pack published: the daemon, started again, offers it; the banner says its version and size;
    Update downloads it (a <progress> and its text, read every second, the publisher holding the file halfway),
    then says "updated to"; the new pack serves (its extra topic, markup and all, shown as text)."""
    info = needs_library(t)
    publisher = t.daemon.publisher
    installed = info["installed"]["version"]
    assert installed == LibraryPublisher.INSTALLED_VERSION
    t.open("#/decade/2011-01-01", t.henry)
    assert not t.find("#library-banner").is_displayed(), "nothing is offered while the publisher has nothing newer"

    newer = publisher.build(LibraryPublisher.NEWER_VERSION, extra_topic=True)
    manifest = publisher.publish(newer)
    size = manifest["database"]["bytes"]
    t.daemon.restart()  # it asks the publisher at start
    status, _ = t.daemon.request("POST", "/session", {"password": PASSWORD}, auth=False)  # unlocks the store
    assert status == 200, status
    info = wait_until(lambda: (lambda i: i if i["available"] else None)(t.daemon.api("/library.json")), timeout=20,
                      message="the daemon to offer the newer pack")
    assert info["available"] == {**info["available"], "version": LibraryPublisher.NEWER_VERSION, "bytes": size}, info["available"]
    t.open("#/decade/2011-01-01", t.henry)
    banner = wait_until(lambda: (lambda b: b if b.is_displayed() else None)(t.find("#library-banner")), message="the update banner")
    mb = f"{size / 1024 / 1024:.1f}".rstrip("0").rstrip(".")
    assert t.find(".library-banner-text", banner).text == f"A new health library (version {LibraryPublisher.NEWER_VERSION}, {mb} MB) is available.", banner.text
    update = t.find('button[data-action="update"]', banner)
    assert update.text == "Update"
    t.screenshot("library-banner-offer-desktop-light", full=False)

    # Update: the publisher sends the first 40 % slowly, then holds the rest until the test lets it go (and
    # lets it go whatever happens here: a held publisher would stall the next test's download).
    publisher.hold(int(size * 0.4))
    try:
        check_progress_while_held(t, banner, update, size, mb)
    finally:
        publisher.release()

    wait_until(lambda: banner.get_attribute("data-state") == "installed", timeout=30, message="the update to end")
    assert t.find(".library-banner-text", banner).text == f"The library was updated to version {LibraryPublisher.NEWER_VERSION}."
    assert not t.find_all("#library-banner progress")
    t.screenshot("library-banner-installed-desktop-light", full=False)
    after = t.daemon.api("/library.json")
    assert after["installed"]["version"] == LibraryPublisher.NEWER_VERSION and after["available"] is None, after
    ranges = [r for _, path, r in publisher.requests if path.endswith(".gz")]
    print(f"  the pack's file was asked for {len(ranges)} time(s), Range {ranges}")
    # Its ✕ closes the message; a new page does not say it again.
    t.click(t.find('button[data-action="dismiss"]', banner))
    assert not banner.is_displayed()

    # The new pack serves: its made-up topic, whose title and summary hold markup, shown as text.
    open_library(t)
    assert f"Library version {LibraryPublisher.NEWER_VERSION}" in t.text("#library-installed")
    results = library_search(t, "Zzyzx")
    assert t.find(".search-title", results[0]).text == "Zzyzx <b>test</b> topic"
    t.click(results[0])
    page = topic_page(t, "Zzyzx <b>test</b> topic")
    assert "<img src=x onerror=" in t.find(".topic-summary", page).text and "<script>" in t.find(".topic-summary", page).text
    assert not t.find_all("#library img, #library script, #library b, #library i, #library em")
    assert t.js("return window.__xss") is None and t.driver.title != "xss"
    assert t.find(".topic-also", page).text == "Also called: Zzyzx syndrome <i>"
    assert t.find(".attribution-credit", page).text == "Credit: hreaderd browser tests <em>"
    t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    t.open("#/decade/2011-01-01", t.henry)
    time.sleep(0.5)
    assert not t.find("#library-banner").is_displayed(), "an update this page did not ask for is not announced"


def test_library_update_that_fails_says_why(t):
    """A newer pack whose file is not what its signed manifest says: the banner follows the update to its end
    and says why it failed in words, with Try again; the installed pack stays as it was."""
    needs_library(t)
    publisher = t.daemon.publisher
    publisher.release()  # whatever an earlier test left: this download is not held
    before = t.daemon.api("/library.json")["installed"]["version"]
    bad = publisher.build("2099.1", extra_topic=False)
    manifest = json.loads((bad / "manifest.json").read_text())
    data = bytearray((bad / manifest["database"]["file"]).read_bytes())
    data[len(data) // 2] ^= 0xFF  # the same size, another SHA-256
    (bad / manifest["database"]["file"]).write_bytes(bytes(data))
    publisher.publish(bad)
    try:
        t.daemon.restart()
        status, _ = t.daemon.request("POST", "/session", {"password": PASSWORD}, auth=False)
        assert status == 200, status
        # What is installed now: an update an earlier test left running ended with the restart (a download is
        # cancelled, an install is finished first).
        before = t.daemon.api("/library.json")["installed"]["version"]
        wait_until(lambda: (t.daemon.api("/library.json")["available"] or {}).get("version") == "2099.1", timeout=20,
                   message="the daemon to offer the pack")
        show_person(t, t.henry, "#/decade/2011-01-01")
        banner = wait_until(lambda: (lambda b: b if b.is_displayed() else None)(t.find("#library-banner")), message="the update banner")
        t.click(t.find('button[data-action="update"]', banner))
        wait_until(lambda: banner.get_attribute("data-state") == "failed", timeout=30,
                   message="the update to fail", describe=lambda: f"/library.json's update: {t.daemon.api('/library.json')['update']}")
        info = t.daemon.api("/library.json")
        text = t.find(".library-banner-text", banner).text
        assert text.startswith("The library update failed: ") and text.endswith("The library you have stays as it was."), text
        reason = info["update"]["error"]
        assert reason and reason.split(": ")[0] in text, (info["update"], text)
        assert text.count("stays") == 1, f"what stays is said once: {text}"
        assert t.find('button[data-action="retry"]', banner).text == "Try again"
        assert info["installed"]["version"] == before, "the installed pack stays"
        t.screenshot("library-banner-failed-desktop-light", full=False)
    finally:
        # Nothing newer offered for the tests after this one.
        publisher.publish(publisher.root / f"pack-{before}")
        t.daemon.restart()
        t.daemon.request("POST", "/session", {"password": PASSWORD}, auth=False)


def test_app_in_the_test_language(t):
    """French from the Library view's language setting: a key fr.tsv has shows French (the header's Sign out,
    the view names, the library's title and Search button, the sign-in screen's Password), one it lacks English
    (Lock, the library's search label, the sign-in reason); back to the browser's language, English again."""
    needs_library(t)
    strings = t.daemon.api("/library/strings.json?lang=fr")["strings"]
    assert strings["app.header.sign_out"] == "Se déconnecter" and strings["app.header.lock"] == "Lock", "fr.tsv and its English fallback"
    show_person(t, t.henry, "#/decade/2011-01-01")
    try:
        set_language(t, "fr")
        wait_until(lambda: t.text("#library-title") == "Bibliothèque santé", message="the library's title in French")
        assert t.find("#library-search button[type=submit]").text == "Rechercher"
        assert t.text("#library-q-label") == "Search the health library", "a key fr.tsv lacks is English"
        assert t.find("#library-language").get_attribute("value") == "fr"
        assert t.find("#library-title").get_attribute("lang") == "fr", "a translated text says its language"
        assert not t.js("return arguments[0].hasAttribute('lang')", t.find("#library-q-label")), "English is the page's language"
        t.screenshot("library-french-desktop-light", full=False)
        t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        assert t.text("#sign-out") == "Se déconnecter"
        assert t.text("#lock") == "Lock"
        assert t.text('.view-button[data-view="summary"]') == "Résumé"
        assert t.text('.view-button[data-view="decade"]') == "Décennie"
        assert t.find("#search-input").get_attribute("placeholder") == "Chercher dans ce dossier"
        assert t.driver.title == "Henry Smith — Décennie — hreaderd", t.driver.title
        t.screenshot("app-french-desktop-light", full=False)
        # A new page: French from the start (the setting is kept), the sign-in screen too.
        t.open("#/decade/2011-01-01", t.henry)
        wait_until(lambda: t.text("#sign-out") == "Se déconnecter", message="French after a reload")
        t.click(t.find("#sign-out"))
        wait_until(lambda: t.find("#signin").is_displayed(), message="the sign-in screen")
        assert t.text('label[for="signin-password"]') == "Mot de passe"
        assert t.text("#signin-submit") == "Se connecter"
        assert t.text("#signin-reason") == "You signed out. Enter the password to open the records again.", "a key fr.tsv lacks is English"
        try:
            t.browser.viewport(390, 844, dark=True)
            time.sleep(0.2)
            t.screenshot("signin-french-phone-dark", full=False)
        finally:
            t.browser.viewport(1280, 900)
        t.sign_in()
    finally:
        # Back to the browser's language (English), for the tests after this one.
        if not t.on_app():
            t.open("#/decade/2011-01-01", t.henry)
        close_library(t)
        set_language(t, "")
        wait_until(lambda: t.text("#library-title") == "Health library", message="English again")
        t.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert t.text("#sign-out") == "Sign out" and t.text('.view-button[data-view="summary"]') == "Summary"


def test_library_browse_by_group(t):
    """The Library's home lists the pack's groups without a search; a group shows its topics by title, a topic
    opens from there, and Back goes to the group, then to the groups."""
    needs_library(t)
    groups = t.daemon.api("/library/groups.json")["groups"]
    assert len(groups) == 44, len(groups)
    show_person(t, t.henry, "#/decade/2011-01-01")
    try:
        open_library(t)
        buttons = wait_until(lambda: t.find_all("#library-content .library-group"), message="the groups on the home page")
        assert [b.get_attribute("data-group") for b in buttons] == [g["id"] for g in groups]
        tests = t.find('#library-content .library-group[data-group="diagnostic-tests"]')
        assert tests.text.startswith("Diagnostic Tests") and tests.text.endswith("18"), tests.text
        t.screenshot("library-groups-desktop-light", full=False)
        t.click(tests)

        def group_page():
            pages = t.find_all("#library-content .group-page")
            busy = t.find("#library-content").get_attribute("aria-busy") is not None
            return pages[0] if pages and not busy else None
        page = wait_until(group_page, message="the group's page")
        assert t.find("h3", page).text == "Diagnostic Tests"
        titles = [b.text for b in t.find_all(".library-result", page)]
        assert len(titles) == 18 and "A1C" in titles, titles
        assert titles == sorted(titles, key=str.lower), titles
        t.screenshot("library-group-desktop-light", full=False)
        t.click([b for b in t.find_all(".library-result", page) if b.text == "A1C"][0])
        topic_page(t, "A1C")
        back = t.find("#library-content [data-back]")
        assert back.text == "‹ Back to Diagnostic Tests", back.text
        t.click(back)
        page = wait_until(group_page, message="the group's page again")
        t.click(t.find("#library-content [data-back]"))
        wait_until(lambda: t.find_all("#library-content .library-group"), message="the groups again")
    finally:
        close_library(t)


def test_app_in_the_test_language_beyond_the_header(t):
    """In French, the timeline (its heading, lane names), an entry's details (its facts) and the Summary (a tile's
    lists) show the test pack's French; a text fr.tsv lacks stays English (the Summary's Print for a doctor is
    French, its Choose tiles too; Lab results' note is English)."""
    needs_library(t)
    show_person(t, t.henry, "#/decade/2011-01-01")
    try:
        set_language(t, "fr")
        wait_until(lambda: t.text("#library-title") == "Bibliothèque santé", message="the library in French")
        close_library(t)
        wait_until(lambda: t.text("#timeline-heading") == "Chronologie", message="the timeline's heading in French")
        wait_until(lambda: t.text("#lane-condition") == "Problèmes de santé", message="a lane's name in French")
        assert t.text("#lane-immunization") == "Vaccinations"
        assert t.text("#vitals-heading") == "Signes vitaux"
        assert t.text("#labs-heading") == "Résultats d’analyses"
        assert t.find("#labs-heading + p").text == "Tests with more than one numeric result in this window.", "a key fr.tsv lacks is English"
        t.screenshot("timeline-french-desktop-light", full=False)
        mark = wait_until(lambda: [m for m in t.find_all('.lane[data-type="condition"] .mark') if m.get_attribute("aria-label").startswith("Heart Failure,")],
                          message="the Heart Failure mark")[0]
        assert "problème de santé" in mark.get_attribute("aria-label"), mark.get_attribute("aria-label")
        t.click(mark)
        wait_until(lambda: t.find("#details").is_displayed(), message="the details")
        terms = [dt.text for dt in t.find_all("#details dl.facts dt")]
        assert "Début" in terms and "Statut" in terms, terms
        t.screenshot("details-french-desktop-light", full=False)
        close_details(t)
        t.open("#/summary", t.henry)
        heads = wait_until(lambda: [h4.get_attribute("textContent") for h4 in t.find_all("#tiles .tile-lists h4")], message="the Summary's lists")
        assert any(h.startswith("Problèmes (") for h in heads) and any(h.startswith("Allergies (") for h in heads), heads
        assert t.text("#choose-tiles") == "Choisir les tuiles" and t.text("#print-summary") == "Imprimer pour un médecin"
        t.screenshot("summary-french-desktop-light", full=False)
    finally:
        if not t.on_app():
            t.open("#/decade/2011-01-01", t.henry)
        set_language(t, "")
        wait_until(lambda: t.text("#library-title") == "Health library", message="English again")
        close_library(t)
    t.open("#/decade/2011-01-01", t.henry)
    wait_until(lambda: t.text("#lane-condition") == "Conditions", message="English lane names again")
    assert t.text("#timeline-heading") == "Timeline"


def switch_language_in_place(t, lang):
    """Loads the string table of `lang` into the page as it is (no new page, no dialog closed), as a library
    update does: the app's own loader, the same module instances the app uses."""
    t.driver.execute_async_script("""const [lang, done] = arguments;
        Promise.all([import('./js/strings.js'), import('./js/api.js')])
          .then(([strings, { api }]) => strings.loadStrings((l) => api.libraryStrings(l), lang))
          .then(done, (error) => done(String(error)));""", lang)


def test_open_dialogs_follow_a_change_of_language(t):
    """People open when the table changes to French: its cards are drawn again in French, counts by French's
    plural rule ("138 entrées du dossier"), a name typed in a card is kept, and the person picker follows; back to
    English, English again."""
    needs_library(t)
    show_person(t, t.henry, "#/decade/2011-01-01")
    dialog = open_people(t)
    card = person_card(t, t.henry)
    wait_until(lambda: "record entries" in card.text, message="the card's count in English")
    field = t.find('input[name="display_name"]', card)
    field.send_keys("Hank")
    try:
        switch_language_in_place(t, "fr")
        wait_until(lambda: "entrées du dossier" in person_card(t, t.henry).text, message="the open card in French")
        card = person_card(t, t.henry)
        assert dialog.is_displayed(), "the panel stays open"
        assert re.search(r"\b138 entrées du dossier\b", card.text), card.text
        assert t.find('input[name="display_name"]', card).get_attribute("value") == "Hank", "what was typed is kept"
        assert t.find("#people-title").text == t.daemon.api("/library/strings.json?lang=fr")["strings"]["app.html.people"]
        ages = [text for _, text in picker_options(t) if re.search(r", \d+ ", text)]
        assert ages and all(re.search(r", \d+ ans?\b", text) for text in ages), ages
        t.screenshot("people-french-desktop-light", full=False)
    finally:
        switch_language_in_place(t, "en")
    wait_until(lambda: "138 record entries" in person_card(t, t.henry).text, message="the open card in English again")
    close_people(t)


TESTS = [
    test_about_this_on_a_condition,
    test_about_this_by_name_and_with_no_topic,
    test_about_this_on_an_immunization,
    test_library_search_and_a_topic,
    test_app_in_the_test_language,
    test_app_in_the_test_language_beyond_the_header,
    test_open_dialogs_follow_a_change_of_language,
    test_library_browse_by_group,
    test_library_update_banner_with_progress,
    test_library_update_that_fails_says_why,
]
