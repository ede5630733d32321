"""Every number a rulebook writes has a declared range (civdsl/bounds.py, or an item field's row in
civdsl/fields.py), checked at the number,
and no pass grows with a number's value. Resource limits are tested in a subprocess under
`resource` caps (address space and CPU seconds), never with timers.
"""

from __future__ import annotations

import random
import re
import resource
from pathlib import Path

import pytest
from conftest import run_process

import civdsl
from civdsl.rounds import runtime
from civdsl.fields import ranges
from civdsl.frontend import check_file
from civdsl.rounds.state import state_from_data

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ranges()  # bounds.FIELDS and the ranges item fields declare in their rows

HEAD = 'language 1\nedition b "Bounds"\ncredit policy best_group\ngroup crafts "Crafts"\n'
# One line per bounded field, `{n}` where the number goes; the first `{n}` is the one checked.
SNIPPETS = {
    "cost": 'advance "A" {{ cost {n} groups crafts }}',
    "credit": 'advance "A" {{ cost 10 groups crafts credits crafts {n} }}',
    "vp": 'advance "A" {{ cost 10 groups crafts vp {n} }}',
    "advance supply": 'advance "A" {{ cost 10 groups crafts supply {n} }}',
    "stack": 'calamity "C" {{ stack {n} class minor primary {{ damage(1) }} }}',
    "priority": 'calamity "C" {{ stack 1 class minor primary {{ damage(1) }} when cities > 1 priority {n} {{ add damage 1 }} }}',
    "commodity value": 'commodity "S" {{ value {n} count 1 stack 1 }}',
    "commodity count": 'commodity "S" {{ value 1 count {n} stack 1 }}',
    "commodity printed": 'commodity "S" {{ value 1 count 1 stack 1 printed {n} }}',
    "deck size": "deck stack 1 size {n}",
    "table band": "table t {{ {n}..: 1 }}",
    "stat bound": 'stat s "S" initial 0 bounds 0..{n}',
    "track position": 'track t "T" {{ bounds 0..{n} }}',
    "die sides": 'event_table e "E" die {n} {{ 1..1: "R" {{ }} }}',
    "die face": 'event_table e "E" die 6 {{ 1..{n}: "R" {{ }} }}',
    "card value": 'deck cards "Cards" {{ suit "Hearts" red rank "Ace" value {n} }}',
    "card rank": 'deck cards "Cards" {{ suit "Hearts" red ranks 2..{n} }}',
    "hand limit": 'deck cards "Cards" {{ suit "Hearts" red rank "Ace" value 1 hand limit {n} }}',
    "ast spaces": 'ast basic "Basic" {{ spaces {n} epoch "Stone" {{ }} }}',
    "ast space": 'civilization "Minoa" {{ ast basic at {n} }}',
    "ast rank": 'civilization "Minoa" {{ rank {n} }}',
    "players": 'setups "S" for {n}',
}
# held only at run time (how many dice a pool rolls is known only while playing)
RUNTIME_ONLY = {"dice"}


def _codes_at(text: str, tmp_path: Path, line: int, column: int) -> set[str]:
    path = tmp_path / "b.civ"
    path.write_text(text, encoding="utf-8")
    diags = check_file(path).diagnostics
    return {d.code for d in diags.errors if d.span and (d.span.line, d.span.column) == (line, column)}


def test_every_bound_has_a_case():
    assert set(SNIPPETS) | RUNTIME_ONLY == set(FIELDS)


@pytest.mark.parametrize("field", sorted(SNIPPETS))
def test_a_number_beyond_its_bound_is_reported_at_the_number(field, tmp_path):
    bound = FIELDS[field]
    line = SNIPPETS[field]
    column = line.format(n="\0").index("\0") + 1
    for value in (bound.high, bound.low):
        if value >= 0:
            assert bound.code not in _codes_at(HEAD + line.format(n=value) + "\n", tmp_path, 5, column), value
    codes = _codes_at(HEAD + line.format(n=bound.high + 1) + "\n", tmp_path, 5, column)
    assert bound.code in codes, (field, codes)
    if bound.low > 0:  # written without a sign: below the bound only when the bound is above 0
        assert bound.code in _codes_at(HEAD + line.format(n=bound.low - 1) + "\n", tmp_path, 5, column)


def test_a_negative_number_beyond_its_bound_is_reported_at_its_sign(tmp_path):
    text = HEAD + 'track t "T" {\n  bounds -20000..5\n}\n'
    assert "CIV112" in _codes_at(text, tmp_path, 6, 10)


def test_a_pool_rolling_more_dice_than_the_bound_is_a_rulebook_error():
    m = civdsl.load("cardgame").module
    # the government rolls 2 + committed // 20 dice
    st = state_from_data(m, {"stats": {"rebellion_active": True, "rebellion_stage": 3, "rebellion": 4,
                                       "committed": 40_000}}, random.Random(0))
    with pytest.raises(runtime.RulebookRuntimeError, match="2,002; it must be 0 to 1,000"):
        runtime.run_phase(m, "rebellion", st, random.Random(0))


