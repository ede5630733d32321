"""Player state from `--state FILE`, `--holds` and `--set`: every mistake is a one-line
`error: ...` naming the key and the closest valid name, exit 1, never a traceback.

The corpus of hostile state files is in tests/hostile/state_*.yaml (run by test_hostile.py);
this file covers the command-line options, unreadable files and the checker's rules.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

from civdsl import state as st
from civdsl import statecheck as sc
from civdsl.state import StateError, parse_yaml
from civdsl.statecheck import check_names, check_state
from civdsl.vocabulary import FACTS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("states")
    (d / "good.yaml").write_text("cities: 4\nholds: [Pottery]\ncommodities: {Grain: 2}\n")
    (d / "big.yaml").write_text("# padding\n" * 120_000)
    os.mkfifo(d / "fifo.yaml")
    (d / "folder.yaml").mkdir()
    return d


def test_command_line_mistakes(files):
    cases = [
        # (arguments, texts the error must contain)
        (["resolve", "civ1981", "Famine", "--holds", "Potery,Mining"],
         ["--holds: unknown advance `Potery` (did you mean `Pottery`?)", "--holds: unknown advance `Mining`"]),
        (["resolve", "civ1981", "Famine", "--set", "citys=3"], ["unknown key `citys` (did you mean `cities`?)"]),
        (["resolve", "civ1981", "Famine", "--set", "cities=-1"], ["`cities` cannot be below 0"]),
        (["resolve", "civ1981", "Famine", "--set", "cities=many"], ["`cities` must be a whole number, not 'many'"]),
        (["resolve", "civ1981", "Famine", "--set", "cities=" + "9" * 5000], ["`cities` must be a whole number"]),
        (["resolve", "civ1981", "Famine", "--set", "cities"], ["write key=value"]),
        (["resolve", "civ1981", "Famine", "--set", "sole_leader=3"], ["`sole_leader` must be true or false"]),
        (["resolve", "civ1981", "Famin"], ["unknown calamity `Famin`", "did you mean `Famine`"]),
        (["resolve", "civ1981", "Famine", "--state", str(files / "missing.yaml")], ["cannot read the state file"]),
        (["resolve", "civ1981", "Famine", "--state", str(files / "big.yaml")], ["larger than 1,000,000 bytes"]),
        (["resolve", "civ1981", "Famine", "--state", str(files / "fifo.yaml")], ["not a regular file"]),
        (["resolve", "civ1981", "Famine", "--state", "/dev/zero"], ["not a regular file"]),
        (["cost", "civ1981", "--buy", "Potery"], ["--buy: unknown advance `Potery` (did you mean `Pottery`?)"]),
        (["score", "civ1981", "--set", "ast_positon=3"], ["unknown key `ast_positon` (did you mean `ast_position`?)"]),
        (["epoch", "civ1981", "--holds", "Pottery", "--set", "cities=x"], ["`cities` must be a whole number"]),
    ]
    procs = [run_cli(*args, timeout=120, cwd=ROOT) for args, _ in cases]
    for (args, texts), proc in zip(cases, procs):
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert proc.stderr.startswith("error: "), (args, proc.stderr)
        for text in texts:
            assert text in proc.stderr, (args, text, proc.stderr)


def test_a_good_state_file_works(files):
    proc = run_cli("resolve", "civ1981", "Famine", "--state", str(files / "good.yaml"), timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "Pottery" in proc.stdout


def test_a_directory_is_not_a_state_file(files):
    proc = run_cli("resolve", "civ1981", "Famine", "--state", str(files / "folder.yaml"), timeout=120, cwd=ROOT)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr  # click may refuse it first (usage: 2)


# --- the checker, in process ------------------------------------------------------------------------

ADVANCES = {"Pottery": {}, "Agriculture": {}, "Law": {}}
COMMODITIES = {"Grain": {}, "Salt": {}}
GROUPS = {"crafts": {}, "arts": {}}


def problems(data: dict) -> str:
    with pytest.raises(StateError) as info:
        check_state(data, FACTS, ADVANCES, COMMODITIES, GROUPS, "state.yaml")
    return str(info.value)


@pytest.mark.parametrize("data,text", [
    ({"citys": 3}, "state.yaml: unknown key `citys` (did you mean `cities`?)"),
    ({"Cities": 3}, "unknown key `Cities` (did you mean `cities`?)"),
    ({3: 3}, "unknown key `3`"),
    ({None: 3}, "unknown key `empty`"),
    ({("a", "b"): 3}, "unknown key `['a', 'b']`"),
    ({"cities": "3"}, "`cities` must be a whole number, not '3'"),
    ({"cities": 3.0}, "`cities` must be a whole number, not 3.0"),
    ({"cities": True}, "`cities` must be a whole number, not true"),
    ({"cities": None}, "`cities` must be a whole number, not empty"),
    ({"cities": [1]}, "`cities` must be a whole number, not [1]"),
    ({"cities": -1}, "`cities` cannot be below 0 (got -1)"),
    ({"players": 0}, "`players` cannot be below 1 (got 0)"),
    ({"cities": 10**12}, "`cities` cannot be above 999,999,999"),
    ({"cities": -10**5000}, "`cities` cannot be below 0"),
    ({"sole_leader": "yes"}, "`sole_leader` must be true or false, not 'yes'"),
    ({"traded_by": 3}, "`traded_by` must be text, not 3"),
    ({"holds": [1, 2]}, "`holds` must be a list of names"),
    ({"holds": {"Pottery": 1}}, "`holds` must be a list of names"),
    ({"holds": ["Potery"]}, "`holds` names unknown advance `Potery` (did you mean `Pottery`?)"),
    ({"holds": "Pottery, law"}, "unknown advance `law` (did you mean `Law`?)"),
    ({"commodities": ["Grain"]}, "`commodities` must be a mapping of name: number"),
    ({"commodities": {"Grian": 1}}, "unknown commodity `Grian` (did you mean `Grain`?)"),
    ({"commodities": {"Grain": -1}}, "`commodities.Grain` must be a whole number from 0 to 999,999,999"),
    ({"commodities": {"Grain": "2"}}, "`commodities.Grain` must be a whole number"),
    ({"commodities": {"Grain": 10**10}}, "`commodities.Grain` must be a whole number from 0"),
    ({"credits": {"craft": 5}}, "unknown group `craft` (did you mean `crafts`?)"),
    ({"others_hold": {"Potery": 1}}, "`others_hold` names unknown advance `Potery` (did you mean `Pottery`?)"),
    ({"others_hold": {"Pottery": -1}}, "`others_hold.Pottery` must be a whole number from 0"),
    ({"others_hold": ["Pottery"]}, "`others_hold` must be a mapping of name: number"),
])
def test_each_problem_names_the_key_and_the_closest_valid_name(data, text):
    assert text in problems(data)


def test_every_problem_is_reported_at_once():
    message = problems({"citys": 1, "cities": -1, "holds": ["Potery"]})
    assert len(message.splitlines()) == 3


def test_many_problems_are_capped_and_stay_fast():
    names = [f"Bogus{i}" for i in range(50_000)]
    message = problems({"holds": names})
    lines = message.splitlines()
    assert len(lines) == sc.MAX_PROBLEMS + 1 and lines[-1] == f"... and {50_000 - sc.MAX_PROBLEMS:,} more"
    with pytest.raises(StateError) as info:
        check_names(names, ADVANCES, "advance", "--holds")
    assert len(str(info.value).splitlines()) == sc.MAX_PROBLEMS + 1


def test_huge_values_are_cut_short_in_messages():
    message = problems({"holds": ["x" * 1_000_000], "traded_by": ["y"] * 100_000})
    assert len(message) < 1000


def test_a_valid_state_is_returned_clean():
    data = {"cities": 3, "holds": "Pottery, Law", "commodities": {"Grain": 2}, "credits": {"arts": 5},
            "sole_leader": False, "traded_by": ""}
    clean = check_state(data, FACTS, ADVANCES, COMMODITIES, GROUPS)
    assert clean["holds"] == ["Pottery", "Law"] and clean["cities"] == 3


@pytest.mark.parametrize("text,message", [
    ("cities: [1,\n", ":2:1: not valid YAML"),
    ("a: b: c\n", ":1:5: not valid YAML"),
    ("- 1\n", "a state file is a mapping of facts (key: value), not a list"),
    ("just text\n", "not a str"),
    ("? [a, b]\n: 1\n", "not valid YAML"),
    ("x: !!python/object/apply:os.system [echo PWNED]\n", "not valid YAML"),
    ("x: &a [*a]\n", "an alias refers to a value that contains it"),  # no pass can walk a cycle
    ("x: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ("cities: " + "9" * 5000 + "\n", "not a usable value"),
], ids=["unclosed", "bad-mapping", "list", "text", "unhashable-key", "python-tag", "recursive-alias",
        "deep-nesting", "huge-integer"])
def test_yaml_problems(tmp_path, text, message):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    if message is None:
        assert isinstance(parse_yaml(path), dict)
        return
    with pytest.raises(StateError) as info:
        parse_yaml(path)
    assert message in str(info.value)
    assert str(info.value).startswith(str(path))


def test_empty_state_file_is_no_facts(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("# nothing yet\n")
    assert parse_yaml(path) == {}


@pytest.mark.parametrize("holds", [{}, 0, False, {"Pottery": 1}])
def test_holds_of_another_shape_is_refused_even_when_empty(holds):
    """`holds: {}` (or 0) is no list of advances: refused with the key named, as `holds: 5` is,
    never read as holding nothing; an empty list (or none) does hold nothing."""
    import civdsl

    rb = civdsl.load("megaciv")
    with pytest.raises(StateError) as info:
        rb.state((), {"holds": holds, "cities": 3})
    assert str(info.value) == "state: `holds` must be a list of names"
    assert rb.state((), {"holds": [], "cities": 3}).held == ()
    assert rb.state((), {"holds": None}).held == ()


def test_an_advance_given_twice_is_held_once(tmp_path):
    """Holding is a set: `--holds Pottery,pottery`, or a state listing an advance twice, counts it
    once (a score once counted "Civilization advances: 2" for one Pottery)."""
    state = tmp_path / "state.yaml"
    state.write_text("holds: [Pottery, Pottery, Music]\n", encoding="utf-8")
    for args in (["--holds", "Pottery,pottery"], ["--state", state, "--holds", "Music"]):
        proc = run_cli("score", "megaciv", *args, "--json")
        data = json.loads(proc.stdout)
        held = {"--holds": 1, "--state": 2}[args[0]]
        assert next(p for p in data["points"] if p["label"] == "Civilization advances")["points"] == held
