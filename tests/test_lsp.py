"""The language server: the analysis engine in-process, then the real server over a pipe, driven as
an editor drives it (JSON-RPC with Content-Length framing) against the shipped rulebooks."""

from __future__ import annotations

import importlib.util
import json
import queue
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from civdsl import parser
from civdsl import vocabulary as vocab
from civdsl.frontend import check_file
from civdsl.lsp import (Engine, completions, definitions, format_document, hover_text, outline, references,
                        target_at, tokenize)
from civdsl.rounds.model import rules

ROOT = Path(__file__).resolve().parent.parent
MEGACIV = ROOT / "rulebooks" / "megaciv.civ"

HAVE_PYGLS = importlib.util.find_spec("pygls") is not None and importlib.util.find_spec("lsprotocol") is not None


def _all_rulebooks() -> list[Path]:
    files = sorted((ROOT / "rulebooks").rglob("*.civ")) + sorted((ROOT / "tests").rglob("*.civ"))
    return [f for f in files if f.is_file()]


def _analyse(path: Path, text: str | None = None):
    engine = Engine()
    doc = engine.open(path.resolve().as_uri(), text if text is not None else path.read_text(encoding="utf-8"), 1)
    return engine, doc, engine.analyse(doc)


def _offset(text: str, needle: str, inside: int = 1, nth: int = 0) -> int:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + inside


# --- the engine: same diagnostics as `civdsl check` -----------------------------------------------


@pytest.mark.parametrize("path", _all_rulebooks(), ids=lambda p: str(p.relative_to(ROOT)))
def test_buffer_diagnostics_are_those_of_check(path):
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: an editor buffer cannot hold it as it is on disk")
    _, _, analysis = _analyse(path, text)
    assert analysis.diagnostics.to_json() == check_file(path).diagnostics.to_json()


def test_edits_give_the_diagnostics_of_check(tmp_path):
    """Random edits to a buffer (reusing parses of unchanged statements, shifting moved ones,
    syntax errors anywhere) report exactly what `check` reports for the same text on disk."""
    rng = random.Random(10)
    source = MEGACIV.read_text(encoding="utf-8")
    path = tmp_path / "megaciv.civ"
    engine = Engine()
    doc = engine.open(path.as_uri(), source, 0)
    pieces = ["\n", "x", " ", '"', "{", "}", "\n\n", '# comment "{\n', 'holds("Potery")', "(",
              'advance "New" { cost 50 groups crafts credits crafts 5 }\n',
              'when holds("Pottery") { prevent damage 5 }\n',
              "const deep = " + " + ".join(["1"] * 120) + "\n"]
    text = source
    for step in range(24):
        pos = rng.randrange(len(text) + 1)
        if step % 6 == 5:
            text = source
        elif step % 6 == 0:  # a valid edit that moves every statement after it down a line
            starts = [m.start() for m in re.finditer(r"\n(?=advance |calamity )", text)] or [0]
            at = rng.choice(starts)
            text = text[:at] + "\n# moved\n" + text[at:]
        elif rng.random() < 0.6:
            text = text[:pos] + rng.choice(pieces) + text[pos:]
        else:
            text = text[:pos] + text[pos + rng.randint(1, 40):]
        path.write_text(text, encoding="utf-8")
        engine.update(path.as_uri(), text, step + 1)
        got = engine.analyse(doc).diagnostics.to_json()
        assert got == check_file(path).diagnostics.to_json(), f"step {step}"
    assert doc.parser.stats["reused"] > 0 and doc.parser.stats["shifted"] > 0


def test_a_misspelt_advance_is_CIV010_at_its_string():
    text = MEGACIV.read_text(encoding="utf-8").replace('holds("Pottery")', 'holds("Potery")', 1)
    _, _, analysis = _analyse(MEGACIV, text)
    [d] = analysis.diagnostics.errors
    assert d.code == "CIV010" and "Potery" in d.message
    line = text[: text.index('"Potery"')].count("\n") + 1
    column = text.split("\n")[line - 1].index('"Potery"') + 1
    assert (d.span.line, d.span.column, d.span.end_column) == (line, column, column + len('"Potery"'))


