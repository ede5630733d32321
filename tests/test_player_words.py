"""No internal name reaches a player: every player's command (resolve, cost, plan, epoch, score,
hand, table, step, simulate) over every shipped rulebook, in text, and the companion page's own
words, carry no snake_case identifier, None, null, True or False; the pages' rendered text in a
browser neither, nor undefined or NaN. What the player types (a
`--set NAME=N` hint, an `--option`), file paths and quoted rulebook text are not prose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_cli

from test_companion_page import driver, pages  # noqa: F401 (the browser and the pages, as fixtures)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BOARD = ("civ1980", "civ1981", "expansion", "megaciv")

# what a player must never read
LEAK = re.compile(r"\b(?:[a-z][a-z0-9]*_[a-z0-9_]+|[a-z]\w*\.\w+\.\w+|None|null|undefined|NaN|True|False)\b")
# what is not prose: a path, a command-line switch with its value, the rulebook's own quoted words
NOT_PROSE = re.compile(r"\S+\.(?:civ|ya?ml|json|html|svg|py)\b|--\w[\w-]*(?:[ =]\S+)?|\"[^\"]*\"|“[^”]*”|`[^`]*`")


def leaks(text: str) -> list[str]:
    """The lines of TEXT that show an internal name, each with what leaked."""
    out = []
    for line in text.splitlines():
        found = LEAK.findall(NOT_PROSE.sub(" ", line))
        if found:
            out.append(f"{found}: {line.strip()}")
    return out


def _run(args: list[str]) -> str:
    res = run_cli(*args)
    assert res.exit_code in (0, 1), (args, res.output)
    return res.output


def _board_questions(edition: str) -> list[list[str]]:
    from civdsl import load

    rb = load(edition)
    state = ["--state", str(EXAMPLES / "state.yaml")]
    questions = [["cost", edition, "--buy", next(iter(rb.module.ADVANCES))],
                 ["plan", edition] + state,
                 ["epoch", edition] + state, ["epoch", edition],
                 ["score", edition] + state, ["hand", edition, "--cards", "Grain:3,Salt:1"]]
    for name in rb.module.CALAMITIES:
        for role in ("primary", "secondary"):
            questions.append(["resolve", edition, name, "--role", role])
            questions.append(["resolve", edition, name, "--role", role] + state)
    return questions


@pytest.mark.parametrize("edition", BOARD)
def test_board_game_commands_speak_a_players_words(edition):
    found = []
    for args in _board_questions(edition):
        found += [f"civdsl {' '.join(args)}: {leak}" for leak in leaks(_run(args))]
    assert found == []


@pytest.mark.parametrize("table", ["table.yaml", "table-1981.yaml"])
def test_the_table_speaks_a_players_words(table):
    import yaml

    edition = yaml.safe_load((EXAMPLES / table).read_text(encoding="utf-8")).get("rulebook", "megaciv")
    out = _run(["table", edition, str(EXAMPLES / table)])
    assert leaks(out) == []


def test_the_card_game_speaks_a_players_words():
    state = str(EXAMPLES / "cardgame-state.yaml")
    out = _run(["step", "cardgame", "--state", state]) + _run(["simulate", "cardgame", "--runs", "2", "--rounds", "3"])
    assert leaks(out) == []


def test_the_scanner_finds_each_kind_of_leak():
    for text in ("assigns to None other players", "hand_limit_by_players(9)", "drought = False",
                 "depends on the players.P2.cities in stock", "null", "True", "space undefined", "Total NaN"):
        assert leaks(text), text
    assert leaks("pass --set flood_plain_units=N, or a --state file [rulebooks/house/kind_famine.civ:3]") == []


class _PageText:
    """The text a page shows before its script runs: text nodes and the attributes a reader sees."""

    SEEN = ("title", "placeholder", "aria-label", "alt")

    def __init__(self, html: str):
        from html.parser import HTMLParser

        self.parts: list[str] = []
        outer = self

        class _Parser(HTMLParser):
            hidden = 0

            def handle_starttag(self, tag, attrs):
                self.hidden += tag in ("script", "style")
                outer.parts += [v for k, v in attrs if k in outer.SEEN and v]

            def handle_endtag(self, tag):
                self.hidden -= tag in ("script", "style")

            def handle_data(self, data):
                if not self.hidden and data.strip():
                    outer.parts.append(data.strip())

        _Parser().feed(html)


@pytest.mark.parametrize("edition", ["cardgame", *BOARD])
def test_the_companion_pages_text_speaks_a_players_words(edition):
    from civdsl.codegen import generate_module
    from civdsl.companion.page import companion_html, module_from_code
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_rulebooks

    checked = check_file(shipped_rulebooks()[edition])
    ed = checked.edition
    _, code = generate_module(ed, {f.display: f.text for f in checked.chain})
    page = companion_html(module_from_code(code, ed.id), ed)
    assert leaks("\n".join(_PageText(page).parts)) == []


def test_the_companion_pages_own_strings_speak_a_players_words():
    """The sentences ui.js writes, and the vocabulary's words and meanings it shows (a fact's
    label and help), with each `{parameter}` of a sentence template as a number."""
    from civdsl.companion.page import asset_text, page_words

    sentences = [s for s in re.findall(r'"((?:[^"\\\n]|\\.)*)"', asset_text("ui.js")) if " " in s]
    data = page_words()
    for name, kind, doc, minimum, words, states in data["facts"]["rows"]:
        sentences += [doc or "", *(words or [])]
    for effect in data["effects"].values():
        sentences += [re.sub(r"\{[^}]*\}", "N", t or "") for t in [effect["text"], *effect.get("zero", {}).values()]]
    sentences += [word for pair in data.get("derived_words", {}).values() for word in pair]
    assert [leak for s in sentences for leak in leaks(s)] == []


def test_resolve_says_when_the_modifiers_bring_a_loss_to_zero_and_shows_the_floor(tmp_path):
    state = tmp_path / "s.yaml"
    state.write_text("commodities: {Grain: 3}\n", encoding="utf-8")
    out = _run(["resolve", "civ1981", "Famine", "--holds", "Pottery", "--state", str(state)])
    # 22.2.5.1: three Grain cards save 12 of a loss of 9
    assert "no points of damage: Pottery brings it to 0" in out
    assert "points of damage 9 \u2192 0 (never below zero)" in out
    assert "-3" not in out


def test_resolve_names_an_unknown_number_of_other_players_in_words():
    out = _run(["resolve", "megaciv", "Flood"])
    assert "assigns to other players (how many is not known yet)" in out


# --- the page as a player sees it: its rendered text in a real browser, at phone width ---------

# Every section's text as rendered (innerText: what is displayed, not hidden nodes or scripts),
# with each closed <details> opened first so that what a tap reveals is read too, then what a
# pointer or a screen reader reads of each element (its title, label and placeholder).
RENDERED = """
for (const d of document.querySelectorAll('details')) d.open = true;
const said = [];
for (const e of document.body.querySelectorAll('[title], [aria-label], [placeholder]'))
  for (const a of ['title', 'aria-label', 'placeholder']) if (e.getAttribute(a)) said.push(e.getAttribute(a));
