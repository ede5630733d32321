"""The companion page (generated/<edition>/companion.html) in a real browser: headless Chromium
through Selenium, as tests/test_browser.py opens the printable charts.

Each page is rendered afresh from the rulebooks (never read from generated/) into a temporary
folder and opened from there with file://. Checked: at phone size (390x844) and desktop size,
ticking advances and changing numbers updates the answers; no console errors; no request but
the page itself; every control has a label; tabs keep several players, the browser's storage
keeps them across a reload; the exported state file is what `civdsl ... --state` reads and an
imported one (YAML or JSON) becomes the page's state. Every hostile rulebook of tests/hostile/
builds a page in which no rulebook text runs as script. Screenshots go to the test's temporary
folder (and to $CIVDSL_SCREENSHOTS when set).

Without Chromium, chromedriver or Selenium these tests skip, except under CI (CI set).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

import civdsl
from civdsl.codegen import generate_module
from civdsl.companion.page import companion_html, content_security_policy, module_from_code, page_answers
from civdsl.frontend import check_file
from civdsl.resources import shipped_house_rules, shipped_rulebooks

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = sorted(p for p in (ROOT / "tests" / "hostile").glob("codegen_*.civ"))
PHONE = (390, 844)
DESKTOP = (1400, 1000)
RUNTIME = ROOT / "civdsl" / "companion" / "runtime"
# The engine answers plan once its runtime file (plan.js) is part of it.
COMMANDS = {"resolve", "epoch", "score", "cost"} | ({"plan"} if (RUNTIME / "plan.js").is_file() else set())


def page_html(path: Path) -> tuple[str, object]:
    """The companion page of a rulebook, as `civdsl build` renders it, and its edition."""
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    ed = checked.edition
    _, code = generate_module(ed, {f.display: f.text for f in checked.chain})
    return companion_html(module_from_code(code, ed.id), ed), ed


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


def start_chrome(logs: dict):
    """A headless Chromium at the desktop size, quiet (no background requests), keeping the LOGS
    asked for (`goog:loggingPrefs`); a page load given a minute."""
    chromium, chromedriver = _browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
                f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", logs)
    drv = webdriver.Chrome(service=Service(chromedriver), options=options)
    drv.set_page_load_timeout(60)
    return drv


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    drv = start_chrome({"browser": "ALL", "performance": "ALL"})
    yield drv
    drv.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The companion page of every shipped rulebook and house rule, by edition id."""
    out = tmp_path_factory.mktemp("companion")
    found = {}
    for path in list(shipped_rulebooks().values()) + shipped_house_rules():
        if not page_answers(civdsl.load(path).module):
            continue  # `civdsl build` writes no page for it (test_companion_build.py)
        html, ed = page_html(path)
        target = out / ed.id / "companion.html"
        target.parent.mkdir()
        target.write_text(html, encoding="utf-8")
        found[ed.id] = target
    return found


def _ids() -> list[str]:
    """The editions `civdsl build` writes a page for: every shipped rulebook and house rule with
    a question for the page."""
    ids = []
    for path in list(shipped_rulebooks().values()) + shipped_house_rules():
        checked = check_file(path)
        if checked.ok and page_answers(civdsl.load(path).module):
            ids.append(checked.edition.id)
    return ids


def _open(driver, path: Path, fresh: bool = True) -> str:
    """Open a page and wait until its UI is built; FRESH: with nothing in the browser's storage."""
    url = path.as_uri()
    driver.get(url)
    if fresh:
        driver.execute_script("window.localStorage.clear()")
        driver.get(url)
    _ready(driver)
    return url


def _ready(driver) -> None:
    for _ in range(200):
        if driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "true":
            return
        time.sleep(0.02)
    raise AssertionError("the page's UI was never built")


def _drain(driver) -> None:
    driver.get_log("performance")
    driver.get_log("browser")


def _console_errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "WARNING")]


def _requested(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _settle(driver) -> None:
    """Let the deferred planner run (it answers after the other results are on screen)."""
    for _ in range(200):
        if driver.execute_script("const p = document.getElementById('plan-body'); return !p || !p.hasAttribute('aria-busy')"):
            return
        time.sleep(0.02)
    raise AssertionError("the planner never answered")


def _text(driver, css: str) -> str:
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", css)


def _resize(driver, size: tuple[int, int], mobile: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile})


UNLABELLED = """
const out = [];
for (const c of document.querySelectorAll('input, select, button, textarea, [role=tab]')) {
  const named = (c.labels && Array.from(c.labels).some(l => l.textContent.trim())) || (c.getAttribute('aria-label') || '').trim()
    || (c.getAttribute('aria-labelledby') || '').split(' ').some(id => id && document.getElementById(id) && document.getElementById(id).textContent.trim())
    || ((c.tagName === 'BUTTON' || c.getAttribute('role') === 'tab') && c.textContent.trim());
  if (!named) out.push(c.outerHTML.slice(0, 120));
}
for (const s of document.querySelectorAll('section')) {
  const id = s.getAttribute('aria-labelledby');
  if (!id || !document.getElementById(id)) out.push('section ' + s.id + ' has no heading label');
}
return out;
"""


