"""`civdsl diff A B --impact`: what a house rule changes for players. The report is checked against a
brute-force comparison written here, with the public API (state files as a player gives them)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import civdsl
from civdsl import api
from civdsl import impact as impact_mod
from civdsl.errors import StateError
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "rulebooks" / "house"
# each shipped house rule and the rulebook it extends
SHIPPED = [(h.stem, "megaciv" if h.stem != "gentle_granary" else str(HOUSE / "gentle.civ")) for h in
           sorted(HOUSE.glob("*.civ"))]


@pytest.fixture(scope="module")
def reports():
    return {house: api.impact_of(base, str(HOUSE / f"{house}.civ")) for house, base in SHIPPED}


def _grid(item) -> list[dict]:
    """Every situation of a calamity item's grid, as a state file says it: each advance the report
    varies held or not, each fact over the grid's values, each commodity over the card counts."""
    axes = []
    for v in item.varied:
        if v.startswith("cards of "):
            axes.append([("commodities", v[9:], n) for n in impact_mod.CARD_GRID])
        elif v in civdsl.vocabulary.FACTS:
            axes.append([("fact", v, n) for n in impact_mod.FACT_GRID[civdsl.vocabulary.FACTS[v].type]])
        else:
            axes.append([("holds", v, False), ("holds", v, True)])
    out = []
    for combo in itertools.product(*axes):
        state: dict = {"holds": []}
        for what, name, value in combo:
            if what == "holds" and value:
                state["holds"].append(name)
            elif what == "commodities":
                state.setdefault("commodities", {})[name] = value
            elif what == "fact":
                state[name] = value
        out.append(state)
    return out


def _loss(rb, calamity: str, role: str, state: dict):
    """What the victim loses, or None for an incomplete answer."""
    facts = {k: v for k, v in state.items() if k != "holds"}
    data = rb.resolve(calamity, role, state["holds"], facts).to_dict()
    if data["missing_facts"]:
        return None
    return (data["cancelled"], bool(data["immune"]),
            {e["kind"]: int(e.get("taken", e.get("amount", True))) for e in data["effects"] if e["kind"] != "cancelled"})


@pytest.mark.parametrize("house, base", SHIPPED, ids=[h for h, _ in SHIPPED])
def test_calamity_impact_matches_a_brute_force_comparison(reports, house, base):
    a, b = civdsl.load(base), civdsl.load(HOUSE / f"{house}.civ")
    report = reports[house]
    for item in (i for i in report.items if i.kind == "calamity"):
        grid = _grid(item)
        if len(grid) > impact_mod.EXHAUSTIVE:
            continue  # sampled: checked by the sampled test below
        changed = incomplete = possible = 0
        deltas: dict[str, list[int]] = {}
        for state in grid:
            try:
                x, y = _loss(a, item.item, item.role, state), _loss(b, item.item, item.role, state)
            except StateError:  # no situation a player can be in (an A.S.T. position past the finish)
                continue
            possible += 1
            if x is None or y is None:
                incomplete += 1
            elif x != y:
                changed += 1
                for k in set(x[2]) | set(y[2]):
                    if x[2].get(k, 0) != y[2].get(k, 0):
                        deltas.setdefault(k, []).append(y[2].get(k, 0) - x[2].get(k, 0))
        where = f"{house}: {item.item} ({item.role})"
        if item.same_rules:  # not resolved by the report: the brute force must find nothing either
            assert changed == 0, where
            continue
        assert (item.situations, item.changed, item.incomplete) == (possible, changed, incomplete), where
        got = {k: (s.count, s.low, s.high, round(s.total / s.count, 6)) for k, s in item.deltas.items()}
        assert got == {k: (len(d), min(d), max(d), round(sum(d) / len(d), 6)) for k, d in deltas.items()}, where


