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
