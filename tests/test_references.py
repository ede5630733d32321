"""The one index of references (civdsl/references.py): declarations and uses of every name, with
spans, across the extends chain, and which uses a house rule leaves in force."""

from __future__ import annotations

import re
from pathlib import Path

from civdsl.diagnostics import Diagnostics
from civdsl.frontend import check_file
from civdsl.loader import load_chain
from civdsl.references import advances_named, index_chain

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
    written = re.findall(r'holds\("([^"]*)"\)', text)
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
