"""`cost` and `plan` answered by both engines: the generated JavaScript one (credits.js, plan.js) in
Node and the Python one in-process, over every cost scenario of tests/scenarios/, the states of
the planner's and purchases' own tests, every house rule of rulebooks/house/ and seeded random
states (drawn as the planner's brute-force property tests draw theirs) for every shipped
rulebook. The answers must be identical; a difference fails naming the scenario and the first
key path where the answers differ. Skipped only where Node is not installed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

import civdsl
from civdsl import sourcemap

from benchmark_modules import bench_planner
from companion_harness import PYTHON_ANSWERS, state_and_holds, cli_answer, first_difference, js_answers, node_available

pytestmark = pytest.mark.skipif(not node_available(), reason="node is not installed")

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["megaciv", "expansion", "civ1981", "civ1980"]
HOUSE = sorted(str(p) for p in (ROOT / "rulebooks" / "house").glob("*.civ"))


# --- the Python answers, as the command line's --json prints them -----------------------------

def _names(value) -> list[str]:
    from civdsl.state import split_names

    return split_names(",".join(value) if isinstance(value, list) else value)


def _cost(rb, query: dict) -> dict:
    """cli/questions.cost: the purchase's prices, or with --trade-cards alone the cards' prices."""
    from civdsl.cli.questions import _stacks
    from civdsl.state import StateError

    options = query.get("options") or {}
    state, holds = state_and_holds(query)
    buy, trade = _names(options.get("buy")), options.get("tradeCards")
    if not buy and not trade:
        raise StateError("give --buy ADVANCES or --trade-cards STACKS")
    if trade and not buy:
        stacks = [int(s) for s in trade] if isinstance(trade, list) else _stacks(trade)
        return rb.trade_cards(stacks, holds, state)
    return rb.cost(holds, buy, state)


def _plan(rb, query: dict) -> dict:
    """cli/plan.plan: the planner's report (among is the Python API's, used by the property tests)."""
    from civdsl.plan import plan

    options = query.get("options") or {}
    state, holds = state_and_holds(query)
    among = options.get("among")
    with sourcemap.rules_of(rb.module):
        return plan(rb, dict(state), holds=holds, objective_spec=options.get("objective"),
                    want=_names(options.get("want")), avoid=_names(options.get("avoid")),
                    top=options.get("top", 1), explain=bool(options.get("explain")),
                    horizon=options.get("horizon", 1), hand_limit=options.get("handLimit"),
                    among=None if among is None else _names(among))


PYTHON_ANSWERS.setdefault("cost", _cost)
PYTHON_ANSWERS.setdefault("plan", _plan)


# --- the questions --------------------------------------------------------------------------------

def _scenario_queries() -> list[tuple[str, str, dict]]:
    """Every cost scenario, asked as `cost` and as `plan` (the purchase wanted, with a treasury that
    pays for it, and without one)."""
    out = []
    for path in sorted((ROOT / "tests" / "scenarios").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        rid = data["rulebook"]
        for i, sc in enumerate(data["scenarios"]):
            if "cost" not in sc:
                continue
            c = sc["cost"]
            name = f"{path.stem}:{i}:{sc['name']}"
            state = dict(c.get("state") or {})
            out.append((rid, name, {"command": "cost", "state": state,
                                    "options": {"holds": list(c.get("holds") or []), "buy": list(c["buy"])}}))
            rb = civdsl.load(rid)
            printed = sum(rb.advances[b]["cost"] or 0 for b in c["buy"])
            planned = {"holds": list(c.get("holds") or []), "treasury": printed, "commodities": {}, **state}
            if "hand_limit_by_players" in rb.module.TABLES:
                planned.setdefault("players", 9)
            out.append((rid, name + " (plan, wanted)", {"command": "plan", "state": planned,
                                                        "options": {"want": list(c["buy"]), "top": 3}}))
            out.append((rid, name + " (plan, half the treasury)",
                        {"command": "plan", "state": {**planned, "treasury": printed // 2}, "options": {"top": 2}}))
    return out


# The states of tests/test_planner.py and tests/test_purchases.py (seed examples and the rules each
# test names), and the questions of the command line's own tests.
_TEST_STATES = [
    ("megaciv", "phase 12 example 1 with exactly its price",
     {"holds": ["Music"], "treasury": 110, "commodities": {}, "players": 9},
     {"want": ["Drama and Poetry", "Mysticism"]}),
    ("megaciv", "example 3: Agriculture for 100", {"holds": ["Pottery"], "treasury": 100, "commodities": {},
                                                    "players": 9}, {"objective": "cards"}),
    ("megaciv", "Library discount lets two advances fit",
     {"holds": ["Pottery", "Agriculture"], "treasury": 240, "commodities": {}, "players": 9},
     {"among": ["Library", "Democracy", "Mysticism"], "top": 3}),
    ("megaciv", "Anatomy brings a cheap sciences advance free",
     {"holds": ["Medicine"], "treasury": 300, "commodities": {}, "players": 9}, {"want": ["Anatomy"], "top": 2}),
    ("expansion", "Anatomy acquires every cheap science card", {"holds": [], "treasury": 300, "commodities": {}},
     {"want": ["Anatomy"]}),
    ("megaciv", "Mining: treasury counts double", {"holds": ["Mining"], "treasury": 37, "commodities": {"Salt": 1},
                                                   "players": 9}, {"top": 3}),
    ("megaciv", "Roadbuilding raises the hand limit", {"holds": ["Pottery"], "treasury": 0, "players": 9,
                                                        "commodities": {"Grain": 4, "Salt": 3, "Ochre": 3, "Hides": 2}},
     {"top": 2}),
    ("megaciv", "hand limit forces turning in more cards", {"holds": [], "treasury": 50, "players": 5,
                                                             "commodities": {"Ochre": 5, "Hides": 5}},
     {"objective": "cards"}),
    ("civ1981", "Law before Democracy", {"holds": ["Code of Laws"], "treasury": 400, "commodities": {}},
     {"top": 3}),
    ("civ1981", "card limit of eleven",
     {"holds": ["Pottery", "Cloth Making", "Metalworking", "Agriculture", "Mysticism", "Coinage", "Music",
                "Drama and Poetry", "Astronomy", "Medicine"], "treasury": 900, "commodities": {}}, {"top": 2}),
    ("megaciv", "Trade Routes turns cards into treasury",
     {"holds": ["Trade Routes"], "commodities": {"Gold": 2}, "treasury": 0, "players": 5},
     {"want": ["Mysticism"], "among": ["Mysticism"], "objective": "cards"}),
    ("megaciv", "Trade Empire completes a set",
     {"holds": ["Trade Empire"], "commodities": {"Salt": 2, "Oil": 1}, "treasury": 13, "players": 5},
     {"want": ["Mysticism"], "among": ["Mysticism"], "objective": "cards"}),
    ("megaciv", "Trade Empire not held: unaffordable want",
     {"holds": ["Pottery"], "commodities": {"Salt": 2, "Oil": 1}, "treasury": 13, "players": 5},
     {"want": ["Mysticism"], "among": ["Mysticism"], "objective": "cards"}),
    ("megaciv", "vp objective reads groups and constants", {"holds": [], "treasury": 200, "players": 9},
     {"objective": "vp * 100 + cost - 10 * crafts + tax_rate"}),
    ("megaciv", "objective expression with // and min", {"holds": ["Pottery"], "treasury": 150, "players": 9},
     {"objective": "min(cost, 100) // 10 + group_count * 3", "top": 3}),
    ("megaciv", "a fractional objective", {"holds": ["Pottery"], "treasury": 150, "players": 9},
     {"objective": "vp / 3 + cost / 7", "top": 3, "explain": True}),
    ("megaciv", "an objective with an unknown name", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp + nonsense"}),
    ("megaciv", "an objective that ends too soon", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp +"}),
    ("megaciv", "an objective with a stray character", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp @ 2"}),
    ("megaciv", "an objective asking a player fact", {"holds": [], "treasury": 100, "players": 9},
     {"objective": 'holds("Pottery")'}),
    ("megaciv", "an objective giving text", {"holds": [], "treasury": 100, "players": 9}, {"objective": '"x"'}),
    ("megaciv", "an objective giving true/false", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp > 1"}),
    ("megaciv", "an objective dividing by zero", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "cost / 0"}),
    ("megaciv", "a float objective", {"holds": ["Pottery"], "treasury": 150, "players": 9},
     {"objective": "sqrt(cost)", "top": 2, "explain": True}),
    ("megaciv", "an objective in capitals", {"holds": [], "treasury": 90, "players": 9}, {"objective": " Points "}),
    ("megaciv", "an objective of thirds and sevenths with two turns", {"holds": ["Pottery"], "treasury": 150, "players": 9},
     {"objective": "(cost - vp) / 3 - crafts / 7 + tax_rate // 2", "top": 2, "horizon": 2}),
    ("megaciv", "an objective flooring a fraction", {"holds": [], "treasury": 120, "players": 9},
     {"objective": "ceil(cost / 7) - floor(credit_total / 3) + abs(-group_count)", "explain": True}),
    ("megaciv", "an objective dividing by zero, floored", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "cost // (vp - vp)"}),
    ("megaciv", "an objective with a misspelt name", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp * 2 + costt"}),
    ("megaciv", "an objective with a word glued to `and`", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp andcost"}),
    ("megaciv", "an objective with a stray bracket", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "(vp + cost))"}),
    ("megaciv", "an objective with a trailing string", {"holds": [], "treasury": 100, "players": 9},
     {"objective": 'vp "victory"'}),
    ("megaciv", "an objective with a bad escape", {"holds": [], "treasury": 100, "players": 9},
     {"objective": 'vp + "\\q"'}),
    ("megaciv", "an objective nested too deep", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "not " * 101 + "vp"}),
    ("megaciv", "an objective reading the unknown", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "vp + unknown"}),
    ("megaciv", "an objective of a math function with a wrong count", {"holds": [], "treasury": 100, "players": 9},
     {"objective": "min(cost)"}),
    ("civ1980", "an objective reading victory points an edition does not give", {"holds": [], "treasury": 100},
     {"objective": "cost + vp"}),
    ("civ1980", "vp objective without victory points", {"holds": [], "treasury": 100}, {"objective": "vp"}),
    ("megaciv", "needs players for the hand limit", {"holds": [], "treasury": 100}, {}),
    ("megaciv", "an explicit hand limit", {"holds": [], "treasury": 100, "commodities": {"Ochre": 4}},
     {"handLimit": 2}),
    ("megaciv", "unaffordable want", {"holds": [], "treasury": 10, "players": 9}, {"want": ["Monarchy"]}),
    ("megaciv", "explain names the criterion that separates plans",
     {"holds": ["Pottery", "Music"], "treasury": 120, "commodities": {"Grain": 2}, "players": 9}, {"explain": True}),
    ("megaciv", "two turns: an estimate",
     {"holds": ["Pottery", "Agriculture"], "treasury": 150, "commodities": {"Salt": 2}, "players": 9},
     {"horizon": 2}),
    ("megaciv", "two turns stop on a work limit", {"holds": [], "treasury": 400, "players": 9,
                                                    "commodities": {"Grain": 4, "Salt": 3}}, {"horizon": 2}),
    ("expansion", "off-block sets with 12 players", {"holds": [], "treasury": 40, "players": 14,
                                                      "civilization": "Arabia", "commodities": {"Oil": 3}}, {}),
    ("expansion", "Wool and Grain blocks, 9.1's reading", {"holds": [], "treasury": 40, "players": 12,
                                                          "civilization": "Arabia",
                                                          "commodities": {"Wool": 3, "Grain": 3}}, {}),
    ("expansion", "Wool and Grain blocks, 14.33's reading", {"holds": [], "treasury": 40, "players": 12,
                                                            "civilization": "Arabia",
                                                            "commodities": {"Wool": 3, "Grain": 3}},
     {"option": {"wool_grain_by_14_33": True}}),
    ("expansion", "off-block without the block", {"holds": [], "treasury": 40, "players": 14,
                                                   "commodities": {"Oil": 3}}, {}),
    ("megaciv", "start credits in a 5-player game",
     {"players": 5, "holds": ["Pottery", "Masonry"], "treasury": 80, "commodities": {}}, {"want": ["Agriculture"]}),
    ("megaciv", "avoid and top", {"holds": ["Pottery", "Music"], "treasury": 200, "players": 9},
     {"avoid": ["Mysticism", "Cloth Making"], "top": 4}),
    ("civ1981", "a rule option switched on", {"holds": ["Pottery"], "treasury": 200},
     {"option": {"calamity_floor": True}, "top": 2}),
    ("civ1981", "what the others hold: Mysticism sold out with five players",
     {"holds": [], "treasury": 100, "players": 5, "others_hold": {"Mysticism": 2, "Pottery": 4, "Law": 1}}, {}),
    ("civ1980", "what the others hold without the player count",
     {"holds": [], "treasury": 100, "others_hold": {"mysticism": 2}}, {"top": 2}),
    ("civ1981", "what the others hold, with a wanted advance sold out",
     {"holds": [], "treasury": 100, "players": 4, "others_hold": {"Mysticism": 2}}, {"want": ["Mysticism"]}),
    ("megaciv", "the example state file", yaml.safe_load((ROOT / "examples" / "state.yaml").read_text()), {}),
]

_COST_QUESTIONS = [
    ("megaciv", "trade cards from stack 9", {"treasury": 40}, {"tradeCards": "9x2"}),
    ("megaciv", "trade cards nobody sells", {}, {"tradeCards": "3"}),
    ("expansion", "trade cards for treasury", {}, {"tradeCards": "9,3", "holds": "Rhetoric"}),
    ("megaciv", "already held", {}, {"holds": "Pottery", "buy": "Pottery"}),
    ("megaciv", "one advance named twice", {}, {"buy": "Pottery, pottery, Agriculture"}),
    ("civ1981", "Law bought alongside Democracy", {}, {"buy": "Law,Democracy"}),
    ("megaciv", "neither buy nor trade cards", {}, {}),
    ("civ1981", "a sold-out advance", {"players": 4, "others_hold": {"Mysticism": 2}}, {"buy": "Mysticism,Pottery"}),
    ("civ1981", "more cards held by others than the box has", {"others_hold": {"Pottery": 5}}, {"buy": "Pottery"}),
    ("megaciv", "an aka name in any case", {}, {"buy": "drama and poetry"}),
]


def _house_queries() -> list[tuple[str, str, dict]]:
    out = []
    for path in HOUSE:
        rb = civdsl.load(path)
        rng = random.Random(f"house:{Path(path).stem}")  # the same states wherever the checkout is
        for i in range(6):
            state, among = _random_instance(rng, rb.module, 8)
            out.append((path, f"{Path(path).stem}: random plan {i}", {"command": "plan", "state": state,
                        "options": {"among": among, "top": rng.randint(1, 3)}}))
            holds = state["holds"]
            unheld = [n for n in rb.module.ADVANCES if n not in holds]
            buy = rng.sample(unheld, min(3, len(unheld)))
            out.append((path, f"{Path(path).stem}: random cost {i}", {"command": "cost", "state": state,
                        "options": {"buy": buy}}))
    return out


# --- seeded random states, drawn as tests/test_planner.py's property tests draw theirs ------------

OBJECTIVES = [None, "points", "cards", "cost - 30 * group_count", "vp * 10 - cost // 10",
              "vp / 3 + cost / 7 - group_count"]  # the last one fractional: the search keeps it exact


def _random_instance(rng: random.Random, module, max_candidates: int):
    names = list(module.ADVANCES)
    holds = rng.sample(names, rng.randint(0, rng.choice([5, 15, len(names) - 1])))
    rest = [n for n in names if n not in holds]
    among = rng.sample(rest, rng.randint(1, min(max_candidates, len(rest))))
    commodities = list(module.COMMODITIES)
    cards = {}
    for _ in range(rng.randint(0, 3)):
        c = rng.choice(commodities)
        cards[c] = min(rng.randint(1, 4), module.COMMODITIES[c]["count"] or 4)
    state = {"holds": holds, "commodities": cards, "treasury": rng.randint(0, 40)}
    if "hand_limit_by_players" in module.TABLES:
        state["players"] = rng.randint(5, 18)
    if rng.random() < 0.5:
        state["credits"] = {rng.choice(list(module.GROUPS)): rng.choice([5, 10, 20])}
    limited = [n for n in rest if module.ADVANCES[n]["supply"] is not None]
    if limited and rng.random() < 0.5:  # what the other players hold: some advances sold out
        state["others_hold"] = {n: rng.randint(0, module.ADVANCES[n]["supply"]) for n in rng.sample(limited, min(4, len(limited)))}
        if rng.random() < 0.5:
            state["players"] = rng.randint(2, 7)
    return state, among


def _random_queries(rid: str, seeds: range) -> list[tuple[str, str, dict]]:
    module = civdsl.load(rid).module
    has_vp = all(a["vp"] is not None for a in module.ADVANCES.values())
    out = []
    for seed in seeds:
        rng = random.Random(f"{rid}:{seed}")
        state, among = _random_instance(rng, module, rng.choice([5, 8, 10]))
        spec = rng.choice([o for o in OBJECTIVES if has_vp or "vp" not in (o or "")])
        cands = [n for n in among if module.ADVANCES[n]["cost"] is not None
                 and all(r in state["holds"] for r in module.ADVANCES[n]["requires"])]
        want = rng.sample(cands, 1) if cands and rng.random() < 0.3 else []
        avoid = [a for a in rng.sample(among, 1) if a not in want] if rng.random() < 0.3 else []
        options = {"among": among, "objective": spec, "top": rng.randint(1, 4), "want": want, "avoid": avoid}
        kind = seed % 4
        if kind == 1:  # the whole deck: the search hands over to the dynamic programme in dense states
            options.pop("among")
            state["treasury"] = rng.choice([40, 120, 300, 1000])
        elif kind == 2:
            options["explain"] = True
        elif kind == 3 and len(among) <= 6:
            options["horizon"] = 2
        out.append((rid, f"{rid}: random plan seed {seed}", {"command": "plan", "state": state, "options": options}))
        unheld = [n for n in module.ADVANCES if n not in state["holds"]]
        buy = rng.sample(unheld, min(len(unheld), rng.randint(1, 4)))
        out.append((rid, f"{rid}: random cost seed {seed}", {"command": "cost", "state": state,
                                                             "options": {"buy": buy}}))
    return out


# the planner benchmark's stress states (options renamed as the command line's flags)
_FLAGS = {"objective_spec": "objective", "explain": "explain", "top": "top", "horizon": "horizon"}


def _stress_queries() -> list[tuple[str, str, dict]]:
    bench = bench_planner()
    out = []
    for name, rid, state, options in bench.STRESS:
        state = bench.stress_state(civdsl.load(rid).module, state)
        flags = {_FLAGS[k]: v for k, v in options.items()}
        out.append((rid, f"stress: {name}", {"command": "plan", "state": state, "options": flags}))
    # the payment table stopped at its work limit (what the hand can pay, choosing the payment)
    for name, rid, state, options in bench.BOUND_STRESS:
        if name.startswith(("296 cards", "90 cards")):
            state = bench.stress_state(civdsl.load(rid).module, state)
            flags = {_FLAGS[k]: v for k, v in options.items()}
            out.append((rid, f"stress: {name}", {"command": "plan", "state": state, "options": flags}))
    # the dynamic programme's other paths: several plans, and plans that must include an advance
    # with a same-turn ability
    dense = {"holds": ["Pottery"], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 600, "players": 9}
    out.append(("megaciv", "stress: dense, top 4", {"command": "plan", "state": dense, "options": {"top": 4}}))
    out.append(("megaciv", "stress: dense, Library wanted", {"command": "plan", "state": dense,
                                                            "options": {"want": ["Library"], "top": 2}}))
    out.append(("expansion", "stress: dense, points, top 3", {"command": "plan", "state": dict(dense, holds=[]),
                                                              "options": {"objective": "points", "top": 3}}))
    out.append(("civ1981", "stress: dense, card limit", {"command": "plan", "state": {"treasury": 1200},
                                                        "options": {"top": 3}}))
    # the strict single-use credit variant: searches that stop at their work limit (complete: false)
    for name, rid, state, options in bench.SINGLE_USE_STRESS:
        if options.get("stops"):
            state = bench.stress_state(civdsl.load(rid).module, state)
            flags = {_FLAGS[k]: v for k, v in options.items() if k != "stops"}
            out.append((rid, f"stress: {name}", {"command": "plan", "state": state, "options": flags}))
    # a credit placement stopped at its cap (complete: false, total_at_least), and a plan pricing it
    capped = bench.SINGLE_USE_CAPPED
    state = {"holds": capped["holds"], "players": 9, "treasury": 2000}
    out.append((bench.STRICT, "stress: a capped placement", {"command": "cost", "state": state,
                                                             "options": {"buy": capped["buy"]}}))
    wide = bench.SINGLE_USE_WIDE
    out.append((bench.STRICT, "stress: a placement stopped at its work limit",
                {"command": "cost", "state": {"holds": wide["holds"], "players": 9}, "options": {"buy": wide["buy"]}}))
    out.append((bench.STRICT, "stress: a plan pricing a capped placement",
                {"command": "plan", "state": state, "options": {"among": capped["buy"]}}))
    out.append((bench.STRICT, "stress: a two-turn plan pricing capped placements",
                {"command": "plan", "state": state, "options": {"among": capped["buy"], "horizon": 2}}))
    out.append((bench.STRICT, "stress: an explained plan pricing capped placements",
                {"command": "plan", "state": state, "options": {"among": capped["buy"], "explain": True}}))
    # the look-ahead and an explanation whose next turns and searches share the answer's work limit
    dense = {"holds": [], "commodities": {"Grain": 4, "Salt": 3}, "treasury": 1000, "players": 9}
    out.append((bench.STRICT, "stress: a strict two-turn plan stopped by the shared work",
                {"command": "plan", "state": dense, "options": {"objective": "points", "horizon": 2}}))
    out.append((bench.STRICT, "stress: a strict explained plan sharing the work",
                {"command": "plan", "state": dict(dense, treasury=300), "options": {"explain": True}}))
    # the benchmark's strict-credit random states 0 (the search stops at its placement work) and 2
    # (prices from capped placements)
    rng = random.Random(12)
    strict = [bench.random_state(civdsl.load(bench.STRICT).module, rng) for _ in range(3)]
    for i in (0, 2):
        out.append((bench.STRICT, f"stress: strict random state {i}",
                    {"command": "plan", "state": strict[i], "options": {}}))
    return out


def _questions() -> list[tuple[str, str, dict]]:
    out = _scenario_queries() + _stress_queries()
    for rid, name, state, options in _TEST_STATES:
        out.append((rid, name, {"command": "plan", "state": state, "options": options}))
    for rid, name, state, options in _COST_QUESTIONS:
        out.append((rid, name, {"command": "cost", "state": state, "options": options}))
    out += _house_queries()
    for rid in SHIPPED:
        out += _random_queries(rid, range(48))
    return out


QUESTIONS = _questions()
_ANSWERS: dict = {}


def _js_answer(rulebook: str, query: dict):
    """The JavaScript answers of every question of a rulebook, from one Node run."""
    if rulebook not in _ANSWERS:
        mine = [q for r, _, q in QUESTIONS if r == rulebook]
        _ANSWERS[rulebook] = dict(zip((id(q) for q in mine), js_answers(rulebook, mine)))
    return _ANSWERS[rulebook][id(query)]


@pytest.mark.parametrize("rulebook, name, query", QUESTIONS, ids=[n for _, n, _ in QUESTIONS])
def test_javascript_answers_cost_and_plan_as_the_command_line(rulebook, name, query):
    expected = cli_answer(rulebook, query)
    got = _js_answer(rulebook, query)
    assert "crash" not in got, f"{name}: the JavaScript engine crashed:\n{got['crash']}"
    difference = first_difference(expected, got)
    assert difference is None, f"{name}: {difference}"


def test_every_rulebook_and_house_rule_is_asked():
    asked = {r for r, _, _ in QUESTIONS}
    assert set(SHIPPED) <= asked and set(HOUSE) <= asked
    assert any(q["options"].get("horizon") == 2 for _, _, q in QUESTIONS)
    assert any(q["options"].get("explain") for _, _, q in QUESTIONS)


def test_every_ability_the_python_engines_read_is_read_by_the_javascript_runtime():
    """A guard: an ability kind the engines or the planner start to read (vocabulary's
    ABILITY_KINDS named in runtime.py, pricing.py, handvalue.py, standing.py or the planner's
    modules) must be read by the JavaScript runtime too, or the two engines would silently answer
    differently."""
    import re

    from civdsl import vocabulary

    python = "".join((ROOT / "civdsl" / f).read_text(encoding="utf-8")
                     for f in ("runtime.py", "pricing.py", "handvalue.py", "standing.py", "plan/objectives.py",
                               "plan/payment.py", "plan/purchase.py", "plan/answer.py", "plan/search.py"))
    from civdsl.companion import py2es

    # the hand-written runtime and the engines translated from Python, as the page joins them
    js = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "civdsl" / "companion" / "runtime").glob("*.js"))
    js += py2es.engine_source()
    read = {k for k in vocabulary.ABILITY_KINDS if re.search(rf"[\"']{k}[\"']", python)}
    assert {"discount", "free_advance", "acquire_all", "treasury_value", "card_treasury"} <= read
    assert not [k for k in sorted(read) if not re.search(rf"[\"']{k}[\"']", js)]


def test_the_price_engine_is_written_once_in_python():
    """The page's prices are pricing.py translated: every text a price's rows and problems are
    made of is in pricing.py and in the generated engine, in no hand-written runtime file (a
    twin written again would have to repeat them)."""
    from civdsl.companion import py2es

    texts = [" (one-time discount)", " (free advance)", " (acquired automatically)", " (single use)",
             "the printed cost is unknown in this rulebook", "named twice: one copy of each advance",
             "(bought in the same turn does not count)", "may be bought a turn", "treasury needed, "]
    python = (ROOT / "civdsl" / "pricing.py").read_text(encoding="utf-8")
    generated = py2es.engine_source()
    runtime = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "civdsl" / "companion" / "runtime").glob("*.js")}
    assert all(t in python and t in generated for t in texts)
    assert not {name: [t for t in texts if t in js] for name, js in runtime.items() if any(t in js for t in texts)}


@pytest.mark.parametrize("attribute", ["bb_cap", "single_use_cap", "single_use_work", "explain_cap",
                                       "explain_programmes", "horizon_work"])
def test_the_work_limits_are_declared_once_and_the_page_reads_that_declaration(attribute):
    """Each work limit of the search is PurchaseProblem's one class constant: the page's engine
    is its translation (the same value on the class, which an instance reads as Python's does),
    and no hand-written runtime file holds a number of its own for it."""
    import re

    from civdsl.companion import py2es
    from civdsl.plan import purchase

    value = getattr(purchase.PurchaseProblem, attribute)
    generated = py2es.engine_source()
    assert f"pu_PurchaseProblem.prototype.{attribute} = {value};" in generated
    for path in (ROOT / "civdsl" / "companion" / "runtime").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(rf"\b{attribute}\b|Cap\s*=\s*\d|Work\s*=\s*\d", text), path.name
