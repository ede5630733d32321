"""The one index of references (civdsl/references.py): declarations and uses of every name, with
spans, across the extends chain, and which uses a house rule leaves in force."""

from __future__ import annotations

import re
from pathlib import Path

from civdsl.diagnostics import Diagnostics
from civdsl.frontend import check_file
from civdsl.loader import load_chain
from civdsl.references import advances_named, index_chain
from civdsl.rounds.model import rules

ROOT = Path(__file__).resolve().parent.parent
MEGACIV = ROOT / "rulebooks" / "megaciv.civ"


def _index(path: Path):
    chain = load_chain(path, Diagnostics())
    return chain, index_chain(chain)


def _house(tmp_path, body: str, base: str = "megaciv") -> Path:
    house = tmp_path / "house.civ"
    house.write_text(f'language 1\nedition house "House" extends {base}\n' + body, encoding="utf-8")
    return house


def test_every_holds_of_megaciv_is_a_use_of_an_advance_at_its_string():
    chain, index = _index(MEGACIV)
    text = chain[-1].text
    lines = text.split("\n")
    # a rule's holds("X") names one advance, a ruling's holds("A", "B") several
    written = [name for args in re.findall(r'holds\(((?:"[^"]*"(?:, )?)+)\)', text)
               for name in re.findall(r'"([^"]*)"', args)]
    uses = [r for r in index.of_kind("advance", role="ref") if r.via == "holds"]
    assert sorted(r.name for r in uses) == sorted(written)
    for r in uses:
        line = lines[r.span.line - 1]
        assert line[r.span.column - 1:r.span.end_column - 1] == f'"{r.name}"'


def test_declarations_of_each_kind_are_found_with_the_name_span():
    chain, index = _index(MEGACIV)
    ed = check_file(MEGACIV).edition
    lines = chain[-1].text.split("\n")
    assert index.names("advance") == set(ed.advances)
    assert index.names("calamity") == set(ed.calamities)
    assert index.names("group") == set(ed.groups)
    assert index.names("const") == set(ed.consts)
    assert index.names("track") == set(ed.asts)
    for kind in ("advance", "group", "const", "track"):
        for name in index.names(kind):
            [decl] = index.declarations(kind, name)
            s = decl.span
            assert lines[s.line - 1][s.column - 1:s.end_column - 1].strip('"') == name


def test_epochs_are_scoped_by_their_track():
    _, index = _index(MEGACIV)
    ed = check_file(MEGACIV).edition
    for track in ed.asts.values():
        for epoch in track.epochs:
            [decl] = index.declarations("epoch", epoch.name, track.id)
            assert decl.scope == track.id
            assert not index.declarations("epoch", epoch.name, "no such track")


def test_group_uses_come_from_groups_and_credits():
    _, index = _index(MEGACIV)
    ed = check_file(MEGACIV).edition
    members = sum(1 for a in ed.advances.values() if "crafts" in a.groups)
    givers = sum(1 for a in ed.advances.values() if "crafts" in a.credits)
    vias = [r.via for r in index.uses("group", "crafts")]
    assert vias.count("groups") == members and vias.count("credits") == givers


def test_a_use_inside_where_reads_the_item_attribute_not_a_constant(tmp_path):
    house = _house(tmp_path, 'const cost = 3\nassert count(advances where cost > 500) == 0 "no dear advance"\n'
                             'assert cost == 3 "the constant"\n')
    _, index = _index(house)
    uses = index.uses("const", "cost")
    assert len(uses) == 1 and uses[0].label == "the constant"


def test_a_change_that_replaces_requires_takes_the_base_uses_out_of_force(tmp_path):
    house = _house(tmp_path, 'change advance "Democracy" { requires "Pottery" }\n', "civ1980")
    _, index = _index(house)
    base = [r for r in index.uses("advance", "Law") if r.owner == ("advance", "Democracy")]
    assert base and not any(index.in_force(r) for r in base)
    [new] = [r for r in index.uses("advance", "Pottery") if r.owner == ("advance", "Democracy")]
    assert index.in_force(new) and new.file == 1


