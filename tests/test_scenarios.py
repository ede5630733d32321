"""Behaviour tests as data: tests/scenarios/<edition>.yaml, hand-computed from the seed texts.

The seed texts' own worked examples are rulings in the rulebooks (tests/test_rulings.py runs them).

Each scenario applies one rule (a calamity to a victim, a purchase, the epoch check, scoring)
to a player state and compares the outcome with the rulebook's printed answer.
"""

from pathlib import Path

import pytest
import yaml

import civdsl
from civdsl.rulings import demanded_amounts, effect_amounts

SCENARIO_DIR = Path(__file__).parent / "scenarios"


def _scenarios():
    for path in sorted(SCENARIO_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for i, sc in enumerate(data["scenarios"]):
            yield pytest.param(data["rulebook"], sc, id=f"{path.stem}:{i}:{sc['name']}")


# what an answer's effects amount to, read as rulings read them (a ruling is a scenario kept in its rulebook)
_effects = effect_amounts
_demanded = demanded_amounts


def _at_table(rb, sc: dict) -> dict:
    """The primary victim ("victim", with the scenario's holds and state) at a table of the other
    players the scenario lists, resolved by `civdsl table`'s engine."""
    from civdsl.table import load_table
    from civdsl.table import resolve_phase

    t = sc["table"]
    victim = {"name": "victim", "holds": sc.get("holds") or [], **(sc.get("state") or {})}
    entry = {"calamity": sc["resolve"], "victim": t.get("victim", "victim"),
             **{k: t[k] for k in ("traded_by", "beneficiary", "secondary") if k in t}}
    data = {"players": [victim] + t.get("players", []), "borders": t.get("borders", {}), "calamities": [entry]}
    phase = resolve_phase(load_table(rb, data=data))
    out = phase.resolved[0].primary.to_dict()
    out["missing_facts"] = phase.missing_facts
    # each secondary victim's loss, on the amount assigned to him
    out["secondary_victims"] = {name: {e["kind"]: e.get("taken", e.get("amount")) for e in r.to_dict()["effects"]}
                                for name, _, r in phase.resolved[0].secondary}
    return out


def _expected_effects(expected: dict) -> dict:
    return {k: v for k, v in expected.items() if k != "cancelled"}


@pytest.mark.parametrize("rulebook, sc", list(_scenarios()))
def test_scenario(rulebook, sc):
    rb = civdsl.load(rulebook)
    expect = sc["expect"]
    if "resolve" in sc:
        if "table" in sc and "error" in expect:  # an assignment the rules forbid, say
            from civdsl.errors import StateError

            with pytest.raises(StateError) as err:
                _at_table(rb, sc)
            assert expect["error"] in str(err.value)
            return
        if "table" in sc:  # the primary victim at a table: the other players answer the rule's table queries
            data = _at_table(rb, sc)
        else:
            r = rb.resolve(sc["resolve"], sc.get("role", "primary"), sc.get("holds") or [], sc.get("state") or {},
                           assigned=sc.get("assigned"))
            data = r.to_dict()
        # an answer may lack only what the scenario says it lacks (a rule about the other players,
        # asked of one player alone, is incomplete: `other_players`)
        assert data["missing_facts"] == expect.get("missing", []), f"state lacks {data['missing_facts']}"
        if "effects" in expect:
            assert _effects(data["effects"]) == _expected_effects(expect["effects"])
        if "demanded" in expect:  # what the rule demands before the bound by the victim's holdings
            assert _demanded(data["effects"]) == expect["demanded"]
        if "loss" in expect:  # which cities and tokens go (losses met exactly or least over)
            assert {e["kind"]: e.get("loss") for e in data["effects"] if "loss" in e} == expect["loss"]
        if "discard" in expect:  # discard by value: which cards, least excess then fewest cards
            assert {e["kind"]: e["discard"]["cards"] for e in data["effects"] if "discard" in e} == expect["discard"]
        if "select" in expect:  # select, then unselect: how many were selected and unselected
            assert {e["kind"]: e["select"] for e in data["effects"] if "select" in e} == expect["select"]
        if "support" in expect:  # reduce until supported: rate, withheld tokens, cities reduced and left
            assert {e["kind"]: e["support"] for e in data["effects"] if "support" in e} == expect["support"]
        if "stop" in expect:  # `may stop with ...`: the price of stopping the whole calamity
            assert {o["kind"]: o["args"].get("amount") for o in data["options"]
                    if o["instead_of"] == "calamity"} == expect["stop"]
        if "bounded" in expect:  # the trace says when the bound applied, and by which fact
            assert sorted(t["kind"] for t in data["trace"] if t["op"] == "bound") == sorted(expect["bounded"])
        if "cancelled" in expect:
            assert data["cancelled"] is expect["cancelled"]
        if "secondary_victims" in expect:  # at a table: what each named secondary victim suffers
            assert data["secondary_victims"] == expect["secondary_victims"]
        if "secondary" in expect:
            sec = data["secondary"]
            want = expect["secondary"]
            for key in ("count", "share"):
                if key in want:
                    assert sec[key] == want[key]
            assert _effects(sec["effects"]) == want["effects"]
    elif "cost" in sc:
        c = sc["cost"]
        result = rb.cost(c.get("holds") or [], c["buy"], c.get("state") or {})
        prices = {row["advance"]: row["price"] for row in result["items"]}
        assert prices == expect["prices"]
        if "total" in expect:
            assert result["total"] == expect["total"]
        # legality as `plan` applies it: a scenario names what is illegal, or none is
        assert [p["advance"] for p in result["illegal"]] == expect.get("illegal", [])
        if "acquired" in expect:  # advances gained with the purchase at no cost
            assert [r["advance"] for r in result["acquired"]] == expect["acquired"]
        if "start_credits" in expect:  # credit points of every group the player started with
            assert result["start_credits"]["per_group"] == expect["start_credits"]
    elif "epoch" in sc:
        e = sc["epoch"]
        [track] = rb.epochs(e["ast"], e.get("holds") or [], e.get("state") or {})
        # an answer lacks only what the scenario says it lacks, and then it is incomplete
        assert track["missing_facts"] == expect.get("missing", [])
        assert track["complete"] is not expect.get("missing")
        if "moves_backward" in expect:  # true, false, or null while it depends on a fact not given
            assert track["moves_backward"] is expect["moves_backward"]
        if "reached" in expect:
            assert track["reached"] == expect["reached"]
        if "counted" in expect:  # {fact: the count the requirements read} where held advances add to it
            assert {c["fact"]: c["value"] for c in track["counted"]} == expect["counted"]
        if "marker" in expect:  # the player's own marker: space, epoch, next space and the verdict
            got = {k: track["marker"].get(k) for k in expect["marker"]}
            if "lacks" in expect["marker"]:
                got["lacks"] = [r["requirement"] for r in track["marker"]["needs"] if not r["met"]]
            assert got == expect["marker"]
    elif "score" in sc:
        s = sc["score"]
        result = rb.score(s.get("holds") or [], s.get("state") or {})
        assert result["total"] == expect["total"]
        if "missing" in expect:
            assert result["missing_facts"] == expect["missing"]
        if "tiebreaks" in expect:  # the tie-breakers named, by their labels
            got = {t["label"]: t["value"] for t in result["tiebreaks"]}
            assert {k: got.get(k) for k in expect["tiebreaks"]} == expect["tiebreaks"]
        if "ast" in expect:  # the A.S.T. line: the marker's space and the points it is worth
            [line] = [p for p in result["points"] if "ast_space" in p]
            assert {"space": line["ast_space"], "points": line["points"]} == expect["ast"]
    else:
        pytest.fail(f"scenario {sc['name']!r} names no rule to apply")


def test_every_shipped_rulebook_with_calamities_or_advances_has_scenarios():
    from civdsl.resources import shipped_rulebooks

    covered = {}
    for p in SCENARIO_DIR.glob("*.yaml"):
        data = yaml.safe_load(p.read_text())
        covered[data["rulebook"]] = len(data["scenarios"])
    for edition in shipped_rulebooks():
        rb = civdsl.load(edition)
        if rb.calamities or rb.advances:  # the rules these scenarios exercise
            assert covered.get(edition, 0) > 0, f"{edition} has no scenarios in tests/scenarios/"