def test_gentle_changes_exactly_the_three_calamities_it_edits(reports):
    changed = {(i.item, i.role) for i in reports["gentle"].changed()}
    assert changed == {("Famine", "primary"), ("Famine", "secondary"), ("Flood", "primary"),
                       ("Epidemic", "primary"), ("Epidemic", "secondary")}
    famine = next(i for i in reports["gentle"].items if (i.item, i.role) == ("Famine", "primary"))
    assert famine.exhaustive and famine.varied == ["Agriculture", "Calendar", "Pottery", "unit_points"]
    assert famine.deltas["damage"].high < 0  # never harsher
    assert famine.lines_b == ["rulebooks/house/gentle.civ:11", "rulebooks/house/gentle.civ:14"]
    # megaciv's lines: the primary victim's effects and the Pottery modifier gentle replaces
    text = (ROOT / "rulebooks" / "megaciv.civ").read_text(encoding="utf-8").split("\n")
    start = text.index('calamity "Famine" {')
    primary = next(i for i in range(start, len(text)) if text[i].strip().startswith("primary {")) + 1
    pottery = next(i for i in range(start, len(text)) if 'when holds("Pottery")' in text[i]) + 1
    assert famine.lines_a == [f"rulebooks/megaciv.civ:{primary}", f"rulebooks/megaciv.civ:{pottery}"]


def test_the_worst_case_is_reproduced_by_the_commands(reports):
    """The situation the report names as most changed gives those answers with `resolve` and `cost`."""
    for house, base in SHIPPED:
        a, b = civdsl.load(base), civdsl.load(HOUSE / f"{house}.civ")
        for item in reports[house].changed():
            s = dict(item.worst["situation"])
            if item.kind == "calamity":
                x, y = _loss(a, item.item, item.role, s), _loss(b, item.item, item.role, s)
                assert {k: v for k, v in item.worst["a"].items() if k not in ("cancelled", "immune")} == x[2]
                assert {k: v for k, v in item.worst["b"].items() if k not in ("cancelled", "immune")} == y[2]
            elif item.kind == "price":
                buy = s.pop("buy")
                price = {rb: next(r["price"] for r in rb.cost(s["holds"], buy)["items"] if r["advance"] == item.item)
                         for rb in (a, b)}
                assert (price[a], price[b]) == (item.worst["a"]["price"], item.worst["b"]["price"])


def test_strict_credits_changes_prices_only(reports):
    report = reports["strict_credits"]
    assert {i.kind for i in report.changed()} == {"price"}
    assert all(i.deltas["price"].low > 0 for i in report.changed())  # single use never makes a price lower


def test_incomplete_answers_are_counted_apart_never_compared(tmp_path):
    """Treachery reads the beneficiary's stock, which one player's situation cannot give."""
    house = tmp_path / "treason.civ"
    house.write_text('language 1\nedition treason "Treason" extends megaciv\nchange calamity "Treachery" {\n'
                     '  drop when holds("Diplomacy")\n  summary "Diplomacy no longer helps."\n}\n', encoding="utf-8")
    report = api.impact_of("megaciv", str(house))
    treachery = next(i for i in report.items if (i.item, i.role) == ("Treachery", "primary"))
    assert treachery.incomplete == treachery.situations > 0 and treachery.changed == 0
    assert treachery in report.uncompared() and treachery not in report.changed()
    text = impact_mod.render_text(report)
    assert "Incomplete answers in A or B, counted apart (no situation compared changes):" in text
    assert f"Treachery (primary victim): {treachery.incomplete} of {treachery.situations} situations" in text


def test_the_epoch_reached_is_not_incomplete_for_want_of_the_marker(reports):
    """With no city, megaciv's expert track moves the marker back unless it is in an exempt epoch,
    which needs the marker's position; the epoch reached does not, and is compared."""
    expert = next(i for i in reports["gentle_granary"].items if (i.kind, i.item) == ("epoch", "expert"))
    assert any(s["cities"] == 0 for s in expert.walked)
    assert expert.incomplete == 0 and expert.changed == 0 and expert not in reports["gentle_granary"].uncompared()