def test_a_removed_advance_still_required_by_the_base_is_reported_there(tmp_path):
    house = _house(tmp_path, 'remove advance "Law"\n', "civ1980")
    checked = check_file(house)
    errors = [d for d in checked.diagnostics.errors if d.code == "CIV010"]
    assert errors and all(d.message.endswith("`Law`") and d.span.path.endswith("civ1980.civ") for d in errors)
    assert "unknown prerequisite `Law`" in {d.message for d in errors}
    # a change that replaces the prerequisites of one of them takes its use out
    fixed = _house(tmp_path, 'remove advance "Law"\nchange advance "Democracy" { requires "Pottery" }\n', "civ1980")
    assert len([d for d in check_file(fixed).diagnostics.errors if d.code == "CIV010"]) == len(errors) - 1


def test_a_dropped_modifier_no_longer_needs_its_advance(tmp_path):
    _, index = _index(MEGACIV)
    famine_uses = [r for r in index.uses("advance", "Pottery") if r.owner[0] == "calamity" and r.field == "modifier"]
    assert famine_uses
    use = famine_uses[0]
    mod = use.part.value
    from civdsl.expressions import unparse

    role = "" if mod.role == "any" else f" for {mod.role}"
    house = _house(tmp_path, f'change calamity "{use.owner[1]}" {{ drop when {unparse(mod.condition)}{role} }}\n')
    _, index = _index(house)
    same = [r for r in index.uses("advance", "Pottery") if r.span == use.span]
    assert same and not index.in_force(same[0])


def test_advances_named_finds_the_holds_of_an_expression():
    chain, _ = _index(MEGACIV)
    ed = check_file(MEGACIV).edition
    for cal in ed.calamities.values():
        for m in cal.modifiers:
            assert m.advances == advances_named(m.condition)
            assert all(a in ed.advances for a in m.advances)


def test_a_use_under_not_is_negated_and_the_charts_read_it(tmp_path):
    from civdsl.charts.derive import held_advances
    from civdsl.references import uses_in

    house = _house(tmp_path, 'change calamity "Famine" {\n'
                             '  when not holds("Pottery") and holds("Agriculture") { prevent damage 1 }\n}\n')
    ed = check_file(house).edition
    m = ed.calamities["Famine"].modifiers[-1]
    assert sorted((r.name, r.negated) for r in uses_in(m.condition)) == [("Agriculture", False), ("Pottery", True)]
    assert sorted(held_advances(m.condition)) == [("Agriculture", False), ("Pottery", True)]


def test_unknown_groups_are_reported_from_the_index_wherever_a_group_is_named(tmp_path):
    house = _house(tmp_path, 'advance "Guilds" { cost 90 groups craft credits art 5\n'
                             '  ability free_advance(craf, 100)\n  ability acquire_all(group="sciencs", cost_below=80) }\n'
                             'assert count_advances(group=civic) >= 0 "a group by keyword"\n')
    errors = [d for d in check_file(house).diagnostics.errors if d.code == "CIV012"]
    assert sorted(d.message for d in errors) == ["credits to unknown group `art`", "unknown group `civic`",
                                                 "unknown group `craf`", "unknown group `craft`",
                                                 "unknown group `sciencs`"]
    text = house.read_text(encoding="utf-8").split("\n")
    for d in errors:
        word = d.message.split("`")[1]
        assert text[d.span.line - 1][d.span.column - 1:d.span.end_column - 1].strip('"') == word
    assert {d.help for d in errors if "craf" in d.message} == {"did you mean `crafts`?"}


# --- the round rules' names (rulebooks/cardgame.civ) ---------------------------------------------------

CARDGAME = ROOT / "rulebooks" / "cardgame.civ"


def test_round_declarations_are_found_with_the_name_span():
    chain, index = _index(CARDGAME)
    ed = check_file(CARDGAME).edition
    lines = chain[-1].text.split("\n")
    r = rules(ed)
    declared = {"stat": r.stats, "flag": r.flags, "choice": r.choices, "threshold": r.thresholds, "pool": r.pools,
                "round_track": r.tracks, "event_table": r.event_tables, "deck": r.card_decks, "phase": r.phases}
    for kind, names in declared.items():
        assert index.names(kind) == set(names), kind
        for name in names:
            [decl] = index.declarations(kind, name)
            s = decl.span
            assert lines[s.line - 1][s.column - 1:s.end_column - 1] == name
    # a deck's suits declare its colours, which the hand functions read
    assert index.names("color") == {"red", "black"}
    assert len(index.declarations("color", "red")) == 2  # Hearts and Diamonds