def test_line_and_column_survive_statements_moving():
    engine = Engine()
    source = MEGACIV.read_text(encoding="utf-8")
    doc = engine.open(MEGACIV.as_uri(), source, 1)
    engine.analyse(doc)
    moved = source.replace('advance "Mysticism"', '\n\n\nadvance "Mysticism"', 1).replace(
        'holds("Pottery")', 'holds("Potery")', 1)
    engine.update(MEGACIV.as_uri(), moved, 2)
    [d] = engine.analyse(doc).diagnostics.errors
    assert d.span.line == moved[: moved.index('"Potery"')].count("\n") + 1
    assert doc.parser.stats["shifted"] > 0


# --- hover, definition, references --------------------------------------------------------------


def test_hover_advance_summary_and_where_defined():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    hover, about = hover_text(analysis, _offset(text, 'holds("Calendar")', 8))
    decl_line = text[: text.index('advance "Calendar"')].count("\n") + 1
    cal = analysis.edition.advances["Calendar"]
    assert "**Calendar** (advance)" in hover
    assert f"cost {cal.cost}" in hover and "sciences" in hover
    assert f"defined at `rulebooks/megaciv.civ:{decl_line}`" in hover
    assert text[about.start:about.end] == '"Calendar"'


def test_hover_calamity_is_the_generated_sentence():
    from civdsl import describe

    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    hover, _ = hover_text(analysis, _offset(text, 'calamity "Famine"', 11))
    famine = analysis.edition.calamities["Famine"]
    assert describe.calamity(famine) in hover
    assert f"stack {famine.stack}" in hover and famine.klass in hover
    assert "rulebooks/megaciv.civ:" in hover


def test_hover_vocabulary_word():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    hover, _ = hover_text(analysis, _offset(text, "damage(", 2))
    assert "effect kind" in hover and vocab.EFFECT_KINDS["damage"].doc in hover


def test_definition_and_references_of_an_advance():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    target = target_at(analysis, _offset(text, 'holds("Calendar")', 8))
    assert (target.kind, target.name) == ("advance", "Calendar")
    [(info, sym)] = definitions(analysis, target)
    assert sym.start == text.index('advance "Calendar"') + len("advance ")
    refs = references(analysis, target)
    assert len(refs) == text.count('"Calendar"')
    assert len(references(analysis, target, include_declaration=False)) == len(refs) - 1


def test_definition_and_references_of_a_group():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    target = target_at(analysis, _offset(text, "groups crafts", len("groups c")))
    assert (target.kind, target.name) == ("group", "crafts")
    [(_, sym)] = definitions(analysis, target)
    assert text[sym.start:sym.end] == "crafts" and text[: sym.start].endswith("group ")
    members = sum(1 for a in analysis.edition.advances.values() if "crafts" in a.groups)
    assert len(references(analysis, target, include_declaration=False)) >= members


def test_epochs_and_tracks():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    track = next(iter(analysis.edition.asts.values()))
    epoch = track.epochs[-1]
    target = target_at(analysis, _offset(text, f'epoch "{epoch.name}"', len("epoch ") + 2))
    assert (target.kind, target.name, target.scope) == ("epoch", epoch.name, track.id)
    hover, _ = hover_text(analysis, target.symbol.start + 1)
    assert f"epoch {len(track.epochs)} of {len(track.epochs)}" in hover
    target = target_at(analysis, _offset(text, f"ast {track.id}", len("ast ") + 1))
    assert (target.kind, target.name) == ("track", track.id)


def test_house_rule_definitions_cross_the_extends_chain(tmp_path):
    house = tmp_path / "house.civ"
    house.write_text('language 1\nedition house "House" extends megaciv\n'
                     'change calamity "Famine" {\n  when holds("Pottery") for primary { prevent damage 1 }\n}\n',
                     encoding="utf-8")
    text = house.read_text(encoding="utf-8")
    _, _, analysis = _analyse(house, text)
    assert analysis.diagnostics.to_json() == check_file(house).diagnostics.to_json()
    target = target_at(analysis, _offset(text, 'holds("Pottery")', 8))
    [(info, sym)] = definitions(analysis, target)
    assert info.path.resolve() == MEGACIV.resolve()
    base_text = MEGACIV.read_text(encoding="utf-8")
    assert sym.start == base_text.index('advance "Pottery"') + len("advance ")
    hover, _ = hover_text(analysis, _offset(text, 'calamity "Famine"', 11))
    assert "defined at `rulebooks/megaciv.civ:" in hover and "changed at `" in hover
    refs = references(analysis, target_at(analysis, _offset(text, 'calamity "Famine"', 11)))
    assert {f.display for f, _ in refs} >= {"rulebooks/megaciv.civ", analysis.doc.display}