def test_a_sampled_space_states_its_sample_and_is_reproducible_with_a_seed():
    one = api.impact_of("megaciv", str(HOUSE / "strict_credits.civ"), seed=3)
    again = api.impact_of("megaciv", str(HOUSE / "strict_credits.civ"), seed=3)
    other = api.impact_of("megaciv", str(HOUSE / "strict_credits.civ"), seed=4)
    assert one.to_dict() == again.to_dict()
    assert one.to_dict() != other.to_dict()
    sampled = [i for i in one.items if i.kind == "price" and not i.exhaustive]
    assert sampled and all(i.situations < i.space for i in sampled)
    assert "a sample of" in impact_mod.coverage_text(sampled[0])


def test_identical_rulebooks_have_no_impact():
    report = api.impact_of("megaciv", "megaciv")
    assert report.changed() == [] and all(i.same_rules for i in report.items)


def test_a_changed_number_shows_in_the_impact(tmp_path):
    house = tmp_path / "harsh.civ"
    house.write_text('language 1\nedition harsh "Harsh" extends megaciv\nchange calamity "Tempest" {\n'
                     '  primary { damage(3, area=coastal) lose_treasury(5) }\n  summary "Harsher."\n}\n',
                     encoding="utf-8")
    report = api.impact_of("megaciv", str(house))
    [item] = report.changed()
    assert (item.item, item.role) == ("Tempest", "primary")
    assert item.deltas["damage"].high == 1 and item.lines_b == [f"{house}:4"]


def test_the_command_line_text_and_json():
    res = run_cli("diff", "megaciv", str(HOUSE / "gentle.civ"), "--impact")
    assert res.exit_code == 0, res.output
    assert "Famine (primary victim): what the victim loses" in res.output
    assert "28 of 56 situations change (every situation)" in res.output
    assert "points of damage: mean \u22123.14, from \u22125 to \u22121" in res.output
    res = run_cli("diff", "megaciv", str(HOUSE / "gentle.civ"), "--impact", "--json", "--seed", "2")
    data = json.loads(res.output)
    assert data["command"] == "diff" and data["impact"]["seed"] == 2
    famine = next(i for i in data["impact"]["items"] if i["item"] == "Famine" and i["role"] == "primary")
    assert famine["changed"] == 28 and famine["compared"] == 56 and famine["deltas"]["damage"]["min"] == -5
    res = run_cli("diff", "megaciv", str(HOUSE / "gentle.civ"), "--impact", "--exit-code")
    assert res.exit_code == 1


def test_a_house_rules_build_has_an_impact_page_and_the_companion_sums_it_up(tmp_path):
    from civdsl.build import render
    from civdsl.frontend import check_file as check

    checked = check(HOUSE / "gentle.civ", reuse=True)
    out = render(checked, check(ROOT / "rulebooks" / "megaciv.civ", reuse=True))
    assert "charts/impact.html" in out.files and "charts/impact.csv" in out.files
    assert "Famine (primary victim)" in out.files["charts/impact.md"]
    assert "impact.md" in out.files["charts/README.md"]
    assert '<section id="impact"' in out.files["companion.html"]
    assert "Famine (primary victim)</strong>: 28 of 56 situations change" in out.files["companion.html"]
    alone = render(check(ROOT / "rulebooks" / "megaciv.civ", reuse=True))
    assert "charts/impact.md" not in alone.files and '<section id="impact"' not in alone.files["companion.html"]


def _price_of(rb, state: dict, advance: str):
    """The advance's price after credits with `cost`, or None for an incomplete answer."""
    result = rb.cost(state["holds"], state["buy"])
    if not result["complete"]:
        return None
    return next(r["price"] for r in result["items"] if r["advance"] == advance)