def _capped(memory_mb: int, cpu_seconds: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    return limit


def run_capped(*args, cwd=ROOT, memory_mb=1024, cpu_seconds=60):
    """The CLI in a subprocess that the kernel stops past `memory_mb` of address space or
    `cpu_seconds` of CPU: a hang or a blow-up shows as a signal or a MemoryError traceback."""
    return run_process(*args, cwd=cwd, timeout=None, preexec_fn=_capped(memory_mb, cpu_seconds))


def _clean_failure(proc, *texts):
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for text in texts:
        assert text in proc.stderr, proc.stderr[-2000:]


def test_check_of_a_die_with_a_billion_sides_stays_small(tmp_path):
    path = tmp_path / "die.civ"
    path.write_text('language 1\nedition d "D"\nevent_table w "W" die 999999999 { 1..3: "Rain" { } }\n')
    _clean_failure(run_capped("check", path), "error[CIV112]", "die.civ:3:23")


def test_build_of_a_commodity_with_a_billion_cards_stays_small(tmp_path):
    path = ROOT / "tests" / "hostile" / "reject_commodity_count.civ"
    _clean_failure(run_capped("build", path, "-o", tmp_path / "out"), "error[CIV112]")
    assert not (tmp_path / "out").exists()


def test_a_billion_laughs_state_file_is_refused_before_it_expands(tmp_path):
    levels = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(levels) + "\ncities: *a8\n")  # 9 KB that means 387 million strings
    _clean_failure(run_capped("resolve", "megaciv", "Famine", "--state", path, memory_mb=800),
                   "would expand to more than 1,000,000 values")


@pytest.mark.parametrize("text, message", [
    ("holds: &a [Pottery, *a]\n", "an alias refers to a value that contains it"),
    ("x: &a 1\nholds: [" + "*a, " * 1001 + "]\n", "more than 1,000 aliases"),
])
def test_yaml_cycles_and_alias_floods_are_refused(tmp_path, text, message):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    _clean_failure(run_capped("resolve", "megaciv", "Famine", "--state", path), message)


def test_a_few_aliases_are_fine(tmp_path):
    from civdsl import safeyaml

    assert safeyaml.load("a: &x [1, 2]\nb: *x\nc: *x\n") == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}
    assert safeyaml.measure(__import__("yaml").compose("a: &x [1, 2]\nb: *x\n")) == 9  # map, 2 keys, 2 x (list + 2 items)


def test_the_tool_reads_yaml_through_one_loader():
    """Every YAML reader in the package goes through civdsl.safeyaml (it alone calls PyYAML's loader)."""
    offenders = []
    for path in (ROOT / "civdsl").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name != "safeyaml.py" and re.search(r"(?<![\w.])yaml\.(safe_load|load|full_load|unsafe_load|compose)\b", text):
            offenders.append(path.name)
    assert not offenders


def test_docs_state_every_bound():
    """docs/security.md lists each range of the table, and the YAML and simulate limits."""
    from civdsl.rounds.simulate import MAX_ROUNDS_PLAYED
    from civdsl.safeyaml import MAX_ALIASES, MAX_NODES

    doc = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    for field, bound in FIELDS.items():
        if field in RUNTIME_ONLY:
            assert f"{bound.low:,} to {bound.high:,} dice" in doc
        else:
            assert f"| {bound.low:,} to {bound.high:,} | {bound.code} |" in doc, field
    for value in (MAX_ALIASES, MAX_NODES, MAX_ROUNDS_PLAYED):
        assert f"| {value:,} |" in doc


def _pure(text: str):
    """What safeyaml read before libyaml's reader came first: PyYAML's pure reader alone, or its error."""
    from civdsl import safeyaml

    try:
        return safeyaml._load_with(safeyaml._Loader, text)
    except Exception as exc:  # noqa: BLE001 (the error is the answer compared)
        return (type(exc), str(exc))


def _read(text: str):
    from civdsl import safeyaml

    try:
        return safeyaml.load(text)
    except Exception as exc:  # noqa: BLE001
        return (type(exc), str(exc))


def test_yaml_reads_the_same_with_libyaml_first():
    """Every YAML file of the repository under 60 KB (states, tables, games, the hostile corpus) and a few
    documents libyaml refuses read as the pure reader reads them: the same value, or the same error."""
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(ROOT.rglob("*.y*ml"))
             if ".venv" not in p.parts and "generated" not in p.parts and p.stat().st_size < 60_000
             and "deep" not in p.name]  # the pure reader is slow, on depth most of all: one deep document below
    texts += ["x: " + "[" * 2000 + "]" * 2000 + "\n", "a: [1, 2\n", "a: b: c\n", "\t- x\n", "a: &x [*x]\n", ""]
    assert len(texts) > 40
    for text in texts:
        assert _read(text) == _pure(text), text[:200]


def test_a_long_yaml_file_is_read_by_libyaml_where_installed(monkeypatch):
    """A hand-edited game file goes through the YAML reader whole: libyaml reads it, the pure reader
    only when libyaml cannot (its words for a malformed file are the ones users see)."""
    import yaml

    from civdsl import safeyaml

    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("PyYAML without libyaml")

    class Refused(yaml.SafeLoader):
        def __init__(self, text):
            raise AssertionError("the pure reader read a document libyaml reads")

    monkeypatch.setattr(safeyaml, "_Loader", Refused)
    assert safeyaml.load("events:\n" + "".join(f"  - {{do: next, turn: {i}}}\n" for i in range(100)))["events"][99] == \
        {"do": "next", "turn": 99}
    assert safeyaml.compose("a: 1\nb: [2]\n").value[1][1].start_mark.line == 1
