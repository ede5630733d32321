"""The printable chart pages in a real browser (headless Chromium through Selenium).

Each page is rendered afresh from the shipped rulebooks (never read from generated/), written
to a temporary folder and opened from there. Checked: no console errors, no network request
but the page itself, no table or cell wider than the printable width of Letter landscape (the
narrower of Letter and A4), in screen and in print media, the page count of the PDF that
printing gives, and a screenshot.

Without Chromium, chromedriver or Selenium these tests skip, except under CI (CI set), where
a missing browser is a failure.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from civdsl.build import EditionOutputs
from civdsl.charts import render_all, site_files
from civdsl.charts.html import PRINT_WIDTH_MM
from civdsl.frontend import check_file
from civdsl.resources import shipped_house_rules, shipped_rulebooks

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini.civ"
PX_PER_MM = 96 / 25.4
PRINT_WIDTH_PX = PRINT_WIDTH_MM * PX_PER_MM
# (name, width cm, height cm) of the paper, portrait; printed landscape
PAPERS = (("A4", 21.0, 29.7), ("Letter", 21.59, 27.94))
PAGE_HEIGHT_PX = (210 - 2 * 10) * PX_PER_MM  # A4 landscape less the page margins (the shorter of A4 and Letter)

ROW_GUIDES = """
const t = document.querySelector('table.matrix');
if (!t) return 'none';
const rows = t.querySelectorAll('tbody tr');
if (rows.length < 2) return 'none';
const a = getComputedStyle(rows[0].children[1]).backgroundColor, b = getComputedStyle(rows[1].children[1]).backgroundColor;
return a !== b ? 'shaded' : 'plain';
"""
SECTIONS = ("calamities", "advances", "credits", "explorer", "epochs", "commodities")


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (name if os.path.isabs(name) and os.access(name, os.X_OK) else None)
        if found:
            return found
    return None


def _browser() -> tuple[str, str]:
    missing = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install selenium)")
    chromium = _find("chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome")
    driver = _find("chromedriver", "/usr/bin/chromedriver")
    if chromium is None:
        missing.append("chromium (apt-get install chromium)")
    if driver is None:
        missing.append("chromedriver (apt-get install chromium-driver)")
    if missing:
        reason = "browser tests need " + ", ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(reason + " (CI is set: the browser must be installed)")
        pytest.skip(reason)
    return chromium, driver


@pytest.fixture(scope="module")
def driver():
    chromium, chromedriver = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    drv = webdriver.Chrome(service=Service(chromedriver), options=options)
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()


def _write(folder: Path, files: dict) -> None:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Every shipped rulebook (and house rule), the mini fixture and a small house rule, rendered."""
    out = tmp_path_factory.mktemp("site")
    results = []
    pages = {}
    for path in list(shipped_rulebooks().values()) + shipped_house_rules():
        checked = check_file(path)
        assert checked.ok, checked.diagnostics.render()
        base = check_file(checked.chain[-2].path).edition if len(checked.chain) > 1 else None
        ed = checked.edition
        files, _ = render_all(ed, base)
        results.append(EditionOutputs(ed.id, ed, files))
        _write(out / ed.id, files)
        pages[ed.id] = out / ed.id / "charts" / f"{ed.id}.html"
        if base is not None:
            pages[f"{ed.id}-house-summary"] = out / ed.id / "charts" / "house-summary.html"
    _write(out, site_files(results))
    reference = out / "cardgame" / "charts" / "reference.html"
    if reference.is_file():
        pages["cardgame-reference"] = reference  # the round reference of an edition with round rules
    pages["index"] = out / "index.html"
    pages["compare"] = out / "compare.html"
    # the small fixture edition and a house rule on it: pages whose page count is known exactly
    fixtures = tmp_path_factory.mktemp("fixtures")
    base_src = "\n".join(line for line in MINI.read_text().splitlines() if not line.startswith("assert"))
    (fixtures / "base.civ").write_text(base_src + "\n")
    (fixtures / "house.civ").write_text('language 1\nedition house "Hard famine" extends "base.civ"\n'
                                        'change calamity "Famine" { primary { damage(12) } }\n'
                                        'advance "Irrigation" { cost 90 groups crafts credits crafts 5 }\n'
                                        'remove commodity "Water"\n')
    mini = check_file(fixtures / "base.civ").edition
    house = check_file(fixtures / "house.civ").edition
    _write(out / "fixture-mini", render_all(mini)[0])
    _write(out / "fixture-house", render_all(house, mini)[0])
    pages["fixture-mini"] = out / "fixture-mini" / "charts" / "mini.html"
    pages["fixture-house"] = out / "fixture-house" / "charts" / "house.html"
    pages["fixture-house-summary"] = out / "fixture-house" / "charts" / "house-summary.html"
    for p in pages.values():
        assert p.is_file(), p
    return out, pages