def _epoch_reached(rb, track: str, state: dict):
    """How far along the track the player's epochs are met (0 = the first, -1 = none), or None for
    an incomplete answer."""
    facts = {k: v for k, v in state.items() if k != "holds"}
    [answer] = rb.epochs(track, state["holds"], facts)
    met = 0
    while met < len(answer["epochs"]) and answer["epochs"][met]["met"] is True:
        met += 1
    if met < len(answer["epochs"]) and answer["epochs"][met]["met"] is None:
        return None  # the next epoch may be met: it depends on a fact not given
    return met - 1


def _brute_force(situations, answer_a, answer_b):
    """(situations a player can be in, changed, incomplete, the changes) of one measured number."""
    possible = changed = incomplete = 0
    deltas: list = []
    for state in situations:
        try:
            x, y = answer_a(state), answer_b(state)
        except StateError:  # no situation a player can be in
            continue
        possible += 1
        if x is None or y is None:
            incomplete += 1
        elif x != y:
            changed += 1
            deltas.append(y - x)
    return possible, changed, incomplete, deltas


def _price_space(rb, advance: str) -> list[dict]:
    """The whole price space written from the rulebook's data: every set of the advances whose
    credits count towards ADVANCE held, the advance bought alone and with each other advance of
    its group not held."""
    advances = rb.advances
    groups = set(advances[advance]["groups"])
    creditors = sorted(n for n, a in advances.items() if n != advance and (
        groups & set(a["credits"]) or advance in a["specific"]))
    peers = sorted(n for n, a in advances.items() if n != advance and groups & set(a["groups"]))
    out = []
    for flags in itertools.product((False, True), repeat=len(creditors)):
        held = [c for c, f in zip(creditors, flags) if f]
        out += [{"holds": held, "buy": buy} for buy in [[advance]] + [[advance, p] for p in peers if p not in held]]
    return out


def _assert_matches(item, found, where):
    possible, changed, incomplete, deltas = found
    assert (item.situations, item.changed, item.incomplete) == (possible, changed, incomplete), where
    measured = [s for s in item.deltas.values() if s.count]
    if not deltas:
        assert measured == [], where
        return
    [s] = measured
    assert (s.count, s.low, s.high, round(s.total / s.count, 6)) == (
        len(deltas), min(deltas), max(deltas), round(sum(deltas) / len(deltas), 6)), where


@pytest.mark.parametrize("house, base", SHIPPED, ids=[h for h, _ in SHIPPED])
def test_price_and_epoch_impact_matches_a_brute_force_comparison(reports, house, base):
    """Every price and epoch item: on the situations the report resolved (every one of a space
    walked whole, the stated sample of a larger one), `cost` and `epochs` in both rulebooks give
    the same counts, changes and incomplete answers as the report."""
    a, b = civdsl.load(base), civdsl.load(HOUSE / f"{house}.civ")
    names = sorted(a.advances)
    for item in (i for i in reports[house].items if i.kind in ("price", "epoch") and i.same_rules):
        # not resolved by the report: holding nothing and holding every other advance answer alike
        if item.kind == "price":
            for held in ([], [n for n in names if n != item.item]):
                s = {"holds": held, "buy": [item.item]}
                assert _price_of(a, s, item.item) == _price_of(b, s, item.item), f"{house}: price {item.item}"
        else:
            for s in ({"holds": [], "cities": 3}, {"holds": names, "cities": 6}):
                assert _epoch_reached(a, item.item, s) == _epoch_reached(b, item.item, s), f"{house}: {item.item}"
    for item in (i for i in reports[house].items if i.kind in ("price", "epoch") and not i.same_rules):
        where = f"{house}: {item.kind} {item.item}"
        assert item.walked and (item.exhaustive or len(item.walked) < item.space), where
        if item.kind == "price":
            walked = [{"holds": list(s["holds"]), "buy": list(s["buy"])} for s in item.walked]
            assert all(s["buy"][0] == item.item and not set(s["buy"]) & set(s["holds"]) for s in walked), where
            if item.exhaustive:  # the whole space, written here from the rulebook's data
                space = _price_space(a, item.item)
                assert sorted(map(repr, walked)) == sorted(map(repr, space)), where
            found = _brute_force(walked, lambda s: _price_of(a, s, item.item), lambda s: _price_of(b, s, item.item))
        else:
            found = _brute_force(item.walked, lambda s: _epoch_reached(a, item.item, s),
                                 lambda s: _epoch_reached(b, item.item, s))
        _assert_matches(item, found, where)