def test_definition_of_a_constant_read_by_a_rule_comes_from_the_index(tmp_path):
    house = tmp_path / "house.civ"
    house.write_text('language 1\nedition house "House" extends megaciv\nconst harsh = 3 "a harsh winter"\n'
                     'change calamity "Famine" {\n  when cities > harsh { prevent damage 1 }\n}\n', encoding="utf-8")
    text = house.read_text(encoding="utf-8")
    _, _, analysis = _analyse(house, text)
    target = target_at(analysis, _offset(text, "> harsh", 3))
    assert (target.kind, target.name) == ("const", "harsh")
    [(info, decl)] = definitions(analysis, target)
    assert info is analysis.doc and decl.start == text.index("harsh")
    hover, _ = hover_text(analysis, _offset(text, "> harsh", 3))
    assert "**harsh** = 3 (constant)" in hover and "a harsh winter" in hover and "defined at `" in hover
    assert len(references(analysis, target)) == 2
    # a player fact: its hover is the vocabulary's, and it has no declaration in the rulebook
    target = target_at(analysis, _offset(text, "when cities", 6))
    assert (target.kind, target.name) == ("fact", "cities") and not definitions(analysis, target)
    assert vocab.FACTS["cities"].doc in hover_text(analysis, _offset(text, "when cities", 6))[0]


def test_rename_writes_every_declaration_and_use_across_the_chain(tmp_path):
    from civdsl.lsp import rename_edits

    house = tmp_path / "house.civ"
    house.write_text('language 1\nedition house "House" extends megaciv\nconst harsh = 3\n'
                     'change calamity "Famine" {\n  when holds("Pottery") and cities > harsh { prevent damage 1 }\n}\n',
                     encoding="utf-8")
    text = house.read_text(encoding="utf-8")
    _, _, analysis = _analyse(house, text)
    edits = rename_edits(analysis, _offset(text, 'holds("Pottery")', 8), 'Pot "Thrown"')
    base = MEGACIV.read_text(encoding="utf-8")
    assert {f.display for f, *_ in edits} == {"rulebooks/megaciv.civ", analysis.doc.display}
    assert len(edits) == base.count('"Pottery"') + 1
    assert all(new == '"Pot \\"Thrown\\""' for *_, new in edits)
    assert all(f.text[start:end] == '"Pottery"' for f, start, end, _ in edits)
    edits = rename_edits(analysis, _offset(text, "> harsh", 3), "bitter")
    assert [(f.text[a:b], new) for f, a, b, new in edits] == [("harsh", "bitter")] * 2
    with pytest.raises(ValueError):
        rename_edits(analysis, _offset(text, "> harsh", 3), "advance")  # a keyword
    assert rename_edits(analysis, _offset(text, "when holds", 2) - 2, "x") is None  # nothing to rename there


@pytest.mark.parametrize("new_name, says", [
    ("Pot\nTery", "control character U+000A"), ("Pot\0", "control character U+0000"),
    ("Pot\x1b[2J", "control character U+001B"), ("", "cannot be empty"), ("   ", "cannot be empty"),
    ("P" * 100_000, "longer than a line may be"), ("Agriculture", "already an advance named `Agriculture`"),
])
def test_rename_refuses_a_name_no_rulebook_should_hold(tmp_path, new_name, says):
    from civdsl.lsp import rename_edits

    house = tmp_path / "house.civ"
    text = ('language 1\nedition house "House" extends megaciv\n'
            'change calamity "Famine" {\n  when holds("Pottery") { prevent damage 1 }\n}\n')
    house.write_text(text, encoding="utf-8")
    _, _, analysis = _analyse(house, text)
    with pytest.raises(ValueError, match=re.escape(says)):
        rename_edits(analysis, _offset(text, 'holds("Pottery")', 8), new_name)
    assert rename_edits(analysis, _offset(text, 'holds("Pottery")', 8), "Pottery")  # its own name: no change


# --- the round rules' names (rulebooks/cardgame.civ) ---------------------------------------------------

CARDGAME = ROOT / "rulebooks" / "cardgame.civ"