def _page_names() -> list[str]:
    names = list(shipped_rulebooks())
    for path in shipped_house_rules():
        checked = check_file(path)
        if checked.ok:
            names += [checked.edition.id, f"{checked.edition.id}-house-summary"]
    if "cardgame" in names:
        names.append("cardgame-reference")
    return names + ["index", "compare", "fixture-mini", "fixture-house", "fixture-house-summary"]


def _open(driver, path: Path) -> str:
    driver.get_log("performance")  # drain
    driver.get_log("browser")
    url = path.as_uri()
    driver.get(url)
    driver.execute_script("return document.readyState")
    return url


def _pdf_pages(driver, paper) -> int:
    from selenium.webdriver.common.print_page_options import PrintOptions

    name, width, height = paper
    opts = PrintOptions()
    opts.orientation = "landscape"
    opts.page_width = width
    opts.page_height = height
    opts.background = True
    pdf = base64.b64decode(driver.print_page(opts))
    assert pdf.startswith(b"%PDF")
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


MEASURE = """
const probe = document.createElement('div');
probe.style.cssText = 'position:absolute;left:0;top:0;visibility:hidden;width:' + arguments[0] + 'mm';
document.body.appendChild(probe);
const limit = probe.getBoundingClientRect().width;
probe.remove();
const wide = [];
for (const t of document.querySelectorAll('table')) {
  const w = Math.max(t.getBoundingClientRect().width, t.scrollWidth);
  if (w > limit + 1) wide.push(['table', t.dataset.slug || '', w]);
  for (const c of t.querySelectorAll('td, th')) {
    if (c.scrollWidth > c.clientWidth + 1) wide.push(['cell', (t.dataset.slug || '') + ': ' + c.textContent.slice(0, 40), c.scrollWidth - c.clientWidth]);
  }
}
return {limit: limit, tables: document.querySelectorAll('table').length, wide: wide,
        resources: performance.getEntriesByType('resource').map(e => e.name)};
"""


def _check_widths(driver, label: str):
    result = driver.execute_script(MEASURE, PRINT_WIDTH_MM)
    assert abs(result["limit"] - PRINT_WIDTH_PX) < 2
    assert result["wide"] == [], f"{label}: wider than the printable page: {result['wide'][:5]}"
    return result


