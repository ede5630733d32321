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
from companion_harness import checked_edition, cli_answer, first_difference, node_available, run_engine

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
    script = engine_script(checked_edition(path), module)
    assert script.isascii(), "the engine holds a character outside ASCII (U+2028 ends a line in old parsers)"
    lowered = script.lower()
    assert "<script" not in lowered and "</script" not in lowered and "<!--" not in lowered
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
    from civdsl.companion import py2es

    from civdsl.playerstate import PlayerState

    # the derived names are playerfacts.py's (each computed there: test_op_visitors), and the
    # player's and table's functions methods of playerstate.py's PlayerState: the page runs both
    # translated
    assert {"civdsl.playerfacts", "civdsl.playerstate"} <= set(py2es.ENGINE_MODULES)
    missing = []
    core = _js("core.js")
    for f in vocab.FUNCTIONS.values():
        if f.scope in ("player", "table") and f.name != "holds":
            name = "of_role" if f.name.startswith("of_") else f.name
            if not callable(getattr(PlayerState, name, None)):
                missing.append(f.name)
        elif f.scope == "math" and not any(f"function {f.name}{tail}(" in core for tail in ("", "_")):
            missing.append(f.name)
    assert not missing, f"no JavaScript twin for {missing} (civdsl/playerstate.py, civdsl/companion/runtime/core.js)"


def test_the_amount_settings_the_generator_reads_are_the_ones_it_knows():
    """codegen's per-calamity `amounts` settings drive the JavaScript generator as well: a new one
    must be compiled there too."""
    from civdsl.rulewalk import AmountRules

    edition = checked_edition("civ1981")
    rules = AmountRules(edition, next(iter(edition.calamities.values())))
    assert set(vars(rules)) == {"bound", "floor", "floor_at", "order", "orders", "switches", "least_over", "unselect",
                                "city_points"}


# --- plain ES2017: the contract's language level, checked by a parser ---------------------------------

ACORN = Path("/usr/share/nodejs/acorn")  # Debian's node-acorn (.ci/run installs it)
_PARSE = r"""
const acorn = require(process.argv[2]);
const fs = require("fs");
const out = {};
for (const file of process.argv.slice(3)) {
  try {
    acorn.parse(fs.readFileSync(file, "utf8"), {ecmaVersion: 2017, sourceType: "script"});
    out[file] = null;
  } catch (exc) {
    out[file] = exc.message;
  }
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(not node_available() or not ACORN.is_dir(), reason="node or node-acorn is not installed")
def test_the_engine_runtime_and_generated_rules_are_plain_es2017(tmp_path):
    """The whole runtime, the page's script and every rulebook's generated rules parse as ECMAScript 2017
    scripts (no later syntax: no BigInt literals, object spread, optional chaining, ...)."""
    import json
    import subprocess

    from civdsl.companion.jsgen import rules_source
    from civdsl.resources import shipped_rulebooks

    # every runtime file and the page's script: syntax no later than ES2017 (the planner calls the BigInt
    # built-in only for signatures wider than 53 bits, far beyond any shipped rulebook's)
    files = sorted(RUNTIME.glob("*.js")) + sorted((RUNTIME.parent / "page").glob("*.js"))
    assert {p.name for p in files} >= {"core.js", "resolve.js", "api.js", "plan.js", "ui.js"}
    for rulebook in list(shipped_rulebooks()) + [CORPUS / "codegen_javascript.civ"]:
        path = tmp_path / f"rules-{Path(str(rulebook)).stem}.js"
        path.write_text(rules_source(checked_edition(rulebook)), encoding="utf-8")
        files.append(path)
    script = tmp_path / "parse.js"
    script.write_text(_PARSE, encoding="utf-8")
    from companion_harness import NODE

    done = subprocess.run([NODE, str(script), str(ACORN), *map(str, files)], capture_output=True, text=True,
                          timeout=300)
    problems = {Path(f).name: msg for f, msg in json.loads(done.stdout).items() if msg}
    assert not problems, problems


_NAMES = r"""
const acorn = require(process.argv[2]);
const fs = require("fs");
const out = {};
for (const file of process.argv.slice(3)) {
  const ast = acorn.parse(fs.readFileSync(file, "utf8"), {ecmaVersion: "latest", sourceType: "script"});
  out[file] = [];
  for (const node of ast.body) {
    if (node.type === "FunctionDeclaration" || node.type === "ClassDeclaration") out[file].push(node.id.name);
    if (node.type === "VariableDeclaration") node.declarations.forEach((d) => out[file].push(d.id.name));
  }
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(not node_available() or not ACORN.is_dir(), reason="node or node-acorn is not installed")
def test_no_top_level_name_is_declared_twice_in_the_engine(tmp_path):
    """The engine's files share one scope (one IIFE): a name declared in two of them would shadow
    the other silently (a function) or break the script (a const). The generated rules declare
    only names starting with `rule` or `RULE`; jscost's files only names starting with cost, plan,
    credit or pay (the contract in docs/companion.md)."""
    import json
    import subprocess

    from civdsl.companion.jsgen import rules_source
    from companion_harness import NODE

    files = sorted(RUNTIME.glob("*.js"))
    rules = tmp_path / "rules.js"
    rules.write_text(rules_source(checked_edition("megaciv")), encoding="utf-8")
    script = tmp_path / "names.js"
    script.write_text(_NAMES, encoding="utf-8")
    done = subprocess.run([NODE, str(script), str(ACORN), *map(str, files + [rules])], capture_output=True,
                          text=True, timeout=120)
    declared = json.loads(done.stdout)
    where: dict = {}
    for file, names in declared.items():
        for name in names:
            where.setdefault(name, []).append(Path(file).name)
    assert {n: f for n, f in where.items() if len(f) > 1} == {}
    assert all(n.startswith(("rule", "RULE")) for n in declared[str(rules)])
    for file, names in declared.items():
        if Path(file).name == "plan.js":
            odd = [n for n in names if not n.lower().startswith(("cost", "plan", "credit", "pay"))]
            assert not odd, f"{Path(file).name} declares {odd}"


@pytest.mark.skipif(not node_available(), reason="node is not installed (apt-get install nodejs)")
def test_a_proto_key_in_a_state_is_an_unknown_key_as_in_python():
    """A state with an own `__proto__` key (what JSON.parse makes of one, what a hostile state file
    holds) is refused as the command line refuses it, never read as the state's prototype."""
    import json

    from companion_harness import engine

    state = json.loads('{"__proto__": {"cities": 5, "holds": ["Pottery"]}, "cities": 2}')
    queries = [{"command": "resolve", "calamity": "Famine", "role": "primary", "state": state},
               {"command": "epoch", "state": state}, {"command": "score", "state": state}]
    for query, got in zip(queries, run_engine(engine("megaciv"), queries)):
        assert got["error"] == {"kind": "user", "message": "state: unknown key `__proto__`"}
        assert first_difference(cli_answer("megaciv", query), got) is None
