"""The companion pages in headless Chromium: time to interactive, recompute after a tick, weight.

Run:  python benchmarks/bench_companion.py [--rounds N] [RULEBOOK ...]

For every shipped rulebook and house rule (or the ones named), the page is rendered as
`civdsl build` writes it, into a temporary folder, and opened from there (file://) in one
headless Chromium, each round with the browser's storage cleared. Printed per page:

- weight: the file's bytes, against the goal of 250 KB (docs/performance.md: not met since the pages carry the reference sections), with its parts (the engine's
  runtime, MODEL and generated rules, the UI, the CSS);
- interactive: from the start of navigation until the UI is built with every answer on screen
  (ui.js notes the time, `civdslPage.readyAt`, once it has built the page and computed the first
  answers; the planner answers just after, in its own task, and is timed apart); goal 300 ms;
- tick: ticking one advance (a click on its checkbox: the handler saves the state and
  recomputes every answer but the planner), median over the advances of the rulebook; goal
  16 ms, one frame at 60 Hz;
- plan: the planner's answer after those ticks, for a player holding the first six commodities
  twice, 25 treasury, 4 cities, 20 tokens in a five-player game (it runs after the frame, in a
  task of its own).

Figures are medians over the rounds; each ratio is the figure over its goal (below 1 meets it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from civdsl.codegen import generate_module  # noqa: E402
from civdsl.companion.page import companion_html, module_from_code, page_answers  # noqa: E402
from civdsl.frontend import check_file  # noqa: E402
from civdsl.resources import shipped_house_rules, shipped_rulebooks  # noqa: E402

GOALS = {"weight": 250_000, "interactive": 300.0, "tick": 16.0}

# A player in mid-game, for any rulebook: the first commodities in hand, some treasury, cities
# and tokens, five players (the hand limit may depend on the count).
SITUATION = """
const hand = {};
for (const name of Object.keys(civdsl.model.COMMODITIES || {}).slice(0, 6)) hand[name] = 2;
civdslPage.importState({players: 5, cities: 4, tokens: 20, treasury: 25, commodities: hand});
"""

TICK = """
const boxes = Array.from(document.querySelectorAll('#advances .adv input[type=checkbox]'));
const times = [];
for (const box of boxes.slice(0, arguments[0])) {
  const t = performance.now();
  box.click();
  times.push(performance.now() - t);
}
return times;
"""

PLAN = """
if (!document.getElementById('plan-body')) return null;
const t = performance.now();
civdslPage.plan();
return performance.now() - t;
"""


def pages() -> dict[str, tuple[str, dict[str, int]]]:
    """The page of every shipped rulebook and house rule, with the sizes of its parts."""
    out = {}
    for path in list(shipped_rulebooks().values()) + shipped_house_rules():
        checked = check_file(path)
        if not checked.ok:
            continue
        ed = checked.edition
        _, code = generate_module(ed, {f.display: f.text for f in checked.chain})
        module = module_from_code(code, ed.id)
        if not page_answers(module):
            continue  # `civdsl build` writes no page for it
        html = companion_html(module, ed)
        engine, ui = re.findall(r"<script>(.*?)</script>", html, re.S)
        model = re.search(r"const MODEL ?= ?(?:modelRows\()?(?:JSON\.parse\('(?:[^'\\]|\\.)*'\),? ?)+\)?", engine)
        out[ed.id] = (html, {"engine": len(engine.encode()), "MODEL": len(model.group(0).encode()) if model else 0,
                             "ui": len(ui.encode()), "css": len(re.search(r"<style>(.*?)</style>", html, re.S).group(1).encode())})
    return out


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--window-size=390,844"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def measure(driver, path: Path, ticks: int) -> dict[str, float | None]:
    url = path.as_uri()
    driver.get(url)
    driver.execute_script("window.localStorage.clear()")
    driver.get(url)
    for _ in range(500):
        if driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "true":
            break
        time.sleep(0.01)
    # performance.now() counts from the navigation's start (the time origin)
    interactive = driver.execute_script("return civdslPage.readyAt")
    driver.execute_script(SITUATION)
    tick_times = driver.execute_script(TICK, ticks)
    plan = driver.execute_script(PLAN)
    return {"interactive": interactive, "tick": statistics.median(tick_times) if tick_times else None, "plan": plan}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rulebooks", nargs="*", help="Edition ids (default: every shipped rulebook and house rule).")
    ap.add_argument("--rounds", type=int, default=5, help="Page loads per rulebook (default 5).")
    ap.add_argument("--ticks", type=int, default=12, help="Advances ticked per load (default 12).")
    opts = ap.parse_args()
    found = pages()
    chosen = opts.rulebooks or list(found)
    with tempfile.TemporaryDirectory() as tmp:
        driver = browser()
        try:
            print(f"{'page':<16} {'weight':>9} {'ratio':>6}  {'interactive':>11} {'ratio':>6}  {'tick':>8} {'ratio':>6}  "
                  f"{'plan':>8}   parts (engine = runtime + MODEL + rules; ui; css)")
            for ident in chosen:
                html, parts = found[ident]
                path = Path(tmp) / ident / "companion.html"
                path.parent.mkdir()
                path.write_text(html, encoding="utf-8")
                rounds = [measure(driver, path, opts.ticks) for _ in range(opts.rounds)]
                weight = len(html.encode())
                figures = {k: statistics.median(r[k] for r in rounds if r[k] is not None)
                           if any(r[k] is not None for r in rounds) else None for k in ("interactive", "tick", "plan")}
                tick = figures["tick"]
                plan = figures["plan"]
                print(f"{ident:<16} {weight / 1000:>7.1f}KB {weight / GOALS['weight']:>6.2f}  "
                      f"{figures['interactive']:>9.1f}ms {figures['interactive'] / GOALS['interactive']:>6.2f}  "
                      + (f"{tick:>6.2f}ms {tick / GOALS['tick']:>6.2f}  " if tick is not None else f"{'-':>8} {'-':>6}  ")
                      + (f"{plan:>6.1f}ms" if plan is not None else f"{'-':>8}")
                      + f"   engine {parts['engine'] / 1000:.0f}KB (MODEL {parts['MODEL'] / 1000:.0f}KB), "
                        f"ui {parts['ui'] / 1000:.0f}KB, css {parts['css'] / 1000:.0f}KB")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
