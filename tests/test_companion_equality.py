"""The generated JavaScript engine answers resolve, epoch and score exactly as the Python engine does.

Every scenario of tests/scenarios/, every calamity of every house rule for both roles on example
states, and seeded random states (a property test) are answered by both engines (Node runs the
JavaScript once per rulebook with every question); any difference fails, naming the question and
the first key path where the answers differ.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

import civdsl
from companion_harness import cli_answer, first_difference, js_answers, node_available
from conftest import run_cli

pytestmark = pytest.mark.skipif(not node_available(), reason="node is not installed (apt-get install nodejs)")

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "tests" / "scenarios"
HOUSE_DIR = ROOT / "rulebooks" / "house"
FACTS_SEEN = ("resolve", "epoch", "score")


def _scenario_queries(sc: dict) -> dict | None:
    """A scenario as a query to both engines (the question only; its expectation is test_scenarios')."""
    if "resolve" in sc:
        options = {"holds": sc.get("holds") or []}
        if sc.get("assigned") is not None:
            options["assigned"] = sc["assigned"]
        return {"command": "resolve", "calamity": sc["resolve"], "role": sc.get("role", "primary"),
                "state": sc.get("state") or {}, "options": options}
    for command in ("epoch", "score"):
        if command in sc:
            q = sc[command]
            options = {"holds": q.get("holds") or []}
            if command == "epoch":
                options["ast"] = q["ast"]
            return {"command": command, "state": q.get("state") or {}, "options": options}
    return None


def _compare(rulebook, named: list[tuple[str, dict]]) -> None:
    """Both engines answer every query; the first difference fails the test, naming its question."""
    answers = js_answers(rulebook, [q for _, q in named])
    problems = []
    for (name, query), got in zip(named, answers):
        if "crash" in got:
            problems.append(f"{name}: the JavaScript engine failed: {got['crash']}")
            continue
        diff = first_difference(cli_answer(rulebook, query), got)
        if diff:
            problems.append(f"{name}: {diff}")
    assert not problems, f"{len(problems)} of {len(named)} answers differ; the first:\n" + "\n".join(problems[:5])


def _scenario_files():
    return sorted(SCENARIO_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", _scenario_files(), ids=lambda p: p.stem)
def test_every_scenario_is_answered_alike(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    named = []
    for i, sc in enumerate(data["scenarios"]):
        query = _scenario_queries(sc)
        if query is not None:
            named.append((f"{path.name} scenario {i} ({sc['name']})", query))
    assert named, f"{path.name} has no resolve, epoch or score scenario"
    _compare(data["rulebook"], named)


# --- example and random states, built from the rulebook's own names --------------------------------

def _finish(module) -> int:
    """The last space every row allows (a position beyond any finish is refused by both engines)."""
    ends = [t["spaces"] for t in module.AST.values() if t["spaces"]]
    ends += [r["spaces"] for c in module.CIVILIZATIONS.values() for r in c["rows"].values() if r["spaces"]]
    return min(ends) if ends else 20


def random_state(module, rng: random.Random, dense: float = 0.7) -> dict:
    """A valid state of this rulebook: each fact given with probability `dense` (absent facts are
    read as unknown, so the answers' missing facts and undecided rules are compared too)."""
    from civdsl import vocabulary as vocab

    state: dict = {}
    advances = list(module.ADVANCES)
    state["holds"] = rng.sample(advances, rng.randint(0, len(advances))) if advances else []
    civs = list(module.CIVILIZATIONS)
    blocks = sorted({c["block"] for c in module.CIVILIZATIONS.values() if c["block"]})
    for fact in vocab.FACTS.values():
        if fact.name == "holds" or rng.random() > dense:
            continue
        if fact.type == "int":
            top = _finish(module) if fact.name == "ast_position" else rng.choice((3, 12, 40))
            state[fact.name] = rng.randint(max(fact.minimum or 0, 0), top)
        elif fact.type == "bool":
            state[fact.name] = rng.random() < 0.5
        elif fact.name == "civilization" and civs:
            state[fact.name] = rng.choice(civs)
        elif fact.name == "block" and blocks:
            state[fact.name] = rng.choice(blocks)
        elif fact.name == "ast_track" and module.AST:
            state[fact.name] = rng.choice(list(module.AST))
        elif fact.name == "ast_epoch" and module.AST:
            state[fact.name] = rng.choice([name for name, _ in next(iter(module.AST.values()))["epochs"]])
        elif fact.name == "scenario" and module.SCENARIOS:
            state[fact.name] = rng.choice(list(module.SCENARIOS))
        elif fact.name == "traded_by":
            state[fact.name] = rng.choice(("", "anna"))
        elif fact.name == "commodities" and module.COMMODITIES:
            names = rng.sample(list(module.COMMODITIES), min(4, len(module.COMMODITIES)))
            state[fact.name] = {n: rng.randint(0, max(1, min(module.COMMODITIES[n]["count"] or 6, 6))) for n in names}
        elif fact.name == "credits" and module.GROUPS:
            state[fact.name] = {g: rng.randint(0, 20) for g in rng.sample(list(module.GROUPS), 1)}
    if state.get("civilization") and state.get("ast_position") is not None:
        rows = module.CIVILIZATIONS[state["civilization"]]["rows"]
        ends = [r["spaces"] for r in rows.values() if r["spaces"]]
        if ends:
            state["ast_position"] = min(state["ast_position"], min(ends))
    return state


def _questions(module, state: dict, name: str, rng: random.Random | None = None) -> list[tuple[str, dict]]:
    """Every calamity for both roles, every track's epochs, and the score, for one state; with
    `rng`, rule switches set at random (`--option`) and amounts assigned to secondary victims
    (`--assigned`, sometimes more than the rule allows: both engines refuse it alike)."""
    out = []
    options: dict = {}
    if rng is not None and module.OPTIONS:
        options["option"] = {o: rng.random() < 0.5 for o in module.OPTIONS}
    for calamity in module.CALAMITIES:
        for role in ("primary", "secondary"):
            chosen = dict(options)
            if rng is not None and role == "secondary" and rng.random() < 0.3:
                chosen["assigned"] = rng.randint(0, 8)
            out.append((f"{name}: resolve {calamity!r} as {role} with {chosen} on {state!r}",
                        {"command": "resolve", "calamity": calamity, "role": role, "state": state,
                         "options": chosen}))
    out.append((f"{name}: epoch with {options} on {state!r}",
                {"command": "epoch", "state": state, "options": dict(options)}))
    out.append((f"{name}: score with {options} on {state!r}",
                {"command": "score", "state": state, "options": dict(options)}))
    return out


def _house_rules():
    return sorted(HOUSE_DIR.glob("*.civ"))


@pytest.mark.parametrize("path", _house_rules(), ids=lambda p: p.stem)
def test_every_house_rule_answers_alike(path):
    """Each house rule: every calamity x role, epochs and score, on an empty state, a full state
    and a few seeded ones, as given and with rule switches and assigned amounts chosen at random."""
    module = civdsl.load(path).module
    named = []
    states = [("empty state", {}), ("every advance", {"holds": list(module.ADVANCES)})]
    rng = random.Random(f"house:{path.stem}")
    states += [(f"example state {i}", random_state(module, rng, dense=1.0)) for i in range(3)]
    for label, state in states:
        named += _questions(module, state, f"{path.name} {label}")
        named += _questions(module, state, f"{path.name} {label} (switches, assigned)", rng)
    _compare(path, named)


def _shipped():
    from civdsl.resources import shipped_rulebooks

    return list(shipped_rulebooks())


@pytest.mark.parametrize("edition", _shipped())
def test_random_states_are_answered_alike(edition):
    """A property test: seeded random states (some facts absent) of every shipped rulebook."""
    module = civdsl.load(edition).module
    rng = random.Random(f"random:{edition}")
    named = []
    for i in range(12):
        state = random_state(module, rng, dense=rng.choice((0.3, 0.7, 1.0)))
        named += _questions(module, state, f"{edition} random state {i}", rng)
    _compare(edition, named)


NUMBERS = ROOT / "tests" / "fixtures" / "companion_numbers.civ"


def test_numbers_unknowns_and_procedures_are_answered_alike():
    """An invented edition whose rules make every kind of number (exact fractions printed as
    "7/2", floats from sqrt, floor division, 10^16), read unknown facts in every operator, switch
    a rule, and run select-then-unselect, least over, discard by value and reduce until supported."""
    module = civdsl.load(NUMBERS).module
    rng = random.Random("numbers")
    named = []
    for i in range(60):
        state = random_state(module, rng, dense=rng.choice((0.3, 0.7, 0.9, 1.0)))
        if rng.random() < 0.5:
            state["reduced_city_tokens"] = rng.randint(0, 3)
        named += _questions(module, state, f"numbers random state {i}", rng)
    _compare(NUMBERS, named)


# --- questions the command line refuses: the same error, word for word ------------------------------

def _misspelt(name: str) -> str:
    """A name with one letter dropped (close enough for a `did you mean`)."""
    return name[:-2] + name[-1:] if len(name) > 3 else name + "x"


def _refused(module) -> list[tuple[str, dict]]:
    advances, calamities = list(module.ADVANCES), list(module.CALAMITIES)
    civs, tracks = list(module.CIVILIZATIONS), list(module.AST)
    commodities, groups = list(module.COMMODITIES), list(module.GROUPS)
    calamity = calamities[0] if calamities else "Anything"
    states = [
        {"citys": 3}, {"tokns": 2, "zzzz": 1}, {"cities": "five"}, {"cities": -1}, {"cities": 10**10},
        {"sole_leader": 1}, {"civilization": 3}, {"holds": "a, b"}, {"holds": [1, 2]}, {"credits": [1]},
        {"commodities": {"Nothing at all": 2}}, {"traded_by": ["x"]}, {"options": {"no_such_switch": True}},
        {"options": []}, {"ast_track": "no track"}, {"scenario": "The Long Game"}, {"block": "middle"},
        {"civilization": "Atlantis"}, {"start_credits_used": groups[:1]}, {"ast_position": 999},
        {"holds": [f"Unknown {i}" for i in range(25)]}, {"holds": {}}, {"holds": 0}, {"holds": ""},
    ]
    if advances:
        states += [{"holds": [_misspelt(advances[0])]}, {"holds": [advances[-1].upper()]}]
    if commodities:
        states += [{"commodities": {_misspelt(commodities[0]): 1}}, {"commodities": {commodities[0]: 10**6}},
                   {"commodities": {commodities[0].lower(): 1, commodities[0]: 1}}]
    if groups:
        states += [{"credits": {_misspelt(groups[0]): 1}}, {"credits": {groups[0]: "x"}}]
    if civs:
        states += [{"civilization": _misspelt(civs[0])}, {"civilization": civs[0], "ast_position": 999}]
    if tracks:
        states.append({"ast_track": _misspelt(tracks[0])})
    if module.OPTIONS:
        first = next(iter(module.OPTIONS))
        states += [{"options": {_misspelt(first): True}}, {"options": {first: "maybe"}}, {"options": {first: "on"}},
                   {"options": {first: "y" * 300}}, {"options": {"z" * 300: "OFF"}}]
    out = []
    for i, state in enumerate(states):
        for command in ("resolve", "epoch", "score"):
            q = {"command": command, "state": state, "options": {}}
            if command == "resolve":
                q.update(calamity=calamity, role="primary")
            out.append((f"refused state {i} {state!r}: {command}", q))
    names = [_misspelt(calamity), calamity.lower(), "Nothing like it"] + ([_misspelt(calamities[-1])] if calamities else [])
    for name in names:
        out.append((f"calamity {name!r}", {"command": "resolve", "calamity": name, "role": "primary", "state": {}}))
    out.append(("role tertiary", {"command": "resolve", "calamity": calamity, "role": "tertiary", "state": {}}))
    out.append(("assigned to a primary victim",
                {"command": "resolve", "calamity": calamity, "role": "primary", "state": {}, "options": {"assigned": 1}}))
    out.append(("assigned -1", {"command": "resolve", "calamity": calamity, "role": "secondary", "state": {},
                                "options": {"assigned": -1}}))
    for holds in (["Nothing"], [_misspelt(a) for a in advances[:3]], [a.lower() for a in advances[:2]]):
        out.append((f"--holds {holds}", {"command": "score", "state": {}, "options": {"holds": holds}}))
    for track in ["no such track", ""] + [_misspelt(t) for t in tracks[:1]] + tracks[:1]:
        out.append((f"--ast {track!r}", {"command": "epoch", "state": {}, "options": {"ast": track}}))
    return out


@pytest.mark.parametrize("edition", _shipped())
def test_refused_questions_are_refused_alike(edition):
    """Unknown and misspelt names (with the same `did you mean`), wrong types, impossible positions
    and hands, bad options and roles: both engines refuse each with the same message."""
    module = civdsl.load(edition).module
    _compare(edition, _refused(module))


# --- the harness's Python side is the command line's answer --------------------------------------

def _cli_args(query: dict) -> list[str]:
    options = query.get("options") or {}
    args = [query["command"], "megaciv"]
    if query["command"] == "resolve":
        args += [query["calamity"], "--role", query.get("role") or "primary"]
        if options.get("assigned") is not None:
            args += ["--assigned", str(options["assigned"])]
    if options.get("ast") is not None:
        args += [f"--ast={options['ast']}"] if options["ast"] else ["--ast"]
    if options.get("holds"):
        args += ["--holds", ",".join(options["holds"])]
    for name, on in (options.get("option") or {}).items():
        args += ["--option", f"{name}={'on' if on else 'off'}"]
    return args + ["--json"]


def test_the_python_answers_are_what_the_command_line_prints(tmp_path):
    """cli_answer (in-process) gives exactly what `civdsl ... --state FILE --json` prints."""
    import json

    state = {"holds": ["Pottery", "Agriculture"], "cities": 4, "tokens": 12, "players": 6,
             "commodities": {"Grain": 2}, "civilization": "Egypt", "ast_position": 3}
    queries = [
        {"command": "resolve", "calamity": "Famine", "role": "secondary", "state": state,
         "options": {"assigned": 2, "holds": ["Calendar"]}},
        {"command": "resolve", "calamity": "Flood", "role": "primary", "state": {"holds": ["Pottery"]}},
        {"command": "epoch", "state": state, "options": {"ast": "basic"}},
        {"command": "score", "state": state},
        {"command": "score", "state": {"citys": 2}},
        {"command": "epoch", "state": {}, "options": {"ast": ""}},
    ]
    path = tmp_path / "state.yaml"
    for query in queries:
        path.write_text(json.dumps(query["state"]), encoding="utf-8")
        done = run_cli(*_cli_args(query), "--state", str(path), cwd=ROOT)
        printed = json.loads(done.stdout)
        assert first_difference(printed, cli_answer("megaciv", query)) is None, _cli_args(query)


def test_a_number_beyond_2_53_is_an_error_not_a_rounded_number():
    """Python's ints are unbounded; the JavaScript engine refuses a whole number it cannot hold
    exactly (an answer that says so, never a silently rounded one)."""
    query = {"command": "score", "state": {"tokens": 999_999_999}}
    assert cli_answer(NUMBERS, query)["tiebreaks"][1]["value"] == 999_999_999 ** 3
    [got] = js_answers(NUMBERS, [query])
    assert got["error"]["kind"] == "rulebook" and "beyond 2^53" in got["error"]["message"]


def test_a_name_is_found_whatever_its_case_as_python_folds_it(tmp_path):
    """An `aka` with a sharp s is found written in capitals (Python's casefold gives "ss"; a plain
    lower-casing in the page did not), and a misspelt one is refused alike."""
    path = tmp_path / "fold.civ"
    path.write_text('language 1\nedition fold "Folded names (test)" extends megaciv\nsource "test"\n\n'
                    'change advance "Pottery" { aka "Töpferstraße" }\n', encoding="utf-8")
    queries = [{"command": "score", "state": {"holds": ["TÖPFERSTRASSE"]}, "options": {}},
               {"command": "score", "state": {}, "options": {"holds": ["töpferstrasse", "Agriculture"]}},
               {"command": "resolve", "calamity": "Famine", "role": "primary", "state": {},
                "options": {"holds": ["Töpferstrase"]}}]
    answers = js_answers(path, queries)
    for query, got in zip(queries, answers):
        expected = cli_answer(path, query)
        assert first_difference(expected, got) is None, (query, first_difference(expected, got))
    assert "error" not in answers[0] and "error" not in answers[1] and "error" in answers[2]