def test_round_rule_names_go_to_their_declaration_and_back():
    text = CARDGAME.read_text(encoding="utf-8")
    _, _, analysis = _analyse(CARDGAME, text)
    cases = [("add unrest ", 5, "stat", "unrest", "stat unrest"),
             ("move war_track 2", 6, "round_track", "war_track", "track war_track"),
             ("roll gained = luxury_dice", 16, "pool", "luxury_dice", "pool luxury_dice"),
             ("roll emergency_card", 6, "event_table", "emergency_card", "event_table emergency_card"),
             ("if under_siege {", 4, "threshold", "under_siege", "threshold under_siege"),
             ("and act_domestic", 5, "choice", "act_domestic", "choice act_domestic"),
             ("set collapsed = true", 5, "flag", "collapsed", "flag collapsed"),
             ("hand_value(color=red)", 18, "color", "red", 'suit "Hearts" red')]
    for needle, inside, kind, name, declaration in cases:
        target = target_at(analysis, _offset(text, needle, inside))
        assert (target.kind, target.name) == (kind, name), needle
        (info, sym), *_ = definitions(analysis, target)
        assert info is analysis.doc and text[sym.start:sym.end] == name
        assert sym.end == text.index(declaration) + len(declaration), needle
        found = references(analysis, target)
        assert all(text[s.start:s.end] == name for _, s in found)
        assert target.symbol.start in {s.start for _, s in found}
    # every `add unrest` of the phases, and every rule reading it, is a reference of the stat
    unrest = target_at(analysis, _offset(text, "add unrest ", 5))
    starts = {s.start for _, s in references(analysis, unrest)}
    assert {m.start() + 4 for m in re.finditer(r"add unrest ", text)} <= starts
    assert _offset(text, "when unrest >= 30", 5) in starts


def test_hover_on_round_rule_names_says_what_the_rules_make_of_them():
    text = CARDGAME.read_text(encoding="utf-8")
    _, _, analysis = _analyse(CARDGAME, text)
    hover, _ = hover_text(analysis, _offset(text, "move war_track 2", 6))
    assert hover.startswith("**war_track** (track)")
    assert '"War progress track": start 0, positions 0..7; stages Border Conflict (0..2)' in hover
    assert "defined at `rulebooks/cardgame.civ:" in hover
    hover, _ = hover_text(analysis, _offset(text, "roll rebels = rebellion_dice", 16))
    assert "(dice pool)" in hover and "2 dice of 6 sides; +1 when population >= 75" in hover
    hover, _ = hover_text(analysis, _offset(text, "if lose_action", 4))
    assert '"30+ unrest: lose 1 state action": holds while unrest >= 30' in hover
    hover, _ = hover_text(analysis, _offset(text, "hand_value(color=red)", 18))
    assert "the colour of the suits Hearts, Diamonds" in hover and "also at `rulebooks/cardgame.civ:" in hover
    hover, _ = hover_text(analysis, _offset(text, "phase upkeep", 7))
    assert '"Upkeep Phase": phase 1 of 7 of a round' in hover


def test_rename_a_stat_rewrites_its_declaration_targets_and_reads(tmp_path):
    from civdsl.lsp import rename_edits

    text = CARDGAME.read_text(encoding="utf-8")
    _, _, analysis = _analyse(CARDGAME, text)
    edits = rename_edits(analysis, _offset(text, "stat food ", 6), "grain")
    assert {text[a:b] for _, a, b, _ in edits} == {"food"}
    assert len(edits) == len(re.findall(r"\bfood\b", re.sub(r'"[^"]*"|#.*', "", text)))  # strings, comments aside
    renamed = text
    for _, a, b, new in sorted(edits, key=lambda e: -e[1]):
        renamed = renamed[:a] + new + renamed[b:]
    copy = tmp_path / "cardgame.civ"
    copy.write_text(renamed, encoding="utf-8")
    checked = check_file(copy)
    assert checked.ok and "grain" in rules(checked.edition).stats and "food" not in rules(checked.edition).stats
    with pytest.raises(ValueError):
        rename_edits(analysis, _offset(text, "stat food ", 6), "phase")  # a keyword


