"""No rulebook text runs as JavaScript: every valid hostile rulebook of tests/hostile/ compiles to a
companion engine that is plain ASCII, can sit inside an inline <script> (no `</script`, no `<!--`),
defines no global but `civdsl` when run in Node, and answers every calamity, epoch and score
question exactly as the Python engine does. tests/hostile/codegen_javascript.civ holds names,
notes and labels written to be code in JavaScript: `</script>`, quotes, backslashes, U+2028,
`${}`, `__proto__` and `constructor`."""

from __future__ import annotations

from pathlib import Path

import pytest

import civdsl
from civdsl.companion.jsgen import engine_script, js_string
from companion_harness import cli_answer, first_difference, node_available, run_engine

CORPUS = Path(__file__).resolve().parent / "hostile"
OK_CASES = sorted(p for p in CORPUS.glob("codegen_*.civ")
                  if p.read_bytes().split(b"\n", 1)[0].strip() == b"# expect: ok")


def test_the_corpus_has_the_javascript_case():
    text = (CORPUS / "codegen_javascript.civ").read_text(encoding="utf-8")
    for needle in ("</script>", "${", "\\\\", "\u2028", "__proto__", "constructor", "\\\""):
        assert needle in text, needle


@pytest.mark.parametrize("text", ["</script>", "<!-- -->", "a\u2028b\u2029c", "${x}`", "\\\"'", "\ud800", "é&<>"])
def test_a_string_literal_is_ascii_and_cannot_end_a_script(text):
    literal = js_string(text)
    assert literal.isascii() and "<" not in literal and ">" not in literal and "&" not in literal
    assert literal.startswith('"') and literal.endswith('"')


@pytest.mark.skipif(not node_available(), reason="node is not installed (apt-get install nodejs)")
@pytest.mark.parametrize("path", OK_CASES, ids=lambda p: p.stem)
def test_hostile_rulebook_engine_runs_as_data(path):
    module = civdsl.load(path).module
    script = engine_script(module)
    assert script.isascii(), "the engine holds a character outside ASCII (U+2028 ends a line in old parsers)"
    lowered = script.lower()
    assert "</script" not in lowered and "<!--" not in lowered
    queries = []
    for state in ({}, {"holds": list(module.ADVANCES), "cities": 3, "tokens": 9, "commodities": {}}):
        for calamity in module.CALAMITIES:
            for role in ("primary", "secondary"):
                queries.append({"command": "resolve", "calamity": calamity, "role": role, "state": state})
        queries.append({"command": "epoch", "state": state})
        queries.append({"command": "score", "state": state})
    added: list = []
    answers = run_engine(script, queries, added)
    assert added == ["civdsl"], f"the engine defined globals {added}: rulebook text ran as code"
    for query, got in zip(queries, answers):
        assert "crash" not in got, got.get("crash")
        diff = first_difference(cli_answer(path, query), got)
        assert diff is None, f"{path.name} {query['command']} {query.get('calamity', '')!r}: {diff}"


# --- the JavaScript twin keeps up with the Python engine --------------------------------------------

RUNTIME = Path(__file__).resolve().parent.parent / "civdsl" / "companion" / "runtime"


def _js(name: str) -> str:
    return (RUNTIME / name).read_text(encoding="utf-8")


def test_every_name_a_rule_can_read_has_a_javascript_twin():
    """A derived name, a player or table function or a math function added to the vocabulary must
    be added to the JavaScript runtime too (a rulebook using it would otherwise fail in the page)."""
    from civdsl import vocabulary as vocab

    core = _js("core.js")
    missing = [n for n in vocab.DERIVED_NAMES if f'case "{n}"' not in core]
    for f in vocab.FUNCTIONS.values():
        if f.scope in ("player", "table") and f.name != "holds":
            name = "of_role" if f.name.startswith("of_") else f.name
            if f"\n  {name}(" not in core:
                missing.append(f.name)
        elif f.scope == "math" and not any(f"function {f.name}{tail}(" in core for tail in ("", "_")):
            missing.append(f.name)
    assert not missing, f"no JavaScript twin for {missing} (civdsl/companion/runtime/core.js)"


def test_the_amount_settings_the_generator_reads_are_the_ones_it_knows():
    """codegen's per-calamity `amounts` settings drive the JavaScript generator as well: a new one
    must be compiled there too."""
    from civdsl.codegen import _AmountRules

    ed = civdsl.load("civ1981")
    from civdsl.companion.jsgen import edition_of

    edition = edition_of(ed.module)
    rules = _AmountRules(edition, next(iter(edition.calamities.values())))
    assert set(vars(rules)) == {"bound", "floor", "order", "least_over", "unselect", "city_points"}
