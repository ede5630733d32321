"""House rules: the shipped ones in rulebooks/house behave as written, and the machinery they
use (extends chains, change / drop when / remove / redeclare) works and reports mistakes at
the right file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

import civdsl
from civdsl.frontend import check_file
from civdsl.itemexplain import explain_item
from civdsl.resources import shipped_house_rules
from civdsl.state import StateError
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "rulebooks" / "house"
GENTLE = HOUSE / "gentle.civ"
GRANARY = HOUSE / "granary.civ"
GENTLE_GRANARY = HOUSE / "gentle_granary.civ"


def damage(rb, calamity, role="primary", holds=(), **facts):
    return rb.resolve(calamity, role, list(holds), facts).amount("damage")


def grain(n: int) -> dict:
    return {"commodities": {"Grain": n}}


@pytest.fixture(scope="module")
def mega():
    return civdsl.load("megaciv")


# --- the shipped house rules -------------------------------------------------------------------

def test_there_are_at_least_three_house_rules_and_all_check():
    rules = shipped_house_rules()
    assert {GENTLE, GRANARY, GENTLE_GRANARY} <= set(rules)
    for path in rules:
        checked = check_file(path)
        assert checked.ok, checked.diagnostics.render()
        assert not [d for d in checked.diagnostics.items if d.level == "warning"], checked.diagnostics.render()
        assert checked.edition.bases[0] == "megaciv"


def test_gentle_famine(mega):
    rb = civdsl.load(GENTLE)
    assert damage(mega, "Famine") == 10 and damage(rb, "Famine") == 8
    assert damage(mega, "Famine", holds=["Pottery"]) == 5 and damage(rb, "Famine", holds=["Pottery"]) == 0
    assert damage(rb, "Famine", "secondary") == 4  # megaciv: 5
    assert damage(rb, "Famine", "secondary", ["Pottery"]) == 0
    # what the house rule does not touch is Mega Civilization's
    assert damage(rb, "Famine", holds=["Agriculture"]) == 13  # 8 + 5
    assert damage(rb, "Famine", holds=["Calendar"]) == 3  # 8 - 5


def test_gentle_epidemic_and_flood(mega):
    rb = civdsl.load(GENTLE)
    assert damage(mega, "Epidemic") == 15 and damage(rb, "Epidemic") == 12
    assert damage(mega, "Epidemic", holds=["Medicine"]) == 10 and damage(rb, "Epidemic", holds=["Medicine"]) == 4
    assert damage(rb, "Epidemic", "secondary", ["Anatomy"]) == 5  # untouched: 10 - 5
    on_plain = {"flood_plain_units": 3}
    assert damage(mega, "Flood", holds=["Engineering"], **on_plain) == 10
    assert damage(rb, "Flood", holds=["Engineering"], **on_plain) == 5
    assert damage(rb, "Flood", **on_plain) == 15
    # untouched calamities are the base's
    assert rb.resolve("Tyranny").amount("annex_unit_points") == mega.resolve("Tyranny").amount("annex_unit_points")


def test_granary_ports_the_1981_pottery_rule(mega):
    rb = civdsl.load(GRANARY)
    assert damage(rb, "Famine", holds=["Pottery"], **grain(0)) == 10  # no Grain, no help
    assert damage(rb, "Famine", holds=["Pottery"], **grain(1)) == 6
    assert damage(rb, "Famine", holds=["Pottery"], **grain(3)) == 0  # 10 - 12, never below 0
    assert damage(rb, "Famine", "secondary", ["Pottery"], **grain(1)) == 1  # 5 - 4
    assert damage(rb, "Famine", holds=[], **grain(3)) == 10  # Grain without Pottery does nothing
    # the same victim in Mega Civilization: a flat 5 whatever the Grain
    assert damage(mega, "Famine", holds=["Pottery"], **grain(3)) == 5
    # and in the 1981 game the rule came from
    c81 = civdsl.load("civ1981")
    assert damage(c81, "Famine", holds=["Pottery"], **grain(1)) == 5  # 9 - 4
    assert rb.advances["Pottery"]["cost"] == 60


def test_gentle_granary_builds_on_gentle():
    rb = civdsl.load(GENTLE_GRANARY)
    checked = check_file(GENTLE_GRANARY)
    assert checked.edition.bases == ["megaciv", "gentle"]
    assert [Path(f).name for f in checked.edition.files] == ["megaciv.civ", "gentle.civ", "gentle_granary.civ"]
    # gentle's Famine (primary 8) with granary's Pottery rule instead of gentle's prevent 8
    assert damage(rb, "Famine") == 8
    assert damage(rb, "Famine", holds=["Pottery"], **grain(1)) == 4
    assert damage(rb, "Famine", holds=["Pottery"], **grain(0)) == 8
    assert damage(rb, "Famine", "secondary", ["Pottery"], **grain(1)) == 0  # gentle's 4, less 4
    # gentle's Epidemic is inherited untouched
    assert damage(rb, "Epidemic", holds=["Medicine"]) == 4
    # Pottery is cheaper, and still worth 1 VP under the tiers
    row = rb.cost([], ["Pottery"])["items"][0]
    assert row["printed"] == 50 and row["price"] == 50
    assert rb.cost(["Cloth Making"], ["Pottery"])["items"][0]["price"] == 40  # crafts 10
    assert rb.advances["Pottery"]["vp"] == 1


def test_gentle_granary_acknowledges_the_broken_cost_total():
    checked = check_file(GENTLE_GRANARY)
    notes = [d for d in checked.diagnostics.items if d.code == "CIV042"]
    # the total of all costs, and the crafts group's (Pottery is a crafts card)
    assert len(notes) == 2 and all(n.level == "note" for n in notes)
    assert all(n.span.path.endswith("megaciv.civ") for n in notes)  # the asserts live in the base
    assert all("gentle_granary.civ:" in n.message for n in notes)  # acknowledged by the house rule's errata


def test_explain_item_follows_the_chain():
    text = explain_item(str(GENTLE_GRANARY), "Famine")
    assert "megaciv.civ:" in text and "defined: calamity \"Famine\" (in base megaciv)" in text
    assert "gentle.civ:" in text and "changed: primary, secondary, drop, when (in base gentle)" in text
    assert "gentle_granary.civ:" in text and "drops the modifier `when holds(\"Pottery\")`" in text
    assert "Pottery: 4 fewer points of damage per Grain card held" in text
    assert "take 8 damage" in text
    text = explain_item(str(GENTLE_GRANARY), "pottery")
    assert text.startswith("Pottery: advance in gentle_granary")
    assert "cost 50, 1 VP" in text
    assert "changed: cost, summary (in gentle_granary)" in text
    assert "Famine: Pottery: 4 fewer points of damage per Grain card held" in text
    assert "10 towards Agriculture" in text


def test_explain_item_megaciv():
    text = explain_item("megaciv", "Anatomy")
    assert "Epidemic: Anatomy (secondary victim): 5 fewer points of damage" in text
    assert "20 from Medicine (specific)" in text
    assert "free" in text.lower()  # its ability, in words
    text = explain_item("megaciv", "Epidemic")
    assert "Anatomy (secondary victim): 5 fewer points of damage" in text
    assert "Advances it mentions: Anatomy, Enlightenment, Medicine, Roadbuilding, Trade Empire" in text
    text = explain_item("civ1981", "Drama & Poetry")  # an aka
    assert text.startswith("Drama and Poetry: advance in civ1981")
    assert "`Drama & Poetry` is another name" in text


def test_explain_item_did_you_mean():
    with pytest.raises(StateError, match=r"did you mean `Pottery`"):
        explain_item("megaciv", "Potery")
    with pytest.raises(StateError, match=r"no advance, calamity, commodity or civilization `Zzyzx`"):
        explain_item("megaciv", "Zzyzx")


def test_explain_a_round_rule_name_lists_what_reads_and_changes_it():
    text = explain_item("cardgame", "war_track")
    assert text.startswith("war_track: track in cardgame")
    assert '"War progress track": start 0, positions 0..7' in text
    assert "declared at rulebooks/cardgame.civ:" in text
    assert "threshold under_siege reads it  rulebooks/cardgame.civ:" in text
    assert "pool rebellion_dice reads it" in text and text.count("phase war moves it") == 3
    text = explain_item("cardgame", "Natural_Events")  # its case aside; the event table, not the phase
    assert text.startswith("natural_events: event table in cardgame")
    assert "phase natural_events rolls it" in text
    assert "Used by: nothing" in explain_item("cardgame", "upkeep")
    with pytest.raises(StateError, match=r"did you mean `unrest`"):
        explain_item("cardgame", "unrst")


def test_explain_a_round_rule_name_follows_the_chain(tmp_path):
    house = tmp_path / "calm.civ"
    house.write_text('language 1\nedition calm "Calm" extends cardgame\n'
                     'threshold lose_action "40+ unrest: lose 1 state action" when unrest >= 40\n', encoding="utf-8")
    text = explain_item(str(house), "lose_action")
    assert "declared at rulebooks/cardgame.civ:110 (in cardgame)" in text
    assert f"replaced whole at {house}:3 (in calm)" in text
    assert '"40+ unrest: lose 1 state action": holds while unrest >= 40' in text
    text = explain_item(str(house), "unrest")
    assert f"threshold lose_action reads it  {house}:3" in text
    assert "threshold lose_action reads it  rulebooks/cardgame.civ" not in text  # replaced: out of force


def test_explain_command(tmp_path):
    res = run_cli("explain", str(GENTLE), "Famine")
    assert res.exit_code == 0, res.output
    assert "take 8 damage" in res.output
    res = run_cli("explain", "megaciv", "Famin")
    assert res.exit_code == 1 and "did you mean `Famine`" in res.output


# --- extends chains, change, drop, remove ------------------------------------------------------

BASE = '''language 1
edition base "Base"
group crafts "Crafts"
group arts "Arts"
credit policy best_group
advance "Pottery" { cost 60 groups crafts credits crafts 10 credit "Agriculture" 10 summary "pots" }
advance "Agriculture" { cost 120 groups crafts credits crafts 10 }
advance "Law" { cost 150 groups arts requires "Agriculture" }
calamity "Famine" {
  stack 3
  class major nontradable
  primary { damage(10) }
  secondary count 3 { damage(5) }
  exclude beneficiary
  when holds("Pottery") { prevent damage 5 }
  when holds("Agriculture") for primary { add damage 5 }
  when holds("Agriculture") for secondary { add damage 1 }
}
calamity "Flood" { stack 4 class major nontradable primary { damage(15) } }
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def house(folder: Path, name: str, extends: str, body: str) -> Path:
    return write(folder, f"{name}.civ", f'language 1\nedition {name} "{name}" extends {extends}\n{body}')


def errors(path: Path):
    return check_file(path).diagnostics.errors


@pytest.fixture
def base(tmp_path) -> Path:
    return write(tmp_path, "base.civ", BASE)


def test_change_replaces_given_fields_and_keeps_the_rest(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', '''
change calamity "Famine" { primary { damage(8) } when holds("Law") { prevent damage 2 } }
change advance "Pottery" { cost 50 credits arts 5 }
''')
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    ed = checked.edition
    famine = ed.calamities["Famine"]
    assert [(e.kind, e.args["amount"].value) for e in famine.primary] == [("damage", 8)]
    assert famine.secondary is not None and famine.stack == 3 and len(famine.exclusions) == 1
    assert [m.advances for m in famine.modifiers] == [["Pottery"], ["Agriculture"], ["Agriculture"], ["Law"]]
    assert famine.modifiers[-1].span.path.endswith("h.civ")
    assert famine.modifiers[0].span.path.endswith("base.civ")
    pottery = ed.advances["Pottery"]
    assert pottery.cost == 50
    assert pottery.credits == {"arts": 5}  # `credits` given: replaces the base's whole list
    assert [s.target for s in pottery.specific] == ["Agriculture"]  # not given: kept
    assert pottery.summary == "pots"
    rb = civdsl.load(path)
    assert damage(rb, "Famine") == 8
    assert damage(rb, "Famine", holds=["Law", "Agriculture"]) == 11  # 8 + 5 - 2


def test_drop_when_removes_by_condition_and_role(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', '''
change calamity "Famine" { drop when holds("Agriculture") for secondary }
''')
    rb = civdsl.load(path)
    assert damage(rb, "Famine", holds=["Agriculture"]) == 15  # the primary modifier stays
    assert damage(rb, "Famine", "secondary", ["Agriculture"]) == 5  # the secondary one is gone
    path = house(tmp_path, "h2", '"base.civ"', '''
change calamity "Famine" { drop when holds("Agriculture") }
''')
    rb = civdsl.load(path)  # no role: every modifier with that condition goes
    assert damage(rb, "Famine", holds=["Agriculture"]) == 10
    assert damage(rb, "Famine", "secondary", ["Agriculture"]) == 5


def test_drop_then_add_replaces_a_modifier(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', '''
change calamity "Famine" {
  drop when holds("Pottery")
  when holds("Pottery") { prevent damage 4 per cards("Grain") }
}
commodity "Grain" { value 4 count 8 stack 4 }
''')
    rb = civdsl.load(path)
    assert damage(rb, "Famine", holds=["Pottery"], **grain(2)) == 2


def test_drop_of_a_missing_modifier_is_CIV061_at_the_drop(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', 'change calamity "Famine" {\n  drop when holds("Potery")\n}\n')
    [d] = errors(path)
    assert d.code == "CIV061"
    assert (Path(d.span.path).name, d.span.line, d.span.column) == ("h.civ", 4, 3)
    assert d.help == 'did you mean `holds("Pottery")`?'
    path = house(tmp_path, "h2", '"base.civ"', 'change calamity "Famine" { drop when holds("Pottery") for primary }\n')
    [d] = errors(path)
    assert d.code == "CIV061"  # the base modifier is for any role, not the primary only
    # the message names the role asked for, and the help never offers back what was written
    assert d.message == '`Famine` has no modifier `when holds("Pottery") for primary` to drop'
    assert "for primary" not in (d.help or "") and 'drop when holds("Pottery")`' in d.help


def test_remove(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', 'remove calamity "Flood"\nremove advance "Law"\n')
    checked = check_file(path)
    assert checked.ok, checked.diagnostics.render()
    assert "Flood" not in checked.edition.calamities and "Law" not in checked.edition.advances
    with pytest.raises(StateError, match="unknown calamity `Flood`"):
        civdsl.load(path).resolve("Flood")
    path = house(tmp_path, "h2", '"base.civ"', 'remove advance "Potery"\n')
    [d] = errors(path)
    assert d.code == "CIV011" and d.span.line == 3 and d.help == "did you mean `Pottery`?"


def test_removing_an_advance_others_need_is_reported(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', 'remove advance "Agriculture"\n')
    codes = {(d.code, Path(d.span.path).name) for d in errors(path)}
    # Law requires it, Pottery credits it, Famine asks about it: reported where they say so
    assert ("CIV010", "base.civ") in codes


def test_change_and_remove_need_a_base(tmp_path):
    path = write(tmp_path, "solo.civ", BASE + 'remove advance "Law"\nchange advance "Pottery" { cost 1 }\n')
    codes = [d.code for d in errors(path)]
    assert codes == ["CIV060", "CIV060"]


def test_redeclaring_replaces_whole(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', 'advance "Pottery" { cost 70 groups arts }\n')
    pottery = check_file(path).edition.advances["Pottery"]
    assert (pottery.cost, pottery.groups, pottery.credits, pottery.summary) == (70, ["arts"], {}, None)
    assert pottery.span.path.endswith("h.civ")


def test_declared_twice_in_one_house_file_is_an_error(tmp_path, base):
    path = house(tmp_path, "h", '"base.civ"', 'advance "X" { cost 1 groups arts }\nadvance "X" { cost 2 groups arts }\n')
    assert [d.code for d in errors(path)] == ["CIV020"]


def test_house_on_house(tmp_path, base):
    house(tmp_path, "mid", '"base.civ"', '''
change calamity "Famine" { primary { damage(8) } when holds("Law") { prevent damage 3 } }
''')
    top = house(tmp_path, "top", '"mid.civ"', '''
change calamity "Famine" { drop when holds("Law") secondary count 2 { damage(6) } }
''')
    checked = check_file(top)
    assert checked.ok, checked.diagnostics.render()
    assert checked.edition.bases == ["base", "mid"]
    rb = civdsl.load(top)
    assert damage(rb, "Famine", holds=["Law"]) == 8  # mid's primary, mid's Law modifier dropped by top
    assert damage(rb, "Famine", "secondary") == 6
    assert rb.resolve("Famine").to_dict()["secondary"]["count"] == 2


def test_extends_cycle_is_CIV008_at_the_extends(tmp_path):
    a = write(tmp_path, "a.civ", 'language 1\nedition a "A" extends "b.civ"\n')
    write(tmp_path, "b.civ", 'language 1\nedition b "B" extends "a.civ"\n')
    [d] = errors(a)
    assert d.code == "CIV008"
    assert (Path(d.span.path).name, d.span.line, d.span.column) == ("b.civ", 2, 23)
    assert "a.civ -> " in d.message and d.message.count("a.civ") == 2
    me = write(tmp_path, "me.civ", 'language 1\nedition me "Me" extends "me.civ"\n')
    [d] = errors(me)
    assert d.code == "CIV008" and d.span.line == 2


def test_missing_base_is_CIV007_at_the_extends(tmp_path):
    by_id = write(tmp_path, "x.civ", 'language 1\nedition x "X" extends megaciv2\n')
    [d] = errors(by_id)
    assert d.code == "CIV007"
    assert (d.span.line, d.span.column) == (2, 23)
    assert d.help == "did you mean `megaciv`?"
    by_path = write(tmp_path, "y.civ", 'language 1\nedition y "Y" extends "nothere.civ"\n')
    [d] = errors(by_path)
    assert d.code == "CIV007" and (Path(d.span.path).name, d.span.line) == ("y.civ", 2)
    deep = write(tmp_path, "z.civ", 'language 1\nedition z "Z" extends "x.civ"\n')
    [d] = errors(deep)  # the missing base of a base: reported in the file that names it
    assert d.code == "CIV007" and Path(d.span.path).name == "x.civ"


def test_extends_outside_the_tree_is_CIV006(tmp_path):
    write(tmp_path, "outside.civ", BASE)
    inner = write(tmp_path / "sub", "in.civ", 'language 1\nedition i "I" extends "../../outside.civ"\n')
    [d] = errors(inner)
    assert d.code == "CIV006"


def test_a_mistake_in_a_base_points_at_the_base(tmp_path, base):
    write(tmp_path, "mid.civ", 'language 1\nedition mid "Mid" extends "base.civ"\n'
                               'change calamity "Flood" {\n  when holds("Potery") { prevent damage 1 }\n}\n')
    top = house(tmp_path, "top", '"mid.civ"', "")
    [d] = errors(top)
    assert d.code == "CIV010"
    assert (Path(d.span.path).name, d.span.line, d.span.column) == ("mid.civ", 4, 14)
    rendered = check_file(top).diagnostics.render()
    assert 'mid.civ:4:14: error[CIV010]' in rendered
    assert '4 |   when holds("Potery") { prevent damage 1 }' in rendered  # the base's own source line


def test_a_syntax_error_in_a_base_stops_the_chain(tmp_path):
    write(tmp_path, "broken.civ", 'language 1\nedition broken "B"\nconst x = \n')
    top = house(tmp_path, "top", '"broken.civ"', "")
    checked = check_file(top)
    assert not checked.ok
    [d] = checked.diagnostics.errors
    assert d.code == "CIV001" and Path(d.span.path).name == "broken.civ"


def test_trace_of_an_inherited_modifier_names_the_base_file():
    rb = civdsl.load(GENTLE_GRANARY)
    trace = rb.resolve("Famine", "primary", ["Agriculture"]).to_dict()["trace"]
    [step] = [t for t in trace if t["by"] == ["Agriculture"]]
    assert Path(step["path"]).name == "megaciv.civ"


def test_change_advance_ability_replaces_the_base_abilities(tmp_path):
    path = house(tmp_path, "h", "megaciv", 'change advance "Roadbuilding" { ability movement(2) }\n')
    road = check_file(path).edition.advances["Roadbuilding"]
    assert [(a.kind, a.args) for a in road.abilities] == [("movement", {"delta": 2})]