def test_round_rule_completions_name_what_each_statement_takes():
    text = CARDGAME.read_text(encoding="utf-8")
    _, _, analysis = _analyse(CARDGAME, text)
    ed = rules(analysis.edition)

    def labels(offset: int) -> set[str]:
        return {c.label for c in completions(analysis, offset)}

    assert labels(_offset(text, "roll attack = attack_dice", len("roll attack = "))) == set(ed.pools)
    assert labels(_offset(text, "move war_track 2", len("move "))) == set(ed.tracks)
    # inside the round rules `set` and `add` name a stat (elsewhere an effect kind follows them)
    assert labels(_offset(text, "add food farm_output", len("add "))) == set(ed.stats)
    assert labels(_offset(text, "set drought = false", len("set "))) == set(ed.stats) | set(ed.flags) | set(ed.tracks)
    assert labels(_offset(text, "hand_value(color=red)", len("hand_value(color="))) == {"red", "black"}
    assert set(ed.stats) | set(ed.flags) <= labels(_offset(text, "if under_siege {", len("if ")))


def test_outline_lists_round_declarations():
    text = CARDGAME.read_text(encoding="utf-8")
    _, _, analysis = _analyse(CARDGAME, text)
    ed = rules(analysis.edition)
    items = outline(analysis.doc)
    phases = [o for o in items if o.kind == "phase"]
    assert [(o.name, o.detail) for o in phases] == [(p.id, p.name) for p in ed.phases.values()]
    assert [o.name for o in items if o.kind == "round_track"] == list(ed.tracks)
    assert [o.name for o in items if o.kind == "stat"] == list(ed.stats)
    assert text[phases[0].start:].startswith("phase upkeep") and text[phases[0].end - 1] == "}"


# --- completion -----------------------------------------------------------------------------------


def _complete(text: str, offset: int, path: Path = MEGACIV):
    _, _, analysis = _analyse(path, text)
    return analysis, completions(analysis, offset)


def test_complete_advance_names_inside_quotes():
    source = MEGACIV.read_text(encoding="utf-8")
    text = source.replace('holds("Pottery")', 'holds("Pot")', 1)
    offset = _offset(text, 'holds("Pot")', len('holds("Pot'))
    analysis, items = _complete(text, offset)
    labels = [c.label for c in items]
    assert set(labels) == set(analysis.last_edition.advances)
    pottery = next(c for c in items if c.label == "Pottery")
    assert text[pottery.replace[0]:pottery.replace[1]] == "Pot"


def test_complete_effect_kinds_abilities_groups_keywords():
    source = MEGACIV.read_text(encoding="utf-8")
    at = source.index("when holds(\"Calendar\")")
    block = source.index("{", at) + 1
    text = source[:block] + " add " + source[block:]
    _, items = _complete(text, block + len(" add "))
    assert {c.label for c in items} == set(vocab.EFFECT_KINDS)

    at = source.index("ability ship_range(1)")
    text = source[:at] + "ability " + source[at + len("ability ship_range(1)"):]
    _, items = _complete(text, at + len("ability "))
    assert {c.label for c in items} == set(vocab.ABILITY_KINDS)

    at = source.index("groups crafts")
    _, items = _complete(source, at + len("groups "))
    analysis = _analyse(MEGACIV)[2]
    assert {c.label for c in items} == set(analysis.edition.groups)

    # between statements the grammar accepts the words that begin one (Lark's interactive parser):
    # those, and no effect kind or function, which cannot stand there
    at = source.index('\nadvance "Cloth Making"')
    _, items = _complete(source, at + 1)
    labels = {c.label for c in items}
    assert parser.item_starters() <= labels <= set(parser.keywords())
    assert not labels & (set(vocab.EFFECT_KINDS) | set(vocab.FUNCTIONS))


def test_completion_keywords_are_what_the_grammar_accepts_at_the_cursor():
    source = MEGACIV.read_text(encoding="utf-8")
    at = source.index("class ", source.index('calamity "Famine"')) + len("class ")
    _, items = _complete(source, at)
    assert {c.label for c in items} == {"minor", "major"}
    # in a condition: the functions, player facts and the rulebook's constants
    at = source.index("when holds(", source.index('calamity "Famine"')) + len("when ")
    analysis, items = _complete(source, at)
    labels = {c.label for c in items}
    assert set(vocab.FUNCTIONS) <= labels and set(vocab.FACTS) <= labels and set(analysis.edition.consts) <= labels
    assert "cost" not in labels  # a field word cannot begin a condition
    # a statement that does not parse up to the cursor: everything that could be meant
    text = source[:at] + ") ( " + source[at:]
    _, items = _complete(text, at + len(") ( "))
    assert set(parser.keywords()) <= {c.label for c in items}


