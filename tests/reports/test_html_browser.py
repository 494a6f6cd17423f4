"""The HTML report in a real headless Chromium (Debian's chromium and chromium-driver, driven by
selenium): clicking a header sorts, the filters hide rows, hostile strings from devices do not run,
nothing is fetched, the console stays clean, and a screenshot shows the styled page."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from auditor.enums import Severity, Status, Tier
from reports.html.renderer import render_html
from reports.html.script import PAGE
from reports.json_report import SEVERITY_ORDER
from reports.model import FindingInfo, ReportData
from tests.reports.sample_data import make_report_data, many_findings
from tests.reports.test_html_report import HOSTILE_HOST, PAYLOADS, hostile_report_data

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install selenium)"
)
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "Chromium is absent: apt-get install chromium chromium-driver (Debian) to run the browser tests",
        allow_module_level=True,
    )

from selenium.webdriver.common.by import By  # noqa: E402 (after the skip: selenium may be absent)
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

WIDTH, HEIGHT = 1280, 900
Driver = Any  # selenium's WebDriver (untyped enough that Any reads better)


@pytest.fixture(scope="module")
def browser() -> Iterator[Driver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument("--hide-scrollbars")
    options.add_argument(f"--window-size={WIDTH},{HEIGHT}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def data() -> ReportData:
    return hostile_report_data()


@pytest.fixture(scope="module")
def page(data: ReportData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_bytes(render_html(data))
    return path


def load(browser: Driver, page: Path) -> Driver:
    browser.get_log("browser")  # drop what an earlier test left
    browser.get_log("performance")
    browser.get(page.as_uri())
    return browser


def visible_rows(browser: Driver) -> list[Any]:
    rows = browser.find_elements(By.CSS_SELECTOR, "#findings-table tbody tr")
    return [r for r in rows if r.is_displayed()]


def shown(browser: Driver) -> int:
    """Rows the browser lays out (what is_displayed says, in one call for a large table)."""
    script = "return Array.from(document.querySelectorAll('#findings-table tbody tr'))"
    return int(browser.execute_script(script + ".filter(r => r.getClientRects().length).length"))


def column(browser: Driver, index: int) -> list[str]:
    return [r.find_elements(By.TAG_NAME, "td")[index].text for r in visible_rows(browser)]


def haystack(f: FindingInfo) -> str:
    """What the free-text filter searches: every column and the details (hashes included)."""
    refs = [f"{r.seq} {r.sha256} {r.source} {r.origin}" for r in f.evidence]
    texts = [f.check_id, f.title, f.subject, f.target or "", f.message, f.expected, f.found, *refs]
    return " ".join(texts).lower()


def counter(browser: Driver) -> str:
    return str(browser.find_element(By.ID, "f-count").text)


def test_hostile_strings_do_not_run_and_nothing_is_fetched(browser: Driver, page: Path) -> None:
    load(browser, page)
    assert browser.execute_script("return typeof window.__xss") == "undefined"
    subjects = column(browser, 5)
    for payload in PAYLOADS[:6]:
        assert f"{HOSTILE_HOST} vrf {payload}" in subjects  # shown as text, character for character
    assert browser.execute_script("return document.querySelectorAll('img, iframe, object').length") == 0
    assert browser.find_element(By.ID, "signature").text.startswith("UNSIGNED")
    requests = [
        json.loads(entry["message"])["message"]
        for entry in browser.get_log("performance")
        if '"Network.requestWillBeSent"' in entry["message"]
    ]
    urls = {r["params"]["request"]["url"] for r in requests}
    assert urls == {page.as_uri()}, urls  # the page itself, nothing else
    assert browser.get_log("browser") == []  # no errors, and no CSP violation (nothing tried to run)


def test_clicking_a_header_sorts_and_again_reverses(browser: Driver, page: Path, data: ReportData) -> None:
    load(browser, page)
    header = browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='2'] button")
    header.click()
    ranks = [SEVERITY_ORDER[Severity(s.lower())] for s in column(browser, 2)]
    assert ranks == sorted(ranks) and ranks[0] != ranks[-1]
    th = browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='2']")
    assert th.get_attribute("aria-sort") == "ascending"
    header.click()
    assert [SEVERITY_ORDER[Severity(s.lower())] for s in column(browser, 2)] == sorted(ranks, reverse=True)
    assert th.get_attribute("aria-sort") == "descending"
    browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='6'] button").click()
    targets = column(browser, 6)
    assert targets == sorted(targets, key=lambda t: t.lower()) and len(set(targets)) > 3
    browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='0'] button").click()
    assert column(browser, 0) == [str(i) for i in range(1, len(data.findings) + 1)]  # the report's order


def test_filters_hide_rows_and_clear_restores_them(browser: Driver, page: Path, data: ReportData) -> None:
    load(browser, page)
    total = len(data.findings)
    assert len(visible_rows(browser)) == total and counter(browser) == f"{total} of {total} findings"
    for status in ("PASS", "NOT_APPLICABLE"):
        browser.find_element(By.ID, f"f-status-{status}").click()
    attention = [f for f in data.findings if f.status not in (Status.PASS, Status.NOT_APPLICABLE)]
    assert len(visible_rows(browser)) == len(attention)
    Select(browser.find_element(By.ID, "f-tier")).select_by_value(Tier.BACKEND.value)
    backend = [f for f in attention if f.tier is Tier.BACKEND]
    assert (
        len(visible_rows(browser)) == len(backend)
        and counter(browser) == f"{len(backend)} of {total} findings"
    )
    Select(browser.find_element(By.ID, "f-severity")).select_by_value(Severity.MEDIUM.value)
    medium = [f for f in backend if f.severity is Severity.MEDIUM]
    assert 0 < len(medium) < len(backend)
    assert len(visible_rows(browser)) == len(medium)
    browser.find_element(By.ID, "f-clear").click()
    assert len(visible_rows(browser)) == total
    Select(browser.find_element(By.ID, "f-check")).select_by_value("T3-VRF-NO-DEFAULT-ROUTE")
    by_check = [f for f in data.findings if f.check_id == "T3-VRF-NO-DEFAULT-ROUTE"]
    assert len(visible_rows(browser)) == len(by_check)
    browser.find_element(By.ID, "f-clear").click()
    text = browser.find_element(By.ID, "f-text")
    text.send_keys("<svg onload")  # the filter matches hostile text literally, and runs none of it
    assert [r.find_elements(By.TAG_NAME, "td")[5].text for r in visible_rows(browser)] == [
        f"{HOSTILE_HOST} vrf {PAYLOADS[2]}"
    ]
    text.clear()
    text.send_keys("be-leaf1 default")  # every word must match, in any column
    expected = [f for f in data.findings if all(w in haystack(f) for w in ("be-leaf1", "default"))]
    assert len(visible_rows(browser)) == len(expected) > 0
    text.clear()
    digest = data.findings[0].evidence[0].sha256[:20]  # an evidence hash, inside the closed details
    text.send_keys(digest)
    assert len(visible_rows(browser)) == sum(1 for f in data.findings if digest in haystack(f)) > 0
    text.clear()
    text.send_keys("no such text anywhere")
    assert visible_rows(browser) == [] and browser.find_element(By.ID, "f-none").is_displayed()
    browser.find_element(By.ID, "f-clear").click()
    assert len(visible_rows(browser)) == total and not browser.find_element(By.ID, "f-none").is_displayed()
    assert browser.get_log("browser") == []


def test_details_open_on_click(browser: Driver, page: Path, data: ReportData) -> None:
    load(browser, page)
    first = visible_rows(browser)[0]
    details = first.find_element(By.CSS_SELECTOR, "dl.details")
    assert not details.is_displayed()
    first.find_element(By.TAG_NAME, "summary").click()
    assert details.is_displayed()
    assert "Expected" in details.text and "capture #" in details.text


def test_screenshot_shows_the_styled_page(browser: Driver, page: Path, tmp_path: Path) -> None:
    from PIL import Image

    load(browser, page)
    png = browser.get_screenshot_as_png()
    (tmp_path / "report.png").write_bytes(png)  # kept for looking at (pytest's tmp_path)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (WIDTH, HEIGHT)
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50  # text, tints and rules, not a blank page
    white = sum(n for n, rgb in colours if rgb == (255, 255, 255))
    assert white < 0.9 * WIDTH * HEIGHT
    # the stylesheet applied (the CSP admitted it): the verdict banner has its red tint and left rule
    box = browser.execute_script(
        "const r = document.getElementById('verdict').getBoundingClientRect();"
        "return [r.left, r.top, r.width, r.height];"
    )
    left, top, width, height = (int(v) for v in box)
    assert 0 < top < HEIGHT
    assert image.getpixel((left + width // 2, top + 3)) == (0xFD, 0xE4, 0xE2)  # the FAIL tint
    rule: Any = image.getpixel((left + 2, top + height // 2))
    assert rule[0] > 150 and rule[1] < 60 and rule[2] < 60  # the red rule
    title = browser.find_element(By.TAG_NAME, "h1")
    assert title.value_of_css_property("color") == "rgba(31, 58, 95, 1)"  # navy, from the stylesheet


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "big.html"
    path.write_bytes(render_html(make_report_data(many_findings(PAGE * 2 + 100, long_text=False))))
    return path


def test_a_large_run_is_paged_and_every_row_is_reachable(browser: Driver, big_page: Path) -> None:
    total = PAGE * 2 + 100
    load(browser, big_page)
    assert shown(browser) == PAGE
    assert counter(browser) == f"{total} of {total} findings (the first {PAGE} shown)"
    browser.find_element(By.ID, "f-more-page").click()
    assert shown(browser) == 2 * PAGE
    browser.find_element(By.ID, "f-more-all").click()
    assert shown(browser) == total and not browser.find_element(By.ID, "f-more").is_displayed()
    browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='0'] button").click()
    browser.find_element(By.CSS_SELECTOR, "#findings-table th[data-col='0'] button").click()  # descending
    first = browser.execute_script(
        "return Array.from(document.querySelectorAll('#findings-table tbody tr'))"
        ".filter(r => r.getClientRects().length).slice(0, 2).map(r => r.cells[0].textContent)"
    )
    assert first == [str(total), str(total - 1)]  # a new order starts a new first page
    assert shown(browser) == PAGE
    browser.find_element(By.ID, "f-text").send_keys("finding-0001")  # finding-00010 .. finding-00019
    assert shown(browser) == 10 and counter(browser) == f"10 of {total} findings"
    last = browser.find_element(By.ID, f"finding-{total - 1}")
    browser.execute_script(f"location.hash = '#finding-{total - 1}'")  # what a grouped row's link does
    WebDriverWait(browser, 10).until(lambda _: last.is_displayed())  # hashchange is dispatched as a task
    assert counter(browser).startswith(f"{total} of {total} findings")
    assert browser.get_log("browser") == []


def test_without_script_every_row_is_shown(browser: Driver, big_page: Path) -> None:
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        load(browser, big_page)
        assert shown(browser) == PAGE * 2 + 100
        assert not browser.find_element(By.ID, "filters").is_displayed()  # nothing to drive it
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