def test_round_statement_targets_are_uses_of_what_they_name():
    chain, index = _index(CARDGAME)
    text = chain[-1].text
    lines = text.split("\n")
    # the statements as written: strings, comments and dice pools (whose `add` is a term) aside
    code = re.sub(r"\bpool [^{]*\{[^}]*\}", "", re.sub(r"#.*", "", re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)))
    written = re.findall(r"\b(set|add|move|reset) ([a-z_]+)\b", code)
    targets = [r for r in index.refs if r.role == "ref" and r.via in ("set", "add", "move", "reset")]
    assert sorted((r.via, r.name) for r in targets) == sorted(written)
    kinds = {r.name: r.kind for r in targets}
    assert kinds["unrest"] == "stat" and kinds["collapsed"] == "flag" and kinds["war_track"] == "round_track"
    for r in targets:
        assert lines[r.span.line - 1][r.span.column - 1:r.span.end_column - 1] == r.name
    rolled = {r.name: r.kind for r in index.refs if r.via == "roll"}
    assert rolled["luxury_dice"] == "pool" and rolled["emergency_card"] == "event_table"
    assert set(rolled) == set(re.findall(r"\broll (?:[a-z_]+ = )?([a-z_]+)", code))


def test_round_names_read_in_expressions_resolve_by_the_one_namespace():
    _, index = _index(CARDGAME)
    under_siege = [r for r in index.uses("threshold", "under_siege")]
    # read by a pool's term, a phase and another rule's condition
    assert {r.owner for r in under_siege} >= {("pool", "rebellion_dice"), ("phase", "upkeep"), ("phase", "war")}
    assert {r.owner for r in index.uses("round_track", "war_track") if r.via == "name"} == {
        ("threshold", "under_siege"), ("pool", "rebellion_dice")}
    # a stat outranks the player fact of the same name (round rules read their own stats)
    assert all(r.kind == "stat" for r in index.refs if r.name == "population" and r.role == "ref")
    # `let` and `roll x =` names are local to their block: they name no declaration
    assert [r.kind for r in index.refs if r.name == "food_at_start"] == ["name"]
    assert {r.kind for r in index.refs if r.name == "gained"} == {"name"}


def test_event_table_rows_are_round_blocks_not_ast_rows():
    """An event table's `row` is not a civilization's row on an A.S.T. track: its body is indexed."""
    _, index = _index(CARDGAME)
    assert not list(index.of_kind("track"))
    owners = {(r.owner, r.name) for r in index.of_kind("stat", "flag", role="ref")}
    assert (("event_table", "natural_events"), "morale_penalty") in owners
    assert (("event_table", "natural_events"), "drought") in owners
    assert (("event_table", "emergency_card"), "unrest") in owners


def test_a_house_rule_replacing_a_round_declaration_takes_its_uses_out_of_force(tmp_path):
    house = _house(tmp_path, 'threshold lose_action "40+ unrest: lose 1 state action" when unrest >= 40\n',
                   base="cardgame")
    _, index = _index(house)
    reads = [r for r in index.uses("stat", "unrest") if r.owner == ("threshold", "lose_action")]
    assert [(r.file, index.in_force(r)) for r in reads] == [(0, False), (1, True)]
    assert [r.file for r in index.declarations("threshold", "lose_action")] == [1, 0]


def test_a_vp_tiers_reading_is_a_use_of_its_option():
    """`vp tiers when vp_cost_200_is_3 { ... }` reads the option: references and rename find it."""
    chain, index = _index(MEGACIV)
    lines = chain[-1].text.split("\n")
    [use] = [r for r in index.uses("option", "vp_cost_200_is_3") if r.via == "vp tiers when"]
    s = use.span
    assert lines[s.line - 1].startswith("vp tiers when ")
    assert lines[s.line - 1][s.column - 1:s.end_column - 1] == "vp_cost_200_is_3"