def test_completion_after_a_bare_when_offers_the_declared_rule_options():
    """`vp tiers when`, `block ID when`: where the grammar takes a bare name after `when`, the
    rulebook's own options are offered, with their text; a condition's `when` still offers
    functions and facts."""
    source = MEGACIV.read_text(encoding="utf-8")
    at = source.index("vp tiers when ") + len("vp tiers when ")
    analysis, items = _complete(source, at)
    options = analysis.edition.options
    assert len(options) >= 2
    assert [c.label for c in items] == sorted(options)
    assert {c.doc for c in items} == {o.doc for o in options.values()}
    # while the option's name is being typed, and once the statement no longer parses (the last
    # rulebook that resolved still names them)
    _, items = _complete(source, at + len("vp"))
    assert [c.label for c in items] == sorted(options)
    engine, doc, _ = _analyse(MEGACIV, source)
    broken = source[:at] + source[at + len("vp_cost_200_is_3"):]
    analysis = engine.analyse(engine.update(doc.uri, broken, 2))
    assert analysis.edition is None
    assert [c.label for c in completions(analysis, at)] == sorted(options)
    expansion = ROOT / "rulebooks" / "expansion.civ"
    text = expansion.read_text(encoding="utf-8")
    at = text.index("block shared when ") + len("block shared when ")
    analysis, items = _complete(text, at, expansion)
    assert [c.label for c in items] == sorted(analysis.edition.options)


# --- outline, formatting ----------------------------------------------------------------------------


def test_outline():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    items = outline(analysis.doc)
    by_kind: dict[str, list] = {}
    for o in items:
        by_kind.setdefault(o.kind, []).append(o)
    ed = analysis.edition
    assert [o.name for o in by_kind["advance"]] == list(ed.advances)
    assert [o.name for o in by_kind["calamity"]] == list(ed.calamities)
    tracks = by_kind["track"]
    assert [t.name for t in tracks] == list(ed.asts)
    assert [e.name for e in tracks[0].children] == [e.name for e in ed.asts[tracks[0].name].epochs]
    first = by_kind["advance"][0]
    assert text[first.start:].startswith("advance") and text[first.end - 1] == "}"


def test_outline_lists_trade_decks_and_set_ups():
    text = MEGACIV.read_text(encoding="utf-8")
    _, _, analysis = _analyse(MEGACIV, text)
    items = outline(analysis.doc)
    ed = analysis.edition
    decks = [o for o in items if o.kind == "trade_deck"]
    assert [o.name for o in decks] == list(ed.trade_decks)
    assert decks[0].detail == "for 5..8 block west" and text[decks[0].end - 1] == "}"
    civs = {o.name: o for o in items if o.kind == "civilization"}
    assert list(civs) == list(ed.civilizations)
    assyria = {c.kind: c for c in civs["Assyria"].children}
    assert assyria["block"].name == "block east" and assyria["block"].detail.startswith('for "11", "12"')
    assert text[assyria["block"].start:assyria["block"].end] == 'block east for "11", "12", "13", "14", "15", "16"'
    assert assyria["setups"].detail.startswith('"5 West", "7 West"')


def test_outline_lists_the_set_ups_by_player_count():
    path = MEGACIV.parent / "civ1980.civ"
    text = path.read_text(encoding="utf-8")
    _, _, analysis = _analyse(path, text)
    setups = [(o.name, o.detail) for o in outline(analysis.doc) if o.kind == "setups"]
    assert setups[0] == ("2 players", "for 2") and setups[-1] == ("6 or 7 players", "for 6..7")


def test_formatting_goes_through_fmt():
    text = MEGACIV.read_text(encoding="utf-8")
    messy = text.replace("advance \"Mysticism\" {\n  cites \"ch 9 / Mysticism\"\n  cost 50",
                         "advance   \"Mysticism\"  {\n  cites  \"ch 9 / Mysticism\"\n      cost    50", 1)
    assert messy != text
    out = format_document(messy, "rulebooks/megaciv.civ")
    try:
        from civdsl.fmt import format_text
    except ImportError:
        assert out is None
        return
    assert out == format_text(messy, "rulebooks/megaciv.civ")
    assert 'advance "Mysticism" {\n  cites "ch 9 / Mysticism"\n  cost 50' in out
    assert format_document('language 1\nedition x "x"\nadvance "A" {', "x.civ") is None