@pytest.mark.parametrize("name", _page_names())
def test_page_in_browser(driver, site, name, tmp_path):
    out, pages = site
    path = pages[name]
    url = _open(driver, path)

    # no console errors
    errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert errors == [], errors

    # the page fetches nothing: the only request is the page itself
    requested = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])
    assert requested and all(u == url or u.startswith("data:") for u in requested), requested

    # on screen: no table or cell wider than the printable width
    screen = _check_widths(driver, f"{name} (screen)")
    assert screen["resources"] == []
    assert screen["tables"] >= 1 or "declares none of the items these charts show" in path.read_text()

    # relative links lead to files that exist (the SVG only where Graphviz drew it)
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    for h in hrefs:
        parsed = urlparse(h)
        assert parsed.scheme == "file", h
        target = Path(unquote(parsed.path))
        if target == path:
            continue  # an anchor inside the page
        if target.suffix == ".svg" and shutil.which("dot") is None:
            continue
        assert target.is_file(), f"{name}: broken link {h}"

    # in print media, laid out at the printable width: still nothing wider
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": math.floor(PRINT_WIDTH_PX), "height": 800, "deviceScaleFactor": 1, "mobile": False})
    try:
        _check_widths(driver, f"{name} (print)")
        printed_height = driver.execute_script("return document.documentElement.scrollHeight")
        guides = driver.execute_script(ROW_GUIDES)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

    # printing: the expected number of pages, landscape on A4 (and on Letter where the count is exact)
    low, high = _expected_pages(name, path)
    # no mostly blank pages: charts follow each other, so the pages are about the height of the
    # content laid out at the printable width, plus one for each forced break (the credits matrix)
    if low != high:
        forced = path.read_text(encoding="utf-8").count('class="new-page"')
        high = min(high, math.ceil(printed_height / PAGE_HEIGHT_PX) + forced + 1)
    # the credits matrix has row guides: neighbouring rows differ in shade
    assert guides in ("none", "shaded"), f"{name}: credits matrix rows without guides"
    papers = PAPERS if low == high else PAPERS[:1]
    counts = {paper[0]: _pdf_pages(driver, paper) for paper in papers}
    for paper, n in counts.items():
        assert low <= n <= high, f"{name}: {n} {paper} pages, expected {low}..{high}"

    # a screenshot of the top of the page (the header, the key and the first chart)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(max(height, 600) + 120, 2400))
    shot = tmp_path / f"{name}.png"
    try:
        assert driver.save_screenshot(str(shot))
    finally:
        driver.set_window_size(1400, 1000)
    assert shot.stat().st_size > 10_000
    if os.environ.get("CIVDSL_SCREENSHOTS"):
        keep = Path(os.environ["CIVDSL_SCREENSHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, keep / shot.name)
        (keep / f"{name}.pages.txt").write_text(json.dumps(counts) + "\n")


def _expected_pages(name: str, path: Path) -> tuple[int, int]:
    """The page count printing must give, as (least, most)."""
    if name in ("index", "fixture-house-summary"):
        return 1, 1
    if name == "cardgame-reference":
        return 2, 30  # a long reference of formulas and tables: more than one page, never a runaway
    if name == "fixture-mini":
        return 3, 3  # the six small charts follow each other on three pages
    if name == "fixture-house":
        return 4, 4  # the summary first, then the same charts
    if name.endswith("-house-summary"):
        return 1, 2  # a shipped house rule's one-page summary (two for a very long one)
    html = path.read_text(encoding="utf-8")
    sections = html.count("<section ")
    forced = html.count('class="new-page"')
    rows = html.count("<tr")
    # charts follow each other; long tables run on, about 12 rows of chart to a page at worst
    return 1, sections + forced + math.ceil(rows / 12)


PHONE = """
const out = {page: document.documentElement.scrollWidth, narrow: []};
for (const t of document.querySelectorAll('table:not(.matrix)')) {
  for (const c of t.querySelectorAll('td, th')) {
    const r = c.getBoundingClientRect();
    if (c.textContent.trim() && r.width > 0 && r.width < arguments[0])
      out.narrow.push((t.dataset.slug || '') + ': ' + c.textContent.trim().slice(0, 30) + ' (' + Math.round(r.width) + 'px)');
  }
}
for (const t of document.querySelectorAll('table.matrix')) {
  if (t.getBoundingClientRect().width > window.innerWidth + 1) out.narrow.push('matrix wider than the screen');
}
return out;
"""


@pytest.mark.parametrize("name", _page_names())
def test_phone_width_reflows_tables_into_cards(driver, site, name, tmp_path):
    """At 400 px the tables become cards: every cell of text is nearly the screen's width, so no
    word is broken letter by letter, and nothing makes the page scroll sideways."""
    out, pages = site
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 400, "height": 860, "deviceScaleFactor": 1, "mobile": True})
    try:
        _open(driver, pages[name])
        result = driver.execute_script(PHONE, 300)
        assert result["page"] <= 401, f"{name}: the page scrolls sideways ({result['page']} px)"
        assert result["narrow"] == [], f"{name}: cells too narrow at 400 px: {result['narrow'][:5]}"
        shot = tmp_path / f"{name}-phone.png"
        assert driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 5_000
        if os.environ.get("CIVDSL_SCREENSHOTS"):
            keep = Path(os.environ["CIVDSL_SCREENSHOTS"])
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, keep / shot.name)
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("rulebook", [n for n in shipped_rulebooks() if n != "cardgame"])
def test_cheat_sheet_fits_two_pages(driver, rulebook, tmp_path):
    """The cheat sheet of docs/charts.md (`civdsl chart X --kind glance,epochs`) prints on one or
    two pages, A4 and Letter."""
    from civdsl.cli.charts import render_chart

    checked = check_file(shipped_rulebooks()[rulebook])
    files, _ = render_chart(checked.edition, None, "glance,epochs", "html")
    (name, html), = files.items()
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    _open(driver, path)
    for paper in PAPERS:
        assert 1 <= _pdf_pages(driver, paper) <= 2, (rulebook, paper[0])


@pytest.mark.parametrize("rulebook", [n for n in shipped_rulebooks() if n != "cardgame"])
def test_turn_sequence_fits_one_page(driver, rulebook, tmp_path):
    """Each edition's sequence of play (`civdsl chart X --kind turns`) prints on one page."""
    from civdsl.cli.charts import render_chart

    checked = check_file(shipped_rulebooks()[rulebook])
    assert checked.edition.turn, f"{rulebook} declares no sequence of play"
    files, _ = render_chart(checked.edition, None, "turns", "html")
    (name, html), = files.items()
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    _open(driver, path)
    for paper in PAPERS:
        assert _pdf_pages(driver, paper) == 1, (rulebook, paper[0])