TINY = '''language 1
edition {id} "{id}"
source "a test edition: three cards of one group and a three-epoch track"
group crafts "Crafts" color "#E67E22"
credit policy per_card
advance "Pottery" {{
  cost 40
  groups crafts
  credits crafts 10
}}
advance "Weaving" {{
  cost 50
  groups crafts
  credits crafts {weaving}
}}
advance "Smithing" {{
  cost 80
  groups crafts
}}
ast standard "Track" {{
  spaces 8
  epoch "First" {{ }}
  epoch "Second" {{ require cities >= 2 "two cities" }}
  epoch "Third" {{ require advances >= {third} "cards" }}
  backward when cities == 0 except "First"
}}
'''


def test_small_price_and_epoch_spaces_are_walked_whole_and_match_a_brute_force(tmp_path):
    """Two rulebooks small enough that every held set, purchase, holding and city count is walked:
    the report says so, and its counts match `cost` and `epochs` over the space written here."""
    a_path, b_path = tmp_path / "tiny_a.civ", tmp_path / "tiny_b.civ"
    a_path.write_text(TINY.format(id="tiny_a", weaving=10, third=2), encoding="utf-8")
    b_path.write_text(TINY.format(id="tiny_b", weaving=20, third=3), encoding="utf-8")
    report = api.impact_of(str(a_path), str(b_path))
    a, b = civdsl.load(a_path), civdsl.load(b_path)
    items = {(i.kind, i.item): i for i in report.items}
    assert set(items) == {("price", "Pottery"), ("price", "Weaving"), ("price", "Smithing"), ("epoch", "standard")}
    for item in items.values():
        assert item.exhaustive and not item.same_rules and item.situations == item.space == len(item.walked)
    for name in ("Pottery", "Weaving", "Smithing"):
        item = items[("price", name)]
        space = _price_space(a, name)
        assert sorted(map(repr, item.walked)) == sorted(map(repr, space))
        _assert_matches(item, _brute_force(space, lambda s: _price_of(a, s, name), lambda s: _price_of(b, s, name)),
                        name)
    # Weaving's credit rises to 20: Pottery and Smithing bought holding Weaving cost 10 less
    assert (items[("price", "Pottery")].changed, items[("price", "Smithing")].changed) == (2, 3)
    assert items[("price", "Weaving")].changed == 0
    # only the line that differs is named, not every advance of a rulebook in another file
    assert items[("price", "Pottery")].lines_b == [f"{b_path}:14"]
    epoch = items[("epoch", "standard")]
    cities = civdsl.vocabulary.FACTS["cities"].type
    space = [{"holds": [n for n, f in zip(("Pottery", "Smithing", "Weaving"), flags) if f], "cities": c}
             for flags in itertools.product((False, True), repeat=3) for c in impact_mod.FACT_GRID[cities]]
    assert sorted(map(repr, epoch.walked)) == sorted(map(repr, space))
    found = _brute_force(space, lambda s: _epoch_reached(a, "standard", s), lambda s: _epoch_reached(b, "standard", s))
    _assert_matches(epoch, found, "epoch")
    # with no city the step back needs the marker's position, the epoch reached does not
    assert epoch.incomplete == 0
    # the third epoch needs three cards instead of two: two cards and two cities or more
    assert epoch.changed == 3 * 5 and epoch.deltas["epoch reached"].low == epoch.deltas["epoch reached"].high == -1
