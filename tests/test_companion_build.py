"""`civdsl build` writes generated/<edition>/companion.html for every rulebook it builds, house
rules included, deterministically, checked by `build --check` like every other output, and the
index links each page. (The page in a browser: tests/test_companion_page.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

import civdsl
from civdsl.resources import shipped_house_rules, shipped_rulebooks
from companion_harness import node_available, run_engine
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def test_build_writes_a_companion_page_checked_like_the_other_outputs(tmp_path):
    out = tmp_path / "gen"
    fixture = str(FIXTURES / "semantics.civ")
    assert run_cli("build", fixture, "-o", str(out), cwd=ROOT).returncode == 0
    page = out / "semantics" / "companion.html"
    first = page.read_bytes()
    assert first.startswith(b"<!DOCTYPE html>") and b"Content-Security-Policy" in first
    assert run_cli("build", fixture, "-o", str(out), cwd=ROOT).returncode == 0
    assert page.read_bytes() == first  # deterministic
    assert run_cli("build", fixture, "-o", str(out), "--check", cwd=ROOT).returncode == 0
    page.write_bytes(first.replace(b"</main>", b"<p>edited</p></main>"))
    proc = run_cli("build", fixture, "-o", str(out), "--check", cwd=ROOT)
    assert proc.returncode == 1 and "semantics/companion.html: differs from a fresh build" in proc.stderr


def test_a_house_rule_gets_its_own_page_and_the_index_links_every_page(tmp_path):
    """A full build (no PATHS) in a folder of rulebooks writes the index: one companion link per
    edition, to a file the build wrote."""
    work = tmp_path / "work"
    (work / "rulebooks").mkdir(parents=True)
    (work / "rulebooks" / "mini.civ").write_text((FIXTURES / "mini.civ").read_text(encoding="utf-8"), encoding="utf-8")
    (work / "rulebooks" / "hard.civ").write_text(
        'language 1\nedition hard "Hard famine" extends "mini.civ"\n'
        'change calamity "Famine" { primary { damage(12) } }\n', encoding="utf-8")
    proc = run_cli("build", cwd=work)
    assert proc.returncode == 0, proc.stderr
    index = (work / "generated" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*companion\.html)"', index)
    assert sorted(links) == ["hard/companion.html", "mini/companion.html"]
    for link in links:
        assert (work / "generated" / link).is_file()
    house = (work / "generated" / "hard" / "companion.html").read_text(encoding="utf-8")
    assert "Hard famine" in house and "Hard famine" not in (work / "generated" / "mini" / "companion.html").read_text()


def test_every_shipped_house_rule_renders_a_page(rendered):
    for path in shipped_house_rules():
        checked, out = rendered(path)
        assert checked.ok
        html = out.files["companion.html"]
        assert checked.edition.name.split(" (")[0] in html


# Bytes: a page a phone loads at once. It was 250,000 before the pages carried the rulebook's
# rulings, the printed clauses behind each item and a house rule's impact; the engine and the
# interface alone still come to about 255,000 on the largest page (docs/performance.md says what
# would win the rest back), so the goal was that figure plus room for the reference sections,
# 270,000. Generating the engines from Python (docs/engine-route.md) adds Python's values to the
# page's runtime (pylib.js, 11 KB): the issue's budget for that is +30%, the pages grew 5% (to
# 284,478), and the goal was 280,000 for a while. Renaming the locals of every runtime, generated
# engine and interface function to the shortest free names (page.short_runtime_locals) won
# 19 KB back on every page (the Expansion 265,551): the goal was 270,000 again. The planner, its
# objectives' reader and the player state then became translations of the Python (plan.js's 1,700
# hand-written lines gone; the exact objective reader weighs 5 KB more than the twin it replaced):
# the Expansion is 271,740, and the goal was 275,000. The did-you-mean, the question's texts, the
# hand's reader and the answers' assembly were then translated too, replacing their hand-written
# twins (the engines 9.8 KB more before minifying, api.js, core.js, plan.js and resolve.js 5.2 KB
# less), and the planner gained the whole-advance bound: the Expansion is 277,014 (+4.1% against
# the last hand-written engines' 266,049), and the goal was 280,000. The supply limits, checked
# with what the other players hold (pricing.sold_out, cards_in_use, supply_notes) and written once
# in Python, brought the Expansion to 280,217 (+5.3%): the goal is 285,000, inside the issue's +30%.
PAGE_WEIGHT_GOAL = 285_000


@pytest.mark.parametrize("rulebook", [p for p in list(shipped_rulebooks().values()) + shipped_house_rules()
                                      if Path(p).stem != "cardgame"], ids=lambda p: Path(p).stem)
def test_every_shipped_page_weighs_under_its_goal(rulebook, rendered):
    """The page exactly as `civdsl build` writes it (build.render), UTF-8 bytes."""
    checked, out = rendered(rulebook)
    assert checked.ok
    weight = len(out.files["companion.html"].encode("utf-8"))
    assert weight < PAGE_WEIGHT_GOAL, f"{checked.edition.id}: {weight} bytes"


def test_the_pages_copy_of_the_engines_calls_them_by_short_names_and_defines_every_one(rendered):
    from civdsl.companion import py2es
    from civdsl.companion.page import _js_tokens
    checked, out = rendered(shipped_rulebooks()["megaciv"])
    html = out.files["companion.html"]
    engine = py2es.engine_source(short=False)
    names = set(re.findall(r"^function\*? ([a-z]{2}_\w+)", engine, re.M))
    assert {"st_requirement", "ca_resolution_dict", "ls_floor_step"} <= names
    ui = (Path(py2es.__file__).parent / "page" / "ui.js").read_text(encoding="utf-8")
    # the scripts' code without their strings and regular expressions (read by the page's own scanner:
    # a quote inside a regular expression or a single-quoted string pairs no other)
    code = "\n".join("".join('""' if kind in ("str", "regex") else token for kind, token in _js_tokens(script))
                     for script in re.findall(r"<script[^>]*>(.*?)</script>", html, re.S))
    left = {name for name in names if re.search(r"(?<![\w$.])" + name + r"(?![\w$])", code)}
    assert left == {name for name in names if re.search(r"(?<![\w$.])" + name + r"\(", ui)}
    # every short name the page calls is one it defines
    for short in set(re.findall(r"(?<![\w$.])(\$\d+)\(", code)):
        assert re.search(r"(?:function\*?\s*|class\s+)" + re.escape(short) + r"\b", code), short


def test_a_rulebook_with_no_question_for_the_page_gets_no_page(tmp_path, rendered):
    """The card-and-dice game declares no advances, calamities, A.S.T. or score lines: the page
    would offer the board game's facts and a score of 0. The build writes no page for it and the
    index links none; every other shipped rulebook has its page."""
    from civdsl.charts.compare import index_html
    from civdsl.companion.page import page_answers

    outputs = []
    for path in shipped_rulebooks().values():
        checked, out = rendered(path)
        outputs.append(out)
        assert ("companion.html" in out.files) == page_answers(civdsl.load(path).module)
        assert ("companion.html" in out.files) == (checked.edition.id != "cardgame")
    index = index_html(outputs)
    assert 'href="cardgame/companion.html"' not in index and 'href="megaciv/companion.html"' in index


@pytest.mark.skipif(not node_available(), reason="node is not installed (apt-get install nodejs)")
def test_the_page_engine_leaves_out_only_what_the_page_never_asks():
    """The page's engine has no look-ahead, no explanation and no price of trade cards (the page asks
    for none): asked for them it answers with an error naming the option; every other answer is the
    full engine's."""
    from civdsl.companion.jsgen import engine_parts
    from civdsl.companion.page import PAGE_LEAVES_OUT, page_engine, without_unused
    from companion_harness import checked_edition

    module = civdsl.load("megaciv").module
    parts = engine_parts(checked_edition("megaciv"), module)
    full, page = "\n".join(parts) + "\n", "\n".join(page_engine(parts)) + "\n"
    # what only the left-out functions reach goes too (the look-ahead's class, the explanation's helpers)
    reached = len("\n".join(without_unused(parts, ""))) - len("\n".join(without_unused(page_engine(parts), "")))
    assert reached > 10_000  # unminified
    for name in PAGE_LEAVES_OUT:
        assert f"function {name}() {{ throw new UserError(" in page
    state = yaml.safe_load((ROOT / "examples" / "state.yaml").read_text(encoding="utf-8"))
    queries = [{"command": "plan", "state": state, "options": {"horizon": 2}},
               {"command": "plan", "state": state, "options": {"explain": True}},
               {"command": "cost", "state": state, "options": {"tradeCards": "9x2"}},
               {"command": "plan", "state": state, "options": {"top": 3}},
               {"command": "cost", "state": state, "options": {"buy": "Mysticism,Masonry"}}]
    on_page = run_engine(page, queries)
    assert on_page[0]["error"] == {"kind": "user", "message": "--horizon 2 (the look-ahead) is not part of the page"}
    assert on_page[1]["error"] == {"kind": "user", "message": "--explain is not part of the page"}
    assert on_page[2]["error"] == {"kind": "user", "message": "--trade-cards is not part of the page"}
    assert on_page[3:] == run_engine(full, queries)[3:]


def test_score_of_a_rulebook_without_score_lines_says_so():
    """`civdsl score cardgame` (its round state or none) says the game has no score, how it ends and
    which commands play it, instead of a total of 0 or refusing the round state's keys."""
    for args in (["score", "cardgame", "--state", "examples/cardgame-state.yaml"], ["score", "cardgame"]):
        proc = run_cli(*args, cwd=ROOT)
        assert proc.returncode == 1
        assert proc.stderr.strip() == (
            "error: cardgame declares no score: a game ends when the civilization has collapsed; it is played in "
            "rounds: `civdsl step cardgame --state FILE` plays a round from a round state (round, stats, hand, ...), "
            "`civdsl simulate cardgame` whole games")
        assert "Traceback" not in proc.stderr and proc.stdout == ""
    proc = run_cli("score", "cardgame", "--json", cwd=ROOT)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["message"].startswith("cardgame declares no score: ")
    assert run_cli("score", "megaciv", "--state", "examples/state.yaml", cwd=ROOT).returncode == 0