return [document.body.innerText].concat(said).join(String.fromCharCode(10));
"""


def _situations(edition: str) -> list[dict]:
    """States that bring out every answer of the page: none; a whole state of this edition's own
    names (the plan, the basket, the epoch on the player's row, the score, every calamity); the
    same player without cities nor a known space (the missing facts named)."""
    from civdsl import load

    module = load(_loadable(edition)).module
    advances = [n for n, a in module.ADVANCES.items() if a["cost"] is not None]
    full = {"holds": advances[:3], "cities": 5, "coastal_cities": 2, "cities_adjacent_open_sea": 2,
            "volcano_cities": 0, "flood_plain_units": 6, "tokens": 18, "cities_in_stock": 4,
            "tokens_in_stock": 20, "treasury": 12, "ships": 2, "ast_position": 7, "players": 9,
            "commodities": {name: 2 for name in list(module.COMMODITIES)[:2]}}
    civs = getattr(module, "CIVILIZATIONS", {})
    if civs:
        full["civilization"] = next(iter(civs))
    last = {"holds": advances, "cities": 0, "tokens": 0, "treasury": 0}  # every advance, nothing on the board
    tracks = getattr(module, "AST", {})
    if tracks:  # the last track's finish (the end of the game), or its last space where no row is given
        track = list(tracks)[-1]
        last.update(ast_track=track, ast_position=tracks[track]["spaces"] or len(tracks[track]["epochs"]))
    return [{}, full, {"holds": advances[3:6], "treasury": 40}, last]


def _page_editions() -> list[str]:
    """The shipped editions with a page: the board games and every shipped house rule."""
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_house_rules

    return [*BOARD, *(check_file(path).edition.id for path in shipped_house_rules())]


def _loadable(edition: str):
    """An edition id as `civdsl.load` takes it: a shipped rulebook's id, a house rule's path."""
    from civdsl.frontend import check_file
    from civdsl.resources import shipped_house_rules

    return next((path for path in shipped_house_rules() if check_file(path).edition.id == edition), edition)


@pytest.mark.browser
@pytest.mark.parametrize("edition", _page_editions())
def test_the_rendered_page_speaks_a_players_words(driver, pages, edition):
    """Each shipped edition's page at phone width, in Chromium: for each situation the answers
    (calamities, the purchase basket and the best plan, the epoch, the score) with every rule
    option switched on and off and a second player at the table; the visible text is scanned."""
    from test_companion_page import PHONE, _console_errors, _open, _resize, _settle

    _resize(driver, PHONE, True)
    found = []
    try:
        _open(driver, pages[edition])
        for i, state in enumerate(_situations(edition)):
            driver.execute_script("civdslPage.importState(arguments[0])", state)
            _settle(driver)
            text = driver.execute_script(RENDERED)
            # the scan reads the answers themselves, not an empty page
            assert "Score by line" in text and "As primary victim" in text and "Epoch" in text, text[:2000]
            found += [f"situation {i}: {leak}" for leak in leaks(text)]
            # the basket: the first advance not held, bought
            driver.execute_script("""
              const row = Array.from(document.querySelectorAll('.adv')).find(r => !r.querySelector('input').checked);
              if (row) row.querySelector('button.buy').click();""")
            _settle(driver)
            found += [f"situation {i}, basket: {leak}" for leak in leaks(driver.execute_script(RENDERED))]
            for option in driver.execute_script("return Array.from(document.querySelectorAll('fieldset.options input')).map(c => c.id)"):
                driver.execute_script("document.getElementById(arguments[0]).click()", option)
                _settle(driver)
                found += [f"situation {i}, {option} switched: {leak}" for leak in leaks(driver.execute_script(RENDERED))]
                driver.execute_script("document.getElementById(arguments[0]).click()", option)
        # a second player at the table: the tabs and the new player's empty answers
        driver.execute_script("const add = document.querySelector('#add-player'); if (add) add.click();")
        _settle(driver)
        found += [f"second player: {leak}" for leak in leaks(driver.execute_script(RENDERED))]
        assert _console_errors(driver) == []
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert found == []