def test_tokenizer_covers_every_shipped_rulebook():
    for path in sorted((ROOT / "rulebooks").rglob("*.civ")):
        toks = tokenize(parser.normalise(path.read_text(encoding="utf-8")))
        assert not [t for t in toks if t.kind in ("error", "ustring")], path


# --- the real server over a pipe ----------------------------------------------------------------------


class LspClient:
    """A minimal LSP client: Content-Length framed JSON-RPC over the server's stdin/stdout."""

    def __init__(self, cwd: Path, preexec_fn=None):
        self.proc = subprocess.Popen([sys.executable, "cli.py", "lsp"], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=preexec_fn)
        self.inbox: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, value = line.split(":", 1)
                headers[key.lower()] = value.strip()
            self.inbox.put(json.loads(stream.read(int(headers["content-length"])).decode("utf-8")))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params, timeout: float = 60):
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)
        assert "error" not in reply, reply
        return reply["result"]

    def wait(self, predicate, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such message from the server")
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no such message from the server") from None
            if message is None:
                raise EOFError(self.proc.stderr.read().decode("utf-8", "replace"))
            if "method" in message and "id" in message:  # a request from the server: accept it
                self.send({"id": message["id"], "result": None})
            if "method" in message:
                self.notifications.append(message)
            if predicate(message):
                return message

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60) -> list[dict]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri
                            and (version is None or m["params"].get("version") == version), timeout)
        return message["params"]["diagnostics"]


def _position(text: str, offset: int) -> dict:
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return {"line": line, "character": len(text[offset - column:offset].encode("utf-16-le")) // 2}


@pytest.fixture(scope="module")
def server():
    if not HAVE_PYGLS:
        pytest.skip("pygls is not installed (pip install 'pygls>=2'): the language server cannot run")
    client = LspClient(ROOT)
    result = client.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}}, timeout=120)
    caps = result["capabilities"]
    for feature in ("hoverProvider", "definitionProvider", "referencesProvider", "completionProvider",
                    "documentSymbolProvider", "documentFormattingProvider"):
        assert caps.get(feature), feature
    client.notify("initialized", {})
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()