def _shot(driver, tmp_path: Path, name: str) -> Path:
    shot = tmp_path / f"{name}.png"
    assert driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    keep = os.environ.get("CIVDSL_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
    return shot


# --- every page ----------------------------------------------------------------------------------

class _Elements(HTMLParser):
    """The tags of a page and the text of its scripts and styles, as a browser's parser sees them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._inside = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._inside = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag):
        self._inside = None

    def handle_data(self, data):
        if self._inside == "script":
            self.scripts[-1] += data
        elif self._inside == "style":
            self.styles[-1] += data


def _static_check(html: str) -> _Elements:
    """Two scripts and one style, exactly those the CSP allows by hash, no event-handler
    attribute anywhere, and nothing that loads from elsewhere."""
    parsed = _Elements()
    parsed.feed(html)
    parsed.close()
    assert len(parsed.scripts) == 2 and len(parsed.styles) == 1
    metas = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    csp = metas[0]["content"]
    assert csp == content_security_policy(parsed.scripts, parsed.styles)
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp and "default-src 'none'" in csp
    for tag, attrs in parsed.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        assert "src" not in attrs, (tag, attrs)
        if "href" in attrs:  # a link to a sibling page of the build (the game page), never a resource
            assert tag == "a" and re.fullmatch(r"[a-z_]+\.html", attrs["href"]), (tag, attrs)
    return parsed


@pytest.mark.parametrize("edition", _ids())
def test_every_companion_page_works_offline(driver, pages, edition, tmp_path):
    path = pages[edition]
    html = path.read_text(encoding="utf-8")
    _static_check(html)
    assert len(html.encode("utf-8")) < 400_000  # the weight goal (250 KB) is measured in bench_companion.py
    _resize(driver, DESKTOP, False)
    _drain(driver)
    url = _open(driver, path)
    try:
        assert _console_errors(driver) == []
        requested = _requested(driver)
        assert requested and all(u == url for u in requested), requested
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        api = driver.execute_script("return Object.keys(window.civdsl).filter(k => typeof window.civdsl[k] === 'function')")
        assert COMMANDS <= set(api)
        _settle(driver)
        assert driver.execute_script(UNLABELLED) == []
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# --- using the page ------------------------------------------------------------------------------

def _click(driver, css: str) -> None:
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", css)
    driver.find_element("css selector", css).click()


def _adv(driver, name: str) -> str:
    """The CSS selector of an advance's row."""
    return driver.execute_script("""
      const rows = Array.from(document.querySelectorAll('#advances .adv'));
      const row = rows.find(r => r.dataset.name === arguments[0]);
      return row ? '#' + row.querySelector('input').id : null;""", name)


# The advances a person sees: rows laid out with a size (not `display: none` by any rule, nor inside
# a hidden group), whatever their `hidden` property says.
VISIBLE_ADVANCES = """
return Array.from(document.querySelectorAll('#advances .adv'))
  .filter(r => r.getClientRects().length > 0 && r.getBoundingClientRect().height > 0 && r.checkVisibility())
  .map(r => r.dataset.name);
"""


def _visible_advances(driver) -> list[str]:
    return driver.execute_script(VISIBLE_ADVANCES)


def _status(driver, start: str) -> str:
    """The player bar's status line once it starts with START (a file is read asynchronously)."""
    for _ in range(100):
        text = _text(driver, "#io-status") or ""
        if text.startswith(start):
            return text
        time.sleep(0.05)
    raise AssertionError(f"the status never said {start!r}: {_text(driver, '#io-status')!r}")


def _calamity_row(driver, name: str) -> str:
    return driver.execute_script("""
      for (const tr of document.querySelectorAll('#calamity-rows tr'))
        if (tr.querySelector('th .name').textContent === arguments[0]) return tr.textContent;
      return null;""", name)


def _score_line(driver, label: str) -> str:
    return driver.execute_script("""
      for (const tr of document.querySelectorAll('#score-body tr'))
        if (tr.querySelector('th').textContent === arguments[0]) return tr.querySelector('td').textContent;
      return null;""", label)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_ticking_and_steppers_update_the_answers(driver, pages, size, tmp_path):
    """Mega Civilization at phone and desktop size: each change shows at once in every answer."""
    dims, mobile = (PHONE, True) if size == "phone" else (DESKTOP, False)
    _resize(driver, dims, mobile)
    _drain(driver)
    try:
        url = _open(driver, pages["megaciv"])
        _settle(driver)
        assert driver.execute_script(UNLABELLED) == []

        # cities: the score's line and the total follow the stepper
        assert _score_line(driver, "Cities in play") == "?"
        for _ in range(3):
            _click(driver, "button[aria-label='more cities']")
        assert driver.find_element("id", "in-cities").get_attribute("value") == "3"
        assert _score_line(driver, "Cities in play") == "3"
        _click(driver, "button[aria-label='fewer cities']")
        assert _score_line(driver, "Cities in play") == "2"

        # ticking an advance: Famine's outcome names it, its VP count, another price falls
        agriculture = _text(driver, _adv(driver, "Agriculture") + "-price")
        famine = _calamity_row(driver, "Famine")
        assert "changed by" not in famine
        _click(driver, _adv(driver, "Pottery"))
        assert "changed by Pottery" in _calamity_row(driver, "Famine")
        assert _score_line(driver, "Civilization advances") == "1"
        if "cost" in COMMANDS:
            assert int(_text(driver, _adv(driver, "Agriculture") + "-price")) < int(agriculture)
        assert _text(driver, _adv(driver, "Pottery") + "-price") == "held"

        # a number typed in: treasury, then the basket and the best purchase use it
        box = driver.find_element("id", "in-treasury")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        box.clear()
        box.send_keys("40\t")
        if "cost" in COMMANDS:
            _click(driver, "button[aria-label='buy Agriculture']")
            assert _text(driver, "#basket-total") == _text(driver, _adv(driver, "Agriculture") + "-price")
        if "plan" in COMMANDS:
            _settle(driver)
            # the hand limit depends on the player count: the planner says so until it is given
            assert "players" in _text(driver, "#plan-body")
            box = driver.find_element("id", "in-players")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            box.send_keys("5\t")
            _settle(driver)
            assert _text(driver, "#plan-buy")
            assert _text(driver, "#plan-pay").startswith("Hand in ")
            assert _text(driver, "#plan-budget").startswith("To spend: cards worth 0 and 40 treasury")

        # the epoch: with a civilization and a space, what the next space needs
        driver.execute_script("""const s = document.getElementById('in-civilization'); s.value = 'Hellas';
                                 s.dispatchEvent(new Event('change'));""")
        box = driver.find_element("id", "in-ast_position")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        box.send_keys("1\t")
        assert _text(driver, "#epoch-next").startswith("To move to space 2")

        # the search box narrows the advances
        search = driver.find_element("id", "adv-search")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", search)
        search.send_keys("myst")
        assert _visible_advances(driver) == ["Mysticism"]
        search.clear()
        search.send_keys(" ")

        if size == "phone":
            assert driver.execute_script("return document.documentElement.scrollWidth") <= dims[0] + 1
            # the section buttons lead to the answers far below the inputs
            _click(driver, "nav.jump button:nth-child(5)")
            assert driver.switch_to.active_element.text == "Purchase"
        # the screenshots (docs/ keeps one of each) show the example state of examples/state.yaml
        driver.execute_script("civdslPage.importState(civdslPage.parseStateText(arguments[0]))",
                              (ROOT / "examples" / "state.yaml").read_text(encoding="utf-8"))
        _settle(driver)
        driver.execute_script("window.scrollTo(0, 0)")
        if size == "phone":
            _click(driver, "nav.jump button:nth-child(5)")
        _shot(driver, tmp_path, f"companion-megaciv-{size}")
        assert _console_errors(driver) == []
        assert all(u == url for u in _requested(driver))
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_players_in_tabs_kept_in_storage(driver, pages):
    _resize(driver, DESKTOP, False)
    try:
        _open(driver, pages["megaciv"])
        _click(driver, "button[aria-label='more cities']")
        _click(driver, "#add-player")
        assert driver.find_element("id", "tab-1").get_attribute("aria-selected") == "true"
        assert driver.find_element("id", "in-cities").get_attribute("value") == ""
        name = driver.find_element("id", "player-name")
        name.clear()
        name.send_keys("Anna\t")
        assert driver.find_element("id", "tab-1").text == "Anna"
        # the keyboard moves between tabs (arrow keys, as the ARIA tab pattern has it)
        from selenium.webdriver.common.keys import Keys

        driver.find_element("id", "tab-1").send_keys(Keys.ARROW_LEFT)
        assert driver.find_element("id", "tab-0").get_attribute("aria-selected") == "true"
        assert driver.switch_to.active_element.get_attribute("id") == "tab-0"
        assert driver.find_element("id", "in-cities").get_attribute("value") == "1"
        # a reload keeps both players and their states
        _open(driver, pages["megaciv"], fresh=False)
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1", "Anna"]
        assert driver.find_element("id", "in-cities").get_attribute("value") == "1"
        _click(driver, "#tab-1")
        assert driver.find_element("id", "in-cities").get_attribute("value") == ""
        _click(driver, "#remove-player")
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1"]
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_export_is_the_state_file_the_command_line_reads(driver, pages, tmp_path):
    _resize(driver, DESKTOP, False)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    try:
        _open(driver, pages["megaciv"])
        # import the example state file (YAML, as the command line writes it)
        example = ROOT / "examples" / "state.yaml"
        driver.find_element("id", "import-file").send_keys(str(example))
        for _ in range(100):
            if "imported" in (_text(driver, "#io-status") or ""):
                break
            time.sleep(0.05)
        assert _text(driver, "#io-status") == "imported state.yaml"
        state = driver.execute_script("return civdslPage.stateFile()")
        assert state == yaml.safe_load(example.read_text(encoding="utf-8"))
        assert driver.find_element("id", "in-cities").get_attribute("value") == "5"

        # export through the button: a download the command line reads as --state
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        _click(driver, "#export")
        # the browser may show the file's name before it has written its bytes: wait for a whole file
        exported = written = None
        for _ in range(200):
            done = [p for p in downloads.iterdir() if p.suffix == ".json"]
            if done:
                (exported,) = done
                try:
                    written = json.loads(exported.read_text(encoding="utf-8"))
                    break
                except json.JSONDecodeError:
                    pass
            time.sleep(0.05)
        assert written == state
        run = run_cli("resolve", "megaciv", "Famine", "--state", str(exported), "--json", cwd=ROOT)
        assert run.returncode == 0, run.stderr
        cli = json.loads(run.stdout)
        page = driver.execute_script("return civdsl.resolve(civdslPage.stateFile(), 'Famine', 'primary', {})")
        assert page == cli
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_damaged_import_is_reported_not_applied(driver, pages, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"cities": 3, "holds": ["Pottery"', encoding="utf-8")
    _open(driver, pages["megaciv"])
    _click(driver, "button[aria-label='more cities']")
    driver.find_element("id", "import-file").send_keys(str(bad))
    status = _status(driver, "Not imported")
    assert status.startswith("Not imported: cannot read bad.json: ") and "Your state is as it was." in status
    assert driver.find_element("id", "in-cities").get_attribute("value") == "1"
    assert _console_errors(driver) == []


def test_a_slow_planner_waits_to_be_asked(driver, pages):
    """After a plan slower than the page's budget (some rulebooks and hands take seconds), a
    change no longer runs the planner: the last plan is marked as out of date and a button
    runs the search."""
    _open(driver, pages["megaciv"])
    driver.execute_script("civdslPage.importState(civdslPage.parseStateText(arguments[0]))",
                          (ROOT / "examples" / "state.yaml").read_text(encoding="utf-8"))
    _settle(driver)
    first = _text(driver, "#plan-buy")
    assert first
    driver.execute_script("civdslPage.planBudgetMs = -1")  # every search is now "slow"
    _click(driver, "button[aria-label='more treasury tokens']")
    assert driver.find_elements("css selector", "#plan-body .plan-answer.stale")
    assert "runs when you ask" in _text(driver, "#plan-ask")
    _click(driver, "#plan-run")
    _settle(driver)
    assert not driver.find_elements("css selector", "#plan-body .plan-answer.stale")
    assert _text(driver, "#plan-buy")
    assert _console_errors(driver) == []


@pytest.mark.parametrize("edition", ["megaciv", "expansion", "civ1981"])
def test_effects_read_as_the_command_line_says_them(driver, pages, edition):
    """Each calamity's effects on the page are the command line's sentences (phrases.effect_text,
    the vocabulary's templates) for the same answer, for the example state."""
    from civdsl import phrases

    _open(driver, pages[edition])
    driver.execute_script("civdslPage.importState(civdslPage.parseStateText(arguments[0]))",
                          (ROOT / "examples" / "state.yaml").read_text(encoding="utf-8"))
    shown = driver.execute_script("""
      const out = {};
      for (const tr of document.querySelectorAll('#calamity-rows tr'))
        out[tr.querySelector('th .name').textContent] = Array.from(tr.querySelectorAll('td .effects')).map(e => e.textContent);
      return out;""")
    state = driver.execute_script("return civdslPage.stateFile()")
    assert shown
    for calamity, cells in shown.items():
        expected = []
        for role in ("primary", "secondary"):
            ans = driver.execute_script("return civdsl.resolve(arguments[0], arguments[1], arguments[2], {})", state, calamity, role)
            if ans.get("immune") or ans.get("cancelled") is True or "error" in ans:
                expected.append(None)
                continue
            parts = []
            for e in ans["effects"]:
                taken = e.get("taken")
                args = {**e, "amount": taken if taken is not None else e.get("amount")}
                if args["amount"] is None:
                    args["amount"] = "?"
                text = phrases.effect_text(e["kind"], args)
                if taken is not None and e.get("amount") is not None and taken != e["amount"]:
                    text += f" (the rule demands {e['amount']})"
                if text:
                    parts.append(text)
            # no effect decided yet because a fact decides which apply: "undecided", never "nothing"
            expected.append("; ".join(parts) or ("undecided" if ans["undecided"] or ans["cancelled"] is None else "nothing"))
        for got, want in zip(cells, expected):
            if want is not None:
                assert got == want, (calamity, got, want)


def test_a_state_of_another_edition_keeps_what_this_one_knows(driver, pages):
    """The example state (Mega Civilization's names) imported into the 1981 page is refused with
    the command line's reasons; asked to, the page takes the facts 1981 knows and lists the rest."""
    _open(driver, pages["civ1981"])
    driver.find_element("id", "import-file").send_keys(str(ROOT / "examples" / "state.yaml"))
    status = _status(driver, "Not imported")
    assert status.startswith("Not imported: state.yaml has 4 mistakes. Your state is as it was.")
    assert "`civilization` names unknown civilization `Hellas`" in status
    assert driver.execute_script("return civdslPage.stateFile()") == {}
    _click(driver, "#import-rest")
    status = _text(driver, "#io-status")
    assert status.startswith("imported state.yaml without what it got wrong")
    assert "unknown scenario `The Short Game`" in status
    state = driver.execute_script("return civdslPage.stateFile()")
    assert state["holds"] == ["Pottery", "Agriculture", "Law"] and state["cities"] == 5
    assert "civilization" not in state and "scenario" not in state
    assert _console_errors(driver) == []


# --- hostile rulebooks -----------------------------------------------------------------------------

TRAPS = """
return {pwned: window.PWNED === undefined ? null : String(window.PWNED),
        scripts: document.scripts.length,
        handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
        foreign: document.querySelectorAll('iframe, img, svg, object, embed, marquee, textarea, a[href], b').length,
        text: document.body.textContent + ' ' + document.title};
"""


# Every control of the page, used: each stepper up and down, each choice of each list, each rule
# option, each text field, the search box with every advance name (and names of Object.prototype's
# properties), every advance ticked and bought, the basket bought, the plan put in the basket, the
# section buttons, every "how", a second player added, renamed, reached by the keyboard, removed and
# brought back. Returns what the search showed for each name that is no advance's.
EXERCISE = """
const q = (css) => Array.from(document.querySelectorAll(css));
const fire = (node, type) => node.dispatchEvent(new Event(type, {bubbles: true}));
for (const id of q('.stepper button.step').map(b => b.getAttribute('aria-label'))) {
  for (const n of [0, 1, 2]) {
    const b = q('.stepper button.step').find(x => x.getAttribute('aria-label') === id);
    if (b) b.click();
  }
}
for (const sid of q('#app select').map(s => s.id)) {
  const values = Array.from(document.getElementById(sid).options).map(o => o.value);
  for (const v of values.concat([values[0]])) {
    const s = document.getElementById(sid);
    if (!s) break;
    s.value = v;
    fire(s, 'change');
  }
}
for (const id of q('fieldset.options input').map(c => c.id)) { document.getElementById(id).click(); document.getElementById(id).click(); }
for (const id of q('#app input[type=text]').map(i => i.id)) {
  const i = document.getElementById(id);
  i.value = 'constructor';
  fire(i, 'change');
}
for (const id of q('#app input[type=number]').map(i => i.id)) {
  const i = document.getElementById(id);
  if (!i) continue;
  i.value = '2';
  fire(i, 'change');
}
const found = [];  // [name, advances shown]: a list, so `__proto__` is a name here too
const search = document.getElementById('adv-search');
const visible = () => q('#advances .adv').filter(r => r.getClientRects().length > 0).map(r => r.dataset.name);
if (search) {
  for (const name of arguments[0].concat(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])) {
    search.value = name.split(/[\\r\\n]/)[0];  // a search box holds one line
    fire(search, 'input');
    found.push([name, visible()]);
  }
  search.value = '';
  fire(search, 'input');
}
for (const c of q('#advances .adv input')) c.click();
for (const c of q('#advances .adv input').slice(0, 2)) c.click();
for (const label of q('#advances .adv button.buy').map(b => b.getAttribute('aria-label'))) {
  const b = q('#advances .adv button.buy').find(x => x.getAttribute('aria-label') === label);
  if (b && !b.hidden) b.click();
}
if (document.getElementById('bought')) document.getElementById('bought').click();
civdslPage.plan();
const put = q('#plan-body button').find(b => b.textContent.startsWith('Put this plan'));
if (put) put.click();
for (const b of q('nav.jump button')) b.click();
for (const d of q('details')) { d.open = true; d.open = false; }
document.getElementById('add-player').click();
const name = document.getElementById('player-name');
name.value = '__proto__';
fire(name, 'change');
document.getElementById('tab-1').dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}));
document.getElementById('tab-0').dispatchEvent(new KeyboardEvent('keydown', {key: 'End', bubbles: true}));
document.getElementById('remove-player').click();
document.getElementById('undo-remove').click();
return JSON.stringify({found: found, tabs: q('[role=tab]').map(t => t.textContent)});
"""


@pytest.mark.parametrize("case", HOSTILE, ids=lambda p: p.stem)
def test_hostile_rulebook_text_never_runs(driver, case, tmp_path):
    """A hostile rulebook builds a companion page whose only scripts are the two the CSP allows;
    opened and used (every control of the page, a hostile state file imported and the state
    exported), no rulebook text became markup or ran: nothing set the trap, no element carries a
    handler, nothing was written to the console (no error, no CSP violation), the search finds each
    advance by its name, and the names show as themselves."""
    html, ed = page_html(case)
    parsed = _static_check(html)
    assert not any(tag in ("iframe", "img", "svg", "marquee", "textarea", "b", "a") for tag, _ in parsed.tags)
    path = tmp_path / "companion.html"
    path.write_text(html, encoding="utf-8")
    _resize(driver, PHONE, True)
    _drain(driver)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    try:
        _open(driver, path)
        used = json.loads(driver.execute_script(EXERCISE, list(ed.advances)))
        used["found"] = dict(used["found"])
        _settle(driver)
        # however long a name, nothing makes the page wider than the phone
        assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE[0] + 1
        for name in ed.advances:
            assert name in used["found"][name], (name, used["found"][name])
        for name in ("constructor", "__proto__", "toString", "valueOf", "hasOwnProperty"):
            assert all(name.lower() in a.lower() for a in used["found"][name]), (name, used["found"][name])
        assert used["tabs"] == ["constructor", "__proto__"]  # the text fields got `constructor`
        # a hostile state file: prototype keys, the rulebook's own hostile names, a wrong shape
        state = tmp_path / "hostile.yaml"
        state.write_text("__proto__:\n  cities: 5\nconstructor: 3\nholds: " + json.dumps(list(ed.advances))
                         + "\ncommodities: {" + ", ".join(f"{json.dumps(c)}: 1" for c in ed.commodities) + "}\ntokens: {}\n",
                         encoding="utf-8")
        driver.find_element("id", "import-file").send_keys(str(state))
        _status(driver, "Not imported: hostile.yaml")
        _click(driver, "#import-rest")
        _settle(driver)
        assert driver.execute_script(PROTOTYPE_CLEAN) == []
        assert set(driver.execute_script("return civdslPage.stateFile()")["holds"]) == set(ed.advances)
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
        _click(driver, "#export")
        found = driver.execute_script(TRAPS)
        assert found["pwned"] is None
        assert found["scripts"] == 2 and found["handlers"] == 0 and found["foreign"] == 0
        assert _console_errors(driver) == []
        for name in list(ed.advances) + list(ed.calamities):
            assert name in found["text"], name
        assert ed.name in found["text"]
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_stopped_strict_credit_search_says_so(driver, pages):
    """Under the strict single-use credit variant a state that affords most of the deck stops the
    planner's search at its work limit: the page shows the plan found and the same stop line, with
    the same bound, as the command line."""
    import civdsl
    from civdsl.plan import plan

    _open(driver, pages["strict_credits"])
    state = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 3000, "players": 9}
    driver.execute_script("civdslPage.importState(arguments[0])", state)
    _settle(driver)
    report = plan(civdsl.load(ROOT / "rulebooks" / "house" / "strict_credits.civ"),
                  driver.execute_script("return civdslPage.stateFile()"))
    assert report["complete"] is False
    assert _text(driver, "#plan-stopped") == (
        "The search stopped after 3,000 sets of advances: the best plan found so far (no plan gives more than "
        f"{report['total_at_most']} VP).")
    buy = report["plans"][0]["buy"]
    assert _text(driver, "#plan-buy") == ", ".join(buy[:-1]) + " and " + buy[-1]
    assert _console_errors(driver) == []


def test_a_capped_credit_placement_says_so(driver, pages):
    """Under the strict single-use credit variant a basket whose credit placement stops at its cap
    shows the price found and the same least price as `civdsl cost`."""
    import civdsl
    from benchmark_modules import bench_planner

    capped = bench_planner().SINGLE_USE_CAPPED
    _open(driver, pages["strict_credits"])
    driver.execute_script("civdslPage.importState(arguments[0])", {"holds": capped["holds"], "players": 9})
    _settle(driver)
    for name in capped["buy"]:
        _click(driver, f"button[aria-label='buy {name}']")
    result = civdsl.load(ROOT / "rulebooks" / "house" / "strict_credits.civ").cost(capped["holds"], capped["buy"],
                                                                                 {"players": 9})
    assert result["complete"] is False
    assert _text(driver, "#basket-total") == str(result["total"])
    assert _text(driver, "#cost-capped") == (
        "The best placement of the credits found, maybe not the least (the placement search stopped at its limit of "
        f"{result['stopped']['bound']:,} {result['stopped']['limit']}): no placement pays less than "
        f"{result['total_at_least']}.")
    assert _console_errors(driver) == []


# --- the page against its own inputs ----------------------------------------------------------------

def _import_text(driver, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    driver.find_element("id", "import-file").send_keys(str(path))


PROTOTYPE_CLEAN = """
const probe = {};
return ['cities', 'holds', 'x', 'tokens'].filter(k => k in probe || probe[k] !== undefined);
"""


def test_a_proto_key_in_a_state_file_is_an_unknown_name(driver, pages, tmp_path):
    """`__proto__:` in an imported YAML (or JSON) state is refused as an unknown key, in the
    command line's words; nothing reaches Object.prototype, so no stepper shows a value from it."""
    _resize(driver, PHONE, True)
    _drain(driver)
    try:
        _open(driver, pages["megaciv"])
        _import_text(driver, tmp_path, "proto.yaml", "__proto__:\n  cities: 5\n  x: 1\ncities: 2\n")
        status = _status(driver, "Not imported")
        assert "state: unknown key `__proto__`" in status
        assert driver.execute_script(PROTOTYPE_CLEAN) == []
        assert driver.find_element("id", "in-cities").get_attribute("value") == ""
        _import_text(driver, tmp_path, "proto.json", '{"__proto__": {"tokens": 3}, "constructor": {"holds": 1}}')
        status = _status(driver, "Not imported: proto.json")
        assert "unknown key `__proto__`" in status and "unknown key `constructor`" in status
        assert driver.execute_script(PROTOTYPE_CLEAN) == []
        # the parser's records have no prototype at all
        assert driver.execute_script(
            "const s = civdslPage.parseStateText('__proto__:\\n  cities: 5\\n');"
            "return [Object.getPrototypeOf(s) === null, Object.keys(s), ({}).cities === undefined]") == \
            [True, ["__proto__"], True]
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_engine_api_answers_instead_of_throwing(driver, pages):
    """civdsl.resolve, epoch, score, cost and plan return {error} for any input, even one whose
    reading fails inside the engine (a state whose getter throws, an own `__proto__` key)."""
    _open(driver, pages["megaciv"])
    answers = driver.execute_script("""
      const bomb = {get holds() { throw new Error('boom'); }};
      const proto = JSON.parse('{"__proto__": {"cities": 5}}');
      const out = [];
      for (const state of [bomb, proto]) {
        for (const ask of [() => civdsl.resolve(state, 'Famine', 'primary', {}), () => civdsl.epoch(state, {}),
                           () => civdsl.score(state, {}), () => civdsl.cost(state, {buy: 'Pottery'}), () => civdsl.plan(state, {})]) {
          try { const a = ask(); out.push(a.error ? a.error.kind + ': ' + a.error.message : 'answered'); }
          catch (e) { out.push('threw ' + e.message); }
        }
      }
      return out;""")
    assert answers[:5] == ["engine: the engine failed: boom"] * 5
    assert answers[5:] == ["user: state: unknown key `__proto__`"] * 5


STORED = [
    ({"active": 0, "players": [{"name": "Anna", "state": {"holds": {}, "cities": 3}}]},
     ["Anna: state: `holds` must be a list of names"]),
    ({"active": 0, "players": [{"name": "Anna", "state": {"holds": 5, "citys": 2}}]},
     ["Anna: state: `holds` must be a list of names", "Anna: state: unknown key `citys` (did you mean `cities`?)"]),
    ({"active": 9, "players": [{"name": "Anna", "state": 5}, 7, {"name": "Bo", "state": {"cities": 3}}]},
     ["Anna: a state is a mapping of facts (name: value), not a number", "player 2 (not a player)"]),
    ({"players": "x"}, ["the saved players (not a list of players)"]),
    ("{not json", ["the saved players (not readable)"]),
]


@pytest.mark.parametrize("stored, dropped", STORED, ids=["holds-map", "holds-number", "players", "not-a-list", "text"])
def test_a_stored_state_of_the_wrong_shape_keeps_what_is_valid(driver, pages, stored, dropped):
    """Whatever any page of the same origin wrote under the page's key, the page opens: it keeps
    what is valid, says what it left out, and a button resets the saved state."""
    _resize(driver, PHONE, True)
    _drain(driver)
    try:
        path = pages["megaciv"]
        _open(driver, path)
        text = stored if isinstance(stored, str) else json.dumps(stored)
        driver.execute_script("localStorage.setItem('civdsl-companion:megaciv', arguments[0])", text)
        _open(driver, path, fresh=False)
        notice = driver.execute_script("return Array.from(document.querySelectorAll('#store-notice li')).map(l => l.textContent)")
        assert notice == dropped
        assert driver.find_element("id", "store-notice").is_displayed()
        assert _text(driver, "#score-total")  # the answers are on the page
        if isinstance(stored, dict) and isinstance(stored["players"], list):
            valid = [p for p in stored["players"] if isinstance(p, dict)]
            assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == [p["name"] for p in valid]
            kept = [{k: v for k, v in p["state"].items() if k == "cities"} if isinstance(p["state"], dict) else {}
                    for p in valid]
            assert driver.execute_script("return civdslPage.stateFile()") == kept[0]
        _click(driver, "#reset-store")
        assert not driver.find_elements("id", "store-notice")
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1"]
        _open(driver, path, fresh=False)
        assert not driver.find_elements("id", "store-notice")
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_an_import_with_a_typo_is_refused_and_the_state_kept(driver, pages, tmp_path):
    """A misspelt fact or name, or YAML the page cannot read whole, is refused with the command
    line's did-you-mean; the player's state stays as it was."""
    _resize(driver, PHONE, True)
    _drain(driver)
    try:
        _open(driver, pages["megaciv"])
        _click(driver, "button[aria-label='more cities']")
        _import_text(driver, tmp_path, "typo.yaml", "citys: 3\nholds: [Potery, Pottery]\ntokens: 4\n")
        status = _status(driver, "Not imported")
        assert status.startswith("Not imported: typo.yaml has 2 mistakes. Your state is as it was.")
        assert "state: unknown key `citys` (did you mean `cities`?)" in status
        assert "state: `holds` names unknown advance `Potery` (did you mean `Pottery`?)" in status
        assert driver.execute_script("return civdslPage.stateFile()") == {"cities": 1}
        assert driver.find_element("id", "import-rest").is_displayed()
        for name, text, reason in [("open.yaml", "holds: [Pottery\n", "line 1: a [ that never closes"),
                                   ("twice.yaml", "cities: 3\ncities: 4\n", "line 2: `cities` is given twice"),
                                   ("tab.yaml", "commodities:\n\tGrain: 2\n", "line 2: a tab in the indentation"),
                                   ("quote.yaml", "traded_by: 'anna\n", "line 1: a ' that never closes"),
                                   # the command line's YAML reads 010 as 8: refused, never read as 10
                                   ("octal.yaml", "cities: 010\n", "line 1: `010`: write a whole number in plain digits")]:
            _import_text(driver, tmp_path, name, text)
            status = _status(driver, f"Not imported: cannot read {name}")
            assert reason in status, status
            assert driver.execute_script("return civdslPage.stateFile()") == {"cities": 1}
        _import_text(driver, tmp_path, "typo.yaml", "citys: 3\nholds: [Potery, Pottery]\ntokens: 4\n")
        _status(driver, "Not imported: typo.yaml")
        _click(driver, "#import-rest")
        assert driver.execute_script("return civdslPage.stateFile()") == {"holds": ["Pottery"], "tokens": 4}
        # YAML 1.1's words for true and false, as the command line reads them
        _import_text(driver, tmp_path, "words.yaml", "sole_leader: yes\noptions:\ntokens: 5\n")
        _status(driver, "imported words.yaml")
        assert driver.execute_script("return civdslPage.stateFile()") == {"tokens": 5, "sole_leader": True}
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_removing_a_player_can_be_undone(driver, pages):
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        _click(driver, "#add-player")
        name = driver.find_element("id", "player-name")
        name.clear()
        name.send_keys("Anna\t")
        _click(driver, "button[aria-label='more cities']")
        _click(driver, "#remove-player")
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1"]
        assert _text(driver, "#io-status").startswith("Removed Anna.")
        _click(driver, "#undo-remove")
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1", "Anna"]
        assert driver.find_element("id", "tab-1").get_attribute("aria-selected") == "true"
        assert driver.find_element("id", "in-cities").get_attribute("value") == "1"
        _open(driver, pages["megaciv"], fresh=False)  # and the storage has Anna back
        assert [t.text for t in driver.find_elements("css selector", "[role=tab]")] == ["Player 1", "Anna"]
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_advance_search_shows_only_what_it_finds_at_phone_width(driver, pages, tmp_path):
    """At phone width, what a person sees after typing in the search box: the advances found and
    their groups, nothing else, and the count says the same number."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        total = len(_visible_advances(driver))
        assert total > 40
        search = driver.find_element("id", "adv-search")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", search)
        search.send_keys("myst")
        assert _visible_advances(driver) == ["Mysticism"]
        assert _text(driver, "#adv-count") == f"1 of {total} advances"
        groups = driver.execute_script(
            "return Array.from(document.querySelectorAll('#advances fieldset.group')).filter(g => g.getClientRects().length).length")
        assert groups == 1
        row = driver.execute_script("""const r = Array.from(document.querySelectorAll('#advances .adv')).find(r => r.dataset.name === 'Mysticism');
                                       r.scrollIntoView({block: 'center'}); const b = r.getBoundingClientRect();
                                       return document.elementFromPoint(b.left + 5, b.top + b.height / 2).closest('.adv').dataset.name""")
        assert row == "Mysticism"
        _shot(driver, tmp_path, "companion-search-phone")
        search.clear()
        search.send_keys(" ")
        assert len(_visible_advances(driver)) == total
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_i_bought_these_pays_as_plan_save_does(driver, pages, tmp_path):
    """"I bought these" leaves the state `civdsl plan --save` writes for the same purchase: the
    advances held, the cards kept and the treasury left, so the next plan spends nothing twice."""
    example = ROOT / "examples" / "state.yaml"
    saved = tmp_path / "after.yaml"
    run = run_cli("plan", "megaciv", "--state", str(example), "--save", str(saved), cwd=ROOT)
    assert run.returncode == 0, run.stderr
    after = yaml.safe_load(saved.read_text(encoding="utf-8"))
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        driver.execute_script("civdslPage.importState(civdslPage.parseStateText(arguments[0]))", example.read_text(encoding="utf-8"))
        _settle(driver)
        _click(driver, "#plan-body button")  # the best purchase into the basket
        assert _text(driver, "#plan-pay") == "Hand in 3 \u00d7 Grain and 1 \u00d7 Salt and 11 treasury."
        _click(driver, "#bought")
        _settle(driver)
        state = driver.execute_script("return civdslPage.stateFile()")
        assert set(state.pop("holds")) == set(after.pop("holds"))
        assert state == {k: v for k, v in after.items() if v != {}}
        assert _text(driver, "#plan-budget").startswith("To spend: cards worth 0 and 1 treasury")
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_basket_that_cannot_be_paid_is_not_marked(driver, pages):
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        driver.execute_script("civdslPage.importState(arguments[0])", {"treasury": 5, "players": 5})
        _click(driver, "button[aria-label='buy Mysticism']")
        _click(driver, "#bought")
        assert _text(driver, "#bought-status").startswith("Not marked: ")
        assert driver.execute_script("return civdslPage.stateFile()") == {"treasury": 5, "players": 5}
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("edition", ["civ1980", "civ1981", "expansion"])
def test_a_marker_whose_epoch_is_unknown_says_so(driver, pages, edition):
    """Where the rulebook gives no civilization's row, a space on the A.S.T. has no known epoch:
    the page says why (the engine's reason) and lists the epochs reached, never "the last space"."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages[edition])
        box = driver.find_element("id", "in-ast_position")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        box.send_keys("3\t")
        track = civdsl.load(edition).epochs(None, [], {"ast_position": 3})[0]
        reason = track["marker"]["unknown"]
        assert _text(driver, "#epoch-unknown") == f"The epoch of your marker is not known: {reason}."
        body = _text(driver, "#epoch-body")
        assert "last space" not in body and "null" not in body
        assert "A.S.T.: space 3, epoch not known" in _text(driver, "#summary")
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


EITHER_OR = ROOT / "tests" / "fixtures" / "either_or.civ"


def test_epoch_alternatives_keep_their_thresholds(driver, tmp_path):
    """Each alternative of an "or" requirement shows the player's count and what it needs, as
    `civdsl epoch` prints it ("5 cities (at least 2 needed)", "or ... (at least 1 needed)")."""
    state = {"civilization": "Hellas", "ast_position": 4, "cities": 5}
    run = run_cli("epoch", str(EITHER_OR), "--ast", "basic", *[f"--set={k}={v}" for k, v in state.items()], cwd=ROOT)
    assert run.returncode == 0, run.stderr
    cli_line = next(line for line in run.stdout.splitlines() if "either" in line)
    page = tmp_path / "either_or.html"
    page.write_text(page_html(EITHER_OR)[0], encoding="utf-8")
    _resize(driver, PHONE, True)
    try:
        _open(driver, page)
        driver.execute_script("civdslPage.importState(arguments[0])", {**state, "ast_track": "basic"})
        alts = driver.execute_script("return Array.from(document.querySelectorAll('#epoch-body li.alt')).map(l => l.textContent)")
        assert alts == ["5 cities (at least 2 needed)", "or Monument: no and 5 cities (at least 1 needed)"]
        assert cli_line.endswith("either " + alts[0] + ", " + alts[1])
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_an_undecided_outcome_is_shown_as_undecided(driver, pages):
    """A calamity whose effects depend on a fact not given is "undecided", with the fact to give."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        cell = driver.execute_script("""
          for (const tr of document.querySelectorAll('#calamity-rows tr'))
            if (tr.querySelector('th .name').textContent === 'Flood') return Array.from(tr.querySelectorAll('td')[0].children).map(e => e.textContent);
          return null;""")
        assert cell[0] == "undecided"
        assert any(line.startswith("undecided: which effects apply (give unit points on the flood plain") for line in cell), cell
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_state_file_of_many_mistakes_is_read_within_bounds(driver, pages, tmp_path):
    """Thousands of misspelt names and unknown keys: twenty reasons in the command line's words,
    then a count, every name still checked (the valid one is kept); a store of more players than
    any edition seats keeps the first twenty."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        names = [f"Potery{i}" for i in range(5000)] + ["Pottery"]
        text = "holds: [" + ", ".join(names) + "]\n" + "".join(f"citys{i}: 1\n" for i in range(3000))
        _import_text(driver, tmp_path, "many.yaml", text)
        _status(driver, "Not imported: many.yaml")
        reasons = driver.execute_script("return Array.from(document.querySelectorAll('#io-status li')).map(l => l.textContent)")
        assert len(reasons) == 21 and reasons[-1] == "... and 7,980 more"
        assert reasons[0] == "state: `holds` names unknown advance `Potery0` (did you mean `Pottery`?)"
        _click(driver, "#import-rest")
        assert driver.execute_script("return civdslPage.stateFile()") == {"holds": ["Pottery"]}
        store = {"active": 0, "players": [{"name": f"P{i}", "state": {"cities": i}} for i in range(30)]}
        driver.execute_script("localStorage.setItem('civdsl-companion:megaciv', arguments[0])", json.dumps(store))
        _open(driver, pages["megaciv"], fresh=False)
        assert len(driver.find_elements("css selector", "[role=tab]")) == 20
        assert driver.execute_script("return Array.from(document.querySelectorAll('#store-notice li')).map(l => l.textContent)") == \
            ["10 players after the first 20"]
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_epoch_answer_shows_wonder_of_the_world_counted_as_a_city(driver, pages):
    """004 ch 9: Wonder of the World "counts as a city during the A.S.T.-alteration phase": the
    page says which count the requirements used, in `civdsl epoch`'s words."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["megaciv"])
        driver.execute_script("civdslPage.importState(arguments[0])", {
            "civilization": "Hellas", "ast_position": 4, "cities": 1, "ast_track": "basic", "holds": ["Wonder of the World"]})
        assert _text(driver, "#epoch-body p.counted") == \
            "Counted for the A.S.T.: 2 cities (1 given + 1 for Wonder of the World)."
        assert "The marker moves to space 5." in _text(driver, "#epoch-body")
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_vp_band_option_switches_the_score_and_the_advances_victory_points(driver, tmp_path):
    """13d's band boundary as the option vp_cost_200_is_3: Library at 200 (a test rulebook) is
    6 VP by default and 3 with the option ticked, in the score and in the advance's row."""
    page = tmp_path / "vp_band_200.html"
    page.write_text(page_html(ROOT / "tests" / "fixtures" / "vp_band_200.civ")[0], encoding="utf-8")
    _resize(driver, PHONE, True)
    try:
        _open(driver, page)
        driver.execute_script("civdslPage.importState(arguments[0])", {"holds": ["Library"], "cities": 0, "ast_position": 0})
        library = _adv(driver, "Library")
        assert _score_line(driver, "Civilization advances") == "6"
        assert driver.execute_script("return document.querySelector(arguments[0]).closest('.adv').querySelector('.vp').textContent",
                                     library) == " \u00b7 6 VP"
        _click(driver, "#opt-vp_cost_200_is_3")
        assert _score_line(driver, "Civilization advances") == "3"
        assert driver.execute_script("return document.querySelector(arguments[0]).closest('.adv').querySelector('.vp').textContent",
                                     library) == " \u00b7 3 VP"
        assert driver.execute_script("return civdslPage.stateFile()")["options"] == {"vp_cost_200_is_3": True}
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_name_typed_with_decomposed_accents_is_found(driver, tmp_path):
    """The rulebook's names are NFC (as Python reads them, state.nfc): a player who types a name
    with its accent as a combining character finds the advance in the search box, a state file
    that names it so is read, and the engine API answers for it as for the composed name."""
    composed, decomposed = "Caf\u00e9", "Cafe\u0301"
    mini = (ROOT / "tests" / "fixtures" / "mini.civ").read_text(encoding="utf-8")
    rulebook = tmp_path / "accented.civ"
    rulebook.write_text(mini.replace('"Pottery"', f'"{composed}"'), encoding="utf-8")
    page = tmp_path / "accented.html"
    page.write_text(page_html(rulebook)[0], encoding="utf-8")
    _open(driver, page)
    search = driver.find_element("id", "adv-search")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", search)
    search.send_keys("cafe\u0301")
    assert driver.execute_script("return document.getElementById('adv-search').value") == "cafe\u0301"
    assert _visible_advances(driver) == [composed]
    dropped = driver.execute_script("return civdslPage.importState(civdslPage.parseStateText(arguments[0]))",
                                    f'{{"holds": ["{decomposed}"]}}')
    assert dropped == []
    assert driver.execute_script("return civdsl.model.ADVANCES[arguments[0]] !== undefined", composed)
    assert driver.find_element("css selector", _adv(driver, composed)).is_selected()
    answers = driver.execute_script("""return [[arguments[0]], [arguments[1]], []].map(h => JSON.stringify(
                                         civdsl.score({holds: h}, {})))""", decomposed, composed)
    assert "error" not in answers[0] and answers[0] == answers[1] != answers[2]
    assert _console_errors(driver) == []


def test_the_plan_pane_answers_for_the_chosen_objective_and_reads_expressions_as_the_command_line(driver, pages):
    """The plan pane's objective (cards) answers as `civdsl plan --objective cards`; an objective
    expression asked of the page's engine gives the command line's plan or its message."""
    from civdsl.plan import plan
    from civdsl.state import StateError

    _open(driver, pages["megaciv"])
    driver.execute_script("civdslPage.importState(civdslPage.parseStateText(arguments[0]))",
                          (ROOT / "examples" / "state.yaml").read_text(encoding="utf-8"))
    _settle(driver)
    driver.execute_script("const s = document.getElementById('in-objective'); s.value = 'cards';"
                          "s.dispatchEvent(new Event('change'))")
    _settle(driver)
    state = driver.execute_script("return civdslPage.stateFile()")
    rulebook = civdsl.load("megaciv")
    want = plan(rulebook, dict(state), objective_spec="cards", top=1)["plans"][0]
    assert all(name in _text(driver, "#plan-buy") for name in want["buy"]) and "advances" in _text(driver, "#plan-body")
    for spec in ("vp / 3 + cost // 7", "vp + costt", "vp andcost", "(vp"):
        # the answer as JSON, as `civdsl plan --json` prints it (an exact fraction as its text "n/d")
        page = driver.execute_script("return JSON.parse(JSON.stringify(civdsl.plan(arguments[0], "
                                     "{objective: arguments[1], top: 1})))", state, spec)
        try:
            best = plan(rulebook, dict(state), objective_spec=spec, top=1)["plans"][0]
        except StateError as exc:
            assert page["error"]["message"] == str(exc)
        else:
            assert page["plans"][0]["buy"] == best["buy"] and page["plans"][0]["objective"] == str(best["objective"])
    assert _console_errors(driver) == []


def test_what_the_other_players_hold_makes_an_advance_sold_out(driver, pages):
    """At phone width, 1981 with five players (seed 001 26.4: 2 Mysticism cards in use): the other
    players holding both, Mysticism in the basket is not allowed, said as the command line says it,
    as is an advance whose prerequisite is not held."""
    _resize(driver, PHONE, True)
    try:
        _open(driver, pages["civ1981"])
        _settle(driver)
        _click(driver, "#others-hold summary")
        for _ in range(2):
            _click(driver, "button[aria-label='more Mysticism (3 in the box)']")
        for _ in range(5):
            _click(driver, "button[aria-label='more players in the game']")
        _click(driver, "button[aria-label='buy Mysticism']")
        _click(driver, "button[aria-label='buy Democracy']")
        _settle(driver)
        shown = driver.find_element("tag name", "body").text.splitlines()
        assert "not allowed: Mysticism: sold out: the other players hold all 2 cards in use" in shown
        assert "not allowed: Democracy: needs Law held before this turn" in shown
        assert not any("{" in line for line in shown if line.startswith("not allowed"))
        assert _console_errors(driver) == []
    finally:
        _resize(driver, DESKTOP, False)
