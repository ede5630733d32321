"""No internal name reaches a player: every player's command (resolve, cost, plan, epoch, score,
hand, table, step, simulate) over every shipped rulebook, in text, and the companion page's own
words, carry no snake_case identifier, None, null, True or False. What the player types (a
`--set NAME=N` hint, an `--option`), file paths and quoted rulebook text are not prose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BOARD = ("civ1980", "civ1981", "expansion", "megaciv")

# what a player must never read
LEAK = re.compile(r"\b(?:[a-z][a-z0-9]*_[a-z0-9_]+|[a-z]\w*\.\w+\.\w+|None|null|True|False)\b")
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
                 "depends on the players.P2.cities in stock", "null", "True"):
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
    from civdsl.companion.page import _asset, page_words

    sentences = [s for s in re.findall(r'"((?:[^"\\\n]|\\.)*)"', _asset("ui.js")) if " " in s]
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