def test_server_session_on_megaciv(server):
    uri = MEGACIV.resolve().as_uri()
    source = MEGACIV.read_text(encoding="utf-8")
    text = source.replace('holds("Pottery")', 'holds("Potery")', 1)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "civdsl", "version": 1,
                                                            "text": text}})
    [diag] = server.diagnostics(uri, 1, timeout=120)
    start = text.index('"Potery"')
    assert diag["code"] == "CIV010" and diag["severity"] == 1 and diag["source"] == "civdsl"
    assert diag["message"].startswith("unknown advance `Potery`") and "did you mean `Pottery`" in diag["message"]
    assert diag["range"] == {"start": _position(text, start), "end": _position(text, start + len('"Potery"'))}

    # hover and definition on a name used in a condition
    use = _offset(text, 'holds("Calendar")', 8)
    hover = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": _position(text, use)})
    decl = text.index('advance "Calendar"') + len("advance ")
    assert hover["contents"]["kind"] == "markdown"
    assert "**Calendar** (advance)" in hover["contents"]["value"]
    assert f"rulebooks/megaciv.civ:{text.count(chr(10), 0, decl) + 1}" in hover["contents"]["value"]
    [loc] = server.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": _position(text, use)})
    assert loc["uri"] == uri
    assert loc["range"] == {"start": _position(text, decl), "end": _position(text, decl + len('"Calendar"'))}
    refs = server.request("textDocument/references", {"textDocument": {"uri": uri}, "position": _position(text, use),
                                                      "context": {"includeDeclaration": True}})
    assert len(refs) == text.count('"Calendar"')
    edit = server.request("textDocument/rename", {"textDocument": {"uri": uri}, "position": _position(text, use),
                                                  "newName": "Almanac"})
    assert [e["newText"] for e in edit["changes"][uri]] == ['"Almanac"'] * len(refs)

    # completion inside the misspelt string offers every advance, replacing the string's contents
    inside = start + len('"Pot')
    result = server.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                        "position": _position(text, inside)})
    items = result["items"] if isinstance(result, dict) else result
    pottery = next(i for i in items if i["label"] == "Pottery")
    assert pottery["textEdit"]["range"] == {"start": _position(text, start + 1),
                                            "end": _position(text, start + len('"Potery'))}
    assert len(items) == sum(1 for line in text.split("\n") if line.startswith("advance "))

    # outline
    symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    names = [s["name"] for s in symbols]
    assert "Pottery" in names and "Famine" in names
    track = next(s for s in symbols if s["kind"] == 3)  # Namespace: an A.S.T. track
    assert len(track["children"]) >= 2

    # fixing the typo clears the diagnostic: an incremental change
    fix = {"range": {"start": _position(text, start + 4), "end": _position(text, start + 4)}, "text": "t"}
    started = time.perf_counter()
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [fix]})
    assert server.diagnostics(uri, 2) == []
    elapsed = time.perf_counter() - started
    assert elapsed < 10, elapsed  # the answer's budget is stated and measured by benchmarks/bench_lsp.py

    # a syntax error is reported as check reports it
    broken = {"range": {"start": _position(source, decl - 1), "end": _position(source, decl - 1)}, "text": "{"}
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [broken]})
    [diag] = server.diagnostics(uri, 3)
    assert diag["code"] == "CIV001"

    # formatting goes through civdsl.fmt (nothing to do, or one edit giving fmt's output)
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4},
                                             "contentChanges": [{"text": source}]})
    assert server.diagnostics(uri, 4) == []
    edits = server.request("textDocument/formatting", {"textDocument": {"uri": uri},
                                                       "options": {"tabSize": 2, "insertSpaces": True}})
    expected = format_document(source, "rulebooks/megaciv.civ")
    if expected is None or expected == source:
        assert not edits
    else:
        [edit] = edits
        assert edit["newText"] == expected and edit["range"]["start"] == {"line": 0, "character": 0}

    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert server.diagnostics(uri) == []


def test_server_house_rule_goes_to_the_base(server, tmp_path):
    house = tmp_path / "house.civ"
    text = ('language 1\nedition house "House" extends megaciv\n'
            'change calamity "Famine" {\n  when holds("Potter") { prevent damage 1 }\n}\n')
    house.write_text(text, encoding="utf-8")
    uri = house.as_uri()
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "civdsl", "version": 1,
                                                            "text": text}})
    [diag] = server.diagnostics(uri, 1)
    expected = [d for d in check_file(house).diagnostics.items]
    assert diag["code"] == expected[0].code == "CIV010"
    use = _offset(text, 'calamity "Famine"', 11)
    [loc] = server.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": _position(text, use)})
    base = MEGACIV.read_text(encoding="utf-8")
    decl = base.index('calamity "Famine"') + len("calamity ")
    assert loc["uri"] == MEGACIV.resolve().as_uri()
    assert loc["range"]["start"] == _position(base, decl)
    hover = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": _position(text, use)})
    assert "changed at" in hover["contents"]["value"]
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_server_shutdown_and_exit(server):
    assert server.request("shutdown", None) is None
    server.notify("exit", None)
    assert server.proc.wait(timeout=30) == 0


def test_repeated_identical_statements_are_parsed_in_linear_work(tmp_path):
    """N identical `note "x"` lines: the incremental parser numbers the copies of a statement by a
    count, so the lines it runs to key them grow with N, not N^2 / 2 (16,000 copies took 20 s per
    analysis when each copy probed the numbers of the copies before it)."""
    from civdsl.lsp import IncrementalParser

    lines = [0]

    def count(frame, event, arg):
        if frame.f_code is IncrementalParser._statement.__code__:
            if event == "line":
                lines[0] += 1
            return count
        return None

    n = 2_000
    text = 'language 1\nedition h "H"\n' + 'note "x"\n' * n
    engine = Engine()
    doc = engine.open((tmp_path / "notes.civ").as_uri(), text, 1)
    sys.settrace(lambda frame, event, arg: count if frame.f_code is IncrementalParser._statement.__code__ else None)
    try:
        analysis = engine.analyse(doc)
    finally:
        sys.settrace(None)
    assert not analysis.diagnostics.errors
    assert lines[0] < 30 * n, lines[0]
